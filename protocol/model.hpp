// Plain records shared by storage, actors, http and protocol rendering. No I/O here.
#pragma once

#include "protocol/access.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace belay {

// Wall-clock time as microseconds since the Unix epoch. Every timestamp in belay
// is derived from the actor system's clock (see actors/clock.hpp), never read
// from the operating system on the logic path.
using micros = int64_t;

inline constexpr const char* status_open = "OPEN";
inline constexpr const char* status_acknowledged = "ACKNOWLEDGED";
inline constexpr const char* status_exhausted = "EXHAUSTED";
inline constexpr const char* status_resolved = "RESOLVED";

// Whom a step pages: exactly one of an address on a channel (channel and to), a user
// (through their notification rules) or a schedule (whoever is on call when the step
// fires). The fields of the other kinds stay empty.
struct target {
  std::string channel;
  std::string to;
  // Initialised so that {channel, to} still reads as a whole target to
  // -Wmissing-field-initializers.
  std::string user{};
  std::string schedule{};

  bool is_user() const { return !user.empty(); }
  bool is_schedule() const { return !schedule.empty(); }
  bool is_address() const { return !is_user() && !is_schedule(); }
};

struct step {
  double delay_seconds = 0;
  std::vector<target> targets;
};

struct policy {
  std::string name;
  int repeat = 0;
  std::optional<double> repeat_delay_seconds; // default: the last step's own delay
  double grace_seconds = 300;
  // A trigger within this long after a resolve reopens the incident (0: never).
  double reopen_seconds = 0;
  std::vector<step> steps;
};

// A way to reach a person: `to` on a channel of the org (the channel is the transport).
struct contact {
  std::string name;
  std::string channel;
  std::string to;
  // One more message when an incident it was paged for is acknowledged or resolved.
  bool status_updates = false;
};

// Paging a person pages `contact`, `delay_seconds` after the step fired.
struct notification_rule {
  std::string contact;
  double delay_seconds = 0;
};

struct user_config {
  std::string name;
  std::string full_name;
  std::string time_zone; // IANA, for showing the person their times; empty: not given
  std::vector<contact> contacts;
  std::vector<notification_rule> rules;
  // What they may do once signed in (docs/security.md#roles), and the identity they
  // sign in as: an OpenID claim's value (their email, by default) or a password login.
  protocol::role role = protocol::role::responder;
  std::string login{}; // empty: cannot sign in
};

// An incident's ladder: the policy as it was when the incident opened. Immutable, so
// the incidents opened with one definition share one copy.
using ladder_ptr = std::shared_ptr<const policy>;

// A throttle window (docs/guarantees.md#storms): at most `count` messages to one contact
// in any `seconds`.
struct throttle_window {
  int count = 1;
  double seconds = 60;
};
using throttle_windows = std::vector<throttle_window>;

struct channel_config {
  int64_t org_id = 0;
  std::string name;
  std::string type; // webhook | slack | email | sms | voice | log
  std::string url; // http(s) for webhook/slack, smtp(s) for email, API base for sms/voice
  std::string secret;           // webhook HMAC key, Twilio auth token, SMTP password
  std::string signing_secret{}; // slack: checks the X-Slack-Signature of button clicks
  std::string account;          // Twilio account SID, SMTP user name
  std::string from;             // email sender, sms/voice caller id
  int max_attempts = 4;
  double retry_base_seconds = 30;
  double retry_cap_seconds = 120;
  double timeout_seconds = 5;
  std::string failover_to; // empty: none
  // Per contact (the channel and a `to`): how many pages and how many status updates it
  // may be sent (empty: no limit), and whether pages that wait for it go as one message
  // (protocol/throttle.hpp has the defaults by type).
  throttle_windows throttle{};
  throttle_windows status_throttle{};
  bool bundle = false;

  // Whether claims go contact by contact (throttles, bundles) rather than page by page.
  bool per_contact() const {
    return bundle || !throttle.empty() || !status_throttle.empty();
  }
};

struct incident_record {
  int64_t org_id = 0;
  int64_t id = 0;
  std::string dedup_key;
  std::string title;
  std::string severity = "critical";
  std::string status = status_open;
  std::string policy;
  int current_step = 0; // index of the step that fires next in `loop`
  int loop = 0;
  int64_t event_count = 1;
  micros created_at = 0;
  micros last_seen_at = 0;
  std::optional<micros> next_fire_at;
  std::optional<micros> acked_at;
  std::string acked_by;
  std::string acked_via{}; // how (docs/guarantees.md#answering-the-page): api, console,
                           // link, sms, …
  std::optional<micros> resolved_at;
  std::string resolved_by{};
  std::string resolved_via{};
  std::optional<micros> exhausted_at;
  int64_t version = 1;
  bool shadow = false;
  int reopen_count = 0;      // triggers that reopened it within its policy's window
  std::string integration{}; // of its first event; empty: the native API
  // While a maintenance window holds the ladder: the window's end
  // (docs/guarantees.md#maintenance-windows).
  std::optional<micros> held_until{};
  // Working an incident (docs/guarantees.md#working-an-incident): P1..P5 or empty; while
  // an acknowledged incident is snoozed, when it returns to OPEN; after a reassign to a
  // person or a schedule, "user:<name>" or "schedule:<name>" (empty: its policy).
  std::string priority{};
  std::optional<micros> snoozed_until{};
  std::string assigned_to{};
  // Its alerts, and how many of them fire (docs/guarantees.md#alerts-and-grouping): 1 and
  // 1 for an incident that is its own alert, as every incident of an integration that
  // does not group.
  int alert_count = 1;
  int firing_count = 1;
};

// An alert of a grouped incident (docs/guarantees.md#alerts-and-grouping), or an
// ungrouped incident shown as its one alert.
struct alert_record {
  int64_t id = 0;
  std::string key;
  std::string status; // FIRING | RESOLVED
  std::string title;
  std::string severity;
  micros first_seen_at = 0;
  micros last_seen_at = 0;
  int64_t event_count = 1;
};

struct timeline_entry {
  micros at = 0;
  std::string kind;
  std::string detail_json = "{}"; // a JSON object
};

struct delivery_record {
  int64_t org_id = 0;
  int64_t id = 0;
  int64_t incident_id = 0;
  int loop = 0;
  int step = 0;
  std::string channel;
  std::string target;
  std::string idempotency_key;
  std::string status; // PENDING CLAIMED SENT DEAD CANCELLED SHADOWED
  int attempts = 0;
  std::optional<micros> next_attempt_at;
  std::string last_error;
  bool ambiguous = false;
  std::optional<int64_t> failover_from;
  std::optional<micros> sent_at;
  micros created_at = 0;
  std::string update_of{}; // a status update: "acknowledged" or "resolved"
  std::string user{};      // the person paged, when the page went through a user's rule
  std::string held_by{};   // "throttle": pending until its contact's throttle opens
  std::optional<int64_t> bundle_id{}; // sent (or being sent) inside this bundle
};

struct dead_letter_record {
  int64_t id = 0;
  int64_t delivery_id = 0;
  int64_t incident_id = 0;
  std::string channel;
  std::string target;
  std::string reason;
  micros failed_at = 0;
};

} // namespace belay
