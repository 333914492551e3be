// Request bodies of the native incident API (docs/http.md#incidents).
#pragma once

#include "protocol/error.hpp"
#include "protocol/limits.hpp"

#include <string>
#include <string_view>

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

} // namespace belay::protocol
