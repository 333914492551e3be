// Heartbeat monitors (docs/guarantees.md#heartbeats): dead-man monitors that page when
// the expected ping does not come. The record, the pure state machine, the ping URL's
// suffix and the list's JSON. No I/O.
//
// States new -> up -> late -> down. A success makes a monitor up, late `period` after
// it and down `period + grace` after it; a /start makes a success due within `grace`
// (down at start + grace unless due sooner); a fail makes it down at once. A `new`
// monitor stays new until its first ping, unless alertIfNeverPinged: then it goes late
// and down as if it had been pinged when it was created.
#pragma once

#include "protocol/error.hpp"
#include "protocol/model.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace belay {

inline constexpr const char* heartbeat_new = "new";
inline constexpr const char* heartbeat_up = "up";
inline constexpr const char* heartbeat_late = "late";
inline constexpr const char* heartbeat_down = "down";

// An incident side effect a transition committed and that is still to be made: open
// the incident (missed, failed) or resolve it. Kept in the row until it was made, so a
// node that dies in between leaves it to the monitor's next holder.
inline constexpr const char* pending_none = "";
inline constexpr const char* pending_missed = "missed";
inline constexpr const char* pending_failed = "failed";
inline constexpr const char* pending_resolve = "resolve";

enum class ping_kind { success, start, fail };

struct heartbeat_record {
  int64_t org_id = 0;
  int64_t id = 0;
  std::string name;
  std::string policy;
  double period_seconds = 0;
  double grace_seconds = 0;
  bool alert_if_never_pinged = false;
  std::string state = heartbeat_new;
  std::optional<micros> created_at; // stamped by the first node that holds it
  std::optional<micros> last_ping_at;
  std::optional<micros> late_at; // when silence makes it late (new or up only)
  std::optional<micros> down_at; // when silence makes it down (not when down)
  std::string pending = pending_none;
  int64_t version = 0;
  std::string owner;
};

namespace protocol {

// The incident a heartbeat opens and resolves: "heartbeat:<name>".
std::string heartbeat_dedup_key(const std::string& name);
// "Heartbeat <name> missed" or "Heartbeat <name> failed".
std::string heartbeat_title(const std::string& name, std::string_view pending);

// The details of that incident: {"heartbeat":"<name>","reason":"missed"|"failed"}.
std::string heartbeat_incident_details(const std::string& name, std::string_view pending);

// The next change that silence makes: to late or down, and when; nothing once down.
struct heartbeat_deadline {
  micros at = 0;
  const char* to = heartbeat_down;
};
std::optional<heartbeat_deadline> next_deadline(const heartbeat_record& h);

// The state silence has made the monitor by `now`, if it changed: down once down_at has
// passed (even from up: late and down may fall due together), else late once late_at
// has passed; nullptr when nothing is due.
const char* due_transition(const heartbeat_record& h, micros now);

// The suffix of /hb/<key>[/<suffix>]: empty (success), "start", "fail", or an exit code
// 0-255 (0 success, else fail). Anything else is 400 invalid_exit_code, field
// "exitCode".
parsed<ping_kind> parse_ping_suffix(std::string_view suffix);

// {"heartbeats":[{"name","state","lastPingAt","nextDueAt"}]}, as given.
std::string render_heartbeats(const std::vector<heartbeat_record>& heartbeats);

} // namespace protocol

} // namespace belay
