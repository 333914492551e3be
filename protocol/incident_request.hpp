// Request bodies of the native incident API (docs/http.md#incidents).
#pragma once

#include "protocol/error.hpp"
#include "protocol/limits.hpp"
#include "protocol/model.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace belay::protocol {

// POST /api/v1/incidents
struct trigger_request {
  std::string dedup_key;
  std::string title;
  std::string policy;
  std::string severity = "critical";
  std::string details_json = "{}"; // always a JSON object, compact
  // The request as evidence, without secret-named members (protocol/redact.hpp).
  std::string payload_json = "{}";
};

// {"dedupKey"*, "title"*, "policy"*, "severity" (critical|error|warning|info),
//  "details" (object)}; unknown fields are ignored. Errors: invalid_json,
// missing_field, wrong_type, invalid_value, too_long, each naming its field.
parsed<trigger_request> parse_trigger_request(std::string_view body);

// POST /api/v1/incidents/{id}/ack and …/resolve
struct actor_request {
  std::string by;          // empty: nobody named (resolve only)
  std::string via = "api"; // "api", or "console" when the console sends it
};

// {"by":"alice"}: "by" 1..255 characters, required unless `by_required` is false (the
// caller's credential says who: docs/security.md#attribution); "via" optional, "api"
// (the default) or "console". An empty body reports the missing "by" rather than bad
// JSON, because that is what the caller has to fix.
parsed<actor_request> parse_ack_request(std::string_view body, bool by_required = true);
// An empty body, {} and {"by":…} are all fine.
parsed<actor_request> parse_resolve_request(std::string_view body);

// Working an incident (docs/http.md#working-an-incident). Each body may also carry "by"
// and "via" as an acknowledge's does (actor_request), read the same way.

// POST …/notes: {"text"* (1..4,000 characters)}.
struct note_request {
  actor_request actor;
  std::string text;
};
parsed<note_request> parse_note_request(std::string_view body);

// POST …/escalate: an empty body, {} or {"by","via"}.
parsed<actor_request> parse_escalate_request(std::string_view body);

// POST …/snooze: exactly one of {"until": RFC 3339} or {"seconds": > 0}; whether the time
// is in the next 24 hours is the caller's to check, against its clock.
struct snooze_request {
  actor_request actor;
  std::optional<micros> until;
  std::optional<double> seconds;
};
parsed<snooze_request> parse_snooze_request(std::string_view body);

// POST …/reassign: exactly one of {"policy"}, {"user"} or {"schedule"}, each a name.
struct reassign_request {
  actor_request actor;
  std::string policy, user, schedule;
};
parsed<reassign_request> parse_reassign_request(std::string_view body);

// POST …/priority: {"priority": "P1".."P5" | null}; the member is required (null clears).
struct priority_request {
  actor_request actor;
  std::string priority; // empty: none
};
parsed<priority_request> parse_priority_request(std::string_view body);

// POST …/responders: {"users":[names], "schedules":[names], "message"} with at least one
// name (at most 20 of each); "message" (up to 1,000 characters) is what they are asked.
struct responders_request {
  actor_request actor;
  std::vector<std::string> users, schedules;
  std::string message;
};
parsed<responders_request> parse_responders_request(std::string_view body);

// POST …/subscribers: {"users":[names], "channels":[{"channel","to"}]}, at least one
// (at most 20 of each).
struct subscribers_request {
  actor_request actor;
  std::vector<std::string> users;
  std::vector<std::pair<std::string, std::string>> addresses; // channel, to
};
parsed<subscribers_request> parse_subscribers_request(std::string_view body);

// POST …/merge: {"into"*: the id of an incident of the same org}.
struct merge_request {
  actor_request actor;
  int64_t into = 0;
};
parsed<merge_request> parse_merge_request(std::string_view body);

// POST …/status-updates: {"message"* (1..1,000 characters)}.
struct status_update_request {
  actor_request actor;
  std::string message;
};
parsed<status_update_request> parse_status_update_request(std::string_view body);

} // namespace belay::protocol
