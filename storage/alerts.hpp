// Alerts inside incidents (docs/guarantees.md#alerts-and-grouping, docs/architecture.md):
// what storage writes and reads for an integration that groups its alerts. An integration
// that does not group writes no alert row: its incidents are their one alert, and their
// path is unchanged.
#pragma once

#include "protocol/commands.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/model.hpp"
#include "storage/incidents.hpp"
#include "storage/statements.hpp"

#include <optional>
#include <string>
#include <vector>

namespace belay::storage {

class connection;

// The incidents a write of alerts touched and those it opened, for its batch's mark
// (trigger_mark): a lost COMMIT is settled by reading them back.
struct alert_writes {
  std::vector<int64_t> touched;
  std::vector<int64_t> created;
};

// Writes the grouped events among `events` (those of `which`, each with an alert key) and
// fills in each one's result in `out`: an event for a firing alert counts on that alert's
// incident; a new alert joins the non-resolved incident of its group key (the event's
// dedup key) or opens one. Two statements, in the caller's transaction.
alert_writes upsert_alerts(connection& c, const std::vector<trigger_event>& events,
                           const std::vector<size_t>& which,
                           std::vector<upsert_result>& out);

// The members of one row of a trigger statement's $1 (storage/triggers.cpp): the first
// of the events `which` names the incident as it would be created; `evidence` keeps the
// last payloads, as the incident would after each event in turn.
void write_trigger_row(protocol::json_writer& w, const std::vector<trigger_event>& events,
                       const std::vector<size_t>& which);

// Writes `writes` into the batch's mark: inserts it when no other statement of the batch
// did (`insert`), else appends to it.
void mark_alert_writes(connection& c, const alert_writes& writes,
                       const trigger_mark& mark, bool insert);

// An acknowledge or resolve by an alert's key (transition_command::alert_key): resolving
// a firing alert resolves it, and its incident when it was the last one firing; an
// acknowledge acknowledges the alert's incident. nullopt when no alert with that key
// fires. Runs in the caller's transaction, else in one of its own.
std::optional<transition_reply>
apply_alert_transition(connection& c, const transition_command& cmd, micros now);

struct alert_page {
  std::vector<alert_record> alerts;
  std::optional<int64_t> next_after; // cursor: the last alert's id, when more follow
};

// An incident's alerts, newest first, those before alert `after` (0: from the newest),
// at most `limit`. An incident without alert rows shows as its one alert.
alert_page load_alerts(connection& c, const incident_record& incident, int64_t after,
                       int limit);

// The payloads an incident kept (already redacted at ingest), newest first, as a JSON
// array.
std::string load_evidence(connection& c, int64_t org_id, int64_t id);

} // namespace belay::storage
