// PagerDuty Events API v2 (POST /v2/enqueue), so that anything able to page
// PagerDuty can page belay. Errors use PagerDuty's own response shape and wording.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace belay::protocol {

struct pd_event {
  std::string routing_key;  // an integration key: selects org, policy and shadow mode
  std::string event_action; // trigger | acknowledge | resolve
  std::string dedup_key;    // empty on a trigger without one: the caller generates it
  std::string summary;      // trigger only: the incident title
  std::string source;       // trigger only
  std::string severity;     // trigger only: critical | error | warning | info
  // Trigger only, when strings (what grouping may read,
  // docs/guarantees.md#alerts-and-grouping).
  std::string component;
  std::string group;
  std::string event_class;
  std::string details_json = "{}"; // payload.custom_details, always a JSON object
  // The event as evidence: routing_key and other secret-named members removed
  // (protocol/redact.hpp), so no integration key is stored.
  std::string payload_json = "{}";
};

// Either the event or every problem found, as human sentences like PagerDuty's
// ("'payload.summary' is missing or blank", "Event action is invalid"). Unknown
// fields (client, client_url, links, images, payload.timestamp, …) are ignored.
std::variant<pd_event, std::vector<std::string>> parse_pd_event(std::string_view body);

// 202: {"status":"success","message":"Event processed","dedup_key":"…"}
std::string render_pd_accepted(const std::string& dedup_key);
// 400: {"status":"invalid event","message":"Event object is invalid","errors":[…]}
std::string render_pd_invalid(const std::vector<std::string>& errors);
// 429: {"status":"throttle event","message":…}, PagerDuty's answer over a rate limit.
std::string render_pd_throttled(const std::string& message);

} // namespace belay::protocol
