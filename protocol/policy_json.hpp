// An escalation policy as JSON, in the shape of the provisioning file
// (docs/operations.md#provisioning-fields). Storage keeps policies (and each incident's
// copy of its ladder) in this shape too, so there is one reader and one writer for it.
#pragma once

#include "protocol/error.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/model.hpp"

#include <optional>
#include <rapidjson/document.h>
#include <string>
#include <string_view>

namespace belay::protocol {

// {"name","repeat","repeatDelaySeconds"|null,"graceSeconds",
//  "steps":[{"delaySeconds","targets":[{"channel","to"} | {"user"} | {"schedule"}]}]}
void write_policy(json_writer& w, const belay::policy& p);
// A step's targets: [{"channel": …, "to": …}, {"user": …}, {"schedule": …}, …].
void write_targets(json_writer& w, const std::vector<target>& targets);
std::string render_policy(const belay::policy& p);

// name* (1..255), repeat (whole number ≥ 0, default 0), repeatDelaySeconds (≥ 0,
// optional), graceSeconds (≥ 0, default 300), steps* (non-empty), each step
// {delaySeconds (≥ 0, default 0), targets* (non-empty)}, each target exactly one of
// {channel*, to*}, {user*} or {schedule*}. Unknown fields are refused. Whether a
// target's channel, user or schedule exists is not checked here: that needs the org
// (see provisioning.hpp).
parsed<belay::policy> parse_policy(std::string_view json);

// The same, for a policy inside a larger document; errors are recorded in
// `first_error` and name paths below `path` ("orgs[0].policies[1]").
belay::policy read_policy(const rapidjson::Value& value, const std::string& path,
                          std::optional<error>& first_error);

} // namespace belay::protocol
