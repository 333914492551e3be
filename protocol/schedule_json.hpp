// An on-call schedule as JSON, in the shape of the provisioning file
// (docs/operations.md#provisioning-fields). Storage keeps schedules in this shape too, so
// there is one reader and one writer for it.
#pragma once

#include "protocol/error.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/oncall.hpp"

#include <optional>
#include <rapidjson/document.h>
#include <string>
#include <string_view>

namespace belay::protocol {

// {"name","timeZone","layers":[{"name","users":[…],
//   "rotation":{"type","length","start"},
//   "restrictions":[{"days":[…],"start","end"}]}]}, restrictions left out when none.
void write_schedule(json_writer& w, const schedule& s);
std::string render_schedule(const schedule& s);

// name* (1..255), timeZone* (an IANA zone of the system tz database), layers*
// (non-empty), each layer {name* (unique in the schedule), users* (non-empty, names may
// repeat), rotation* {type* hourly|daily|weekly|monthly, length (1..1000, default 1),
// start* "YYYY-MM-DDTHH:MM[:SS]" local, no offset}, restrictions (non-empty when
// given) [{days (mon…sun, no repeats; default every day), start* "HH:MM", end*
// "HH:MM"}]}. Unknown fields are refused. The zone is resolved on the way (see
// check_schedule). Whether layer users exist is not checked here: that needs the org
// (see provisioning.hpp).
parsed<schedule> parse_schedule(std::string_view json);

// The same, for a schedule inside a larger document; errors are recorded in
// `first_error` and name paths below `path` ("orgs[0].schedules[1]").
schedule read_schedule(const rapidjson::Value& value, const std::string& path,
                       std::optional<error>& first_error);

} // namespace belay::protocol
