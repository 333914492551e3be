// Alert grouping (docs/guarantees.md#alerts-and-grouping): an integration's `grouping.by`
// names fields of its events; alerts whose fields have the same values join one incident,
// whose dedup key is the group key those values make.
#pragma once

#include "protocol/alertmanager.hpp"
#include "protocol/commands.hpp"
#include "protocol/pagerduty.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace belay::protocol {

// Why `path` cannot group an integration of `type` (events | alertmanager), or nullopt
// when it can: alertmanager `labels.<name>`, `annotations.<name>`; events
// `payload.source`, `payload.component`, `payload.group`, `payload.class`,
// `payload.severity`, `payload.custom_details.<name>`.
std::optional<std::string> grouping_path_problem(std::string_view type,
                                                 std::string_view path);

// The group key of an event: the integration's name and each path's value (the empty
// string when the event has none), "<integration>:<v1>|<v2>…" with '|' and '\' in
// values escaped; past max_dedup_key_chars, "<integration>:sha256:<hex>" of it.
std::string group_key(std::string_view integration, const std::vector<std::string>& by,
                      const am_alert& alert);
std::string group_key(std::string_view integration, const std::vector<std::string>& by,
                      const pd_event& event);

// Makes `cmd`, written for `event` with the event's own key as its dedup key, an alert of
// an integration that groups by `by` (non-empty): the event's key names its alert, its
// group key the incident. What ingest does to every event of such an integration.
template <class Event>
void group_alert(trigger_command& cmd, std::string_view integration,
                 const std::vector<std::string>& by, const Event& event) {
  cmd.alert_key = cmd.dedup_key;
  cmd.dedup_key = group_key(integration, by, event);
}

} // namespace belay::protocol
