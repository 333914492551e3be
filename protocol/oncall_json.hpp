// The on-call API's wire formats (docs/http.md#on-call-api): who is on call, schedules,
// final shifts and overrides.
#pragma once

#include "protocol/error.hpp"
#include "protocol/oncall.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace belay::protocol {

// One schedule's person now, for /api/v1/oncall and /api/v1/schedules.
struct on_call_now {
  std::string schedule;
  std::string time_zone;
  std::optional<shift> now; // nobody on call: empty
};

// {"oncall":[{"schedule","user","start","end"}]}: schedules with nobody are left out.
std::string render_oncall(const std::vector<on_call_now>& all);

// {"schedules":[{"name","timeZone","oncall":[{"user","start","end"}]}]}
std::string render_schedules(const std::vector<on_call_now>& all);

// {"shifts":[{"user","start","end","source"}]}
std::string render_shifts(const std::vector<shift>& shifts);

// {"override":{"id","schedule","user","replaces","start","end","createdAt"}}
std::string render_override(std::string_view schedule, const schedule_override& o);

// {"overrides":[…]}
std::string render_overrides(std::string_view schedule,
                             const std::vector<schedule_override>& all);

// POST /api/v1/schedules/{name}/overrides: {"user"*, "start"*, "end"*, "replaces"},
// times RFC 3339. Errors name the field: a missing or malformed one, end ≤ start
// ("end"), replaces naming the user himself ("replaces"). Whether the users exist is
// the caller's to check.
parsed<schedule_override> parse_override_request(std::string_view body);

// A time span from query parameters ("from", "to"), both optional: absent ones take the
// defaults. 400 invalid_value naming the parameter for a malformed time, to ≤ from, or a
// span over `max_span`.
parsed<std::pair<micros, micros>> parse_span(const std::string& from,
                                             const std::string& to, micros default_from,
                                             micros default_to, micros max_span);

} // namespace belay::protocol
