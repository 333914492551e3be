// Maintenance windows (docs/guarantees.md#maintenance-windows): the request that creates
// one and the JSON of windows. A window covers an org's policy or one of its integrations
// from `start` to `end`; while it does, no step of an incident it covers fires and
// nothing pending of such an incident is sent.
#pragma once

#include "protocol/error.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/model.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace belay::protocol {

struct maintenance_window {
  int64_t id = 0;
  std::string policy; // exactly one of policy and integration is set
  std::string integration;
  micros start = 0;
  micros end = 0;
  std::string reason;
  micros created_at = 0;
};

// POST /api/v1/maintenance: {"policy" or "integration" (exactly one), "start" (default
// `now`), "end"*, "reason"}. An end not after the start, both targets or neither is a
// 400 naming the field at fault. Whether the policy or integration exists is for the
// caller to check (it needs the database).
parsed<maintenance_window> parse_maintenance_request(std::string_view body, micros now);

// {"id","policy","integration","start","end","reason","createdAt"}; the target not set
// is null.
void write_maintenance(json_writer& w, const maintenance_window& m);
// {"maintenance":{…}}
std::string render_maintenance(const maintenance_window& m);
// {"maintenance":[…]}
std::string render_maintenance_list(const std::vector<maintenance_window>& all);

} // namespace belay::protocol
