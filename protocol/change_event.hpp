// PagerDuty change events (POST /v2/change/enqueue, docs/guarantees.md#change-events):
// deploys, config pushes and other changes a team wants to see beside the incidents that
// follow them. A change never pages.
#pragma once

#include "protocol/json_writer.hpp"
#include "protocol/model.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace belay::protocol {

struct change_event {
  std::string routing_key; // an events integration key: selects the org
  std::string summary;
  std::string source;
  std::optional<micros> timestamp; // payload.timestamp; absent: when it arrived
  // payload.custom_details as a JSON object, secret-named members removed
  // (protocol/redact.hpp); a non-object is kept under "custom_details".
  std::string details_json = "{}";
  // links: [{"href","text"}], as a JSON array, secret-named members removed.
  std::string links_json = "[]";
};

// Either the event or every problem found, worded like PagerDuty's ("'payload.summary'
// is missing or blank"). Unknown fields are ignored, as PagerDuty does.
std::variant<change_event, std::vector<std::string>>
parse_change_event(std::string_view body);

// 202: {"status":"success","message":"Change event processed"}
std::string render_change_accepted();

// A change as recorded (GET /api/v1/changes, an incident's detail).
struct change_record {
  int64_t id = 0;
  std::string summary;
  std::string source;
  micros timestamp = 0;
  std::string integration;
  std::string details_json = "{}";
  std::string links_json = "[]";
};

// {"id","summary","source","timestamp","integration","details","links"}
void write_change(json_writer& w, const change_record& c);
// {"changes":[…],"next":cursor|null}
std::string render_change_list(const std::vector<change_record>& changes,
                               const std::optional<std::string>& next);

} // namespace belay::protocol
