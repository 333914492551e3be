// Every SQL statement about people and on-call schedules (docs/guarantees.md#on-call).
#pragma once

#include "protocol/commands.hpp"
#include "protocol/oncall.hpp"
#include "protocol/paging.hpp"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace belay::storage {

class connection;

// The users of an org, in name order, as provisioning stored them.
std::vector<user_config> load_users(connection& c, int64_t org_id);

// The org's schedules by name, zones resolved.
std::vector<protocol::schedule> load_schedules(connection& c, int64_t org_id);
std::optional<protocol::schedule> load_schedule(connection& c, int64_t org_id,
                                                const std::string& name);

std::set<std::string> user_names(connection& c, int64_t org_id);

// The schedule's overrides that overlap [from, to), oldest first.
std::vector<protocol::schedule_override> load_overrides(connection& c, int64_t org_id,
                                                        const std::string& schedule,
                                                        micros from, micros to);

// Stores `o` (its id and created_at are set from the row).
// Audited when `who` names someone (docs/security.md#audit-log).
protocol::schedule_override add_override(connection& c, int64_t org_id,
                                         const std::string& schedule,
                                         protocol::schedule_override o, micros now,
                                         const attribution& who = {});

// The org's users, schedules and the overrides near `at` (within on_call_search_limit):
// what expanding a step's targets at `at` needs.
protocol::org_people load_people(connection& c, int64_t org_id, micros at);

// False when the schedule has no override of that id.
bool delete_override(connection& c, int64_t org_id, const std::string& schedule,
                     int64_t id, micros now = 0, const attribution& who = {});

} // namespace belay::storage
