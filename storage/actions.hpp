// Working an incident (docs/guarantees.md#working-an-incident): notes, escalate now,
// snooze, reassign and priority. Each action is one transaction that locks the incident's
// row, checks what it may do from the row as it stands, writes the change with its
// timeline entry and its audit row, and announces it on incident_channel, so that the
// node holding the incident follows at once. A step is never fired here: escalate and
// reassign make a step due now, and the incident's actor fires it with the usual
// compare-and-set (G4: each step once).
#pragma once

#include "protocol/commands.hpp"
#include "protocol/incident_json.hpp"
#include "storage/held_incident.hpp"

#include <optional>
#include <string>
#include <vector>

namespace belay::storage {

class connection;

struct action_reply {
  // ok, not_found (no such incident in the org), conflict (the incident's state does not
  // allow it: error and message say why) or invalid (an unknown user, schedule or policy:
  // field names it).
  reply_code code = reply_code::ok;
  held_incident held; // as it stands after; its ladder when a reassign changed it
  std::string error{};
  std::string message{};
  std::string field{};
  // The channels of the deliveries it wrote (responders, a status update): to be nudged.
  std::vector<std::string> channels{};
};

// Does `a`, or says why not, writing nothing then.
action_reply apply_action(connection& c, const incident_action& a, micros now);

// Who an incident asked to help, who hears its status updates, and where it was merged,
// for its detail.
protocol::incident_work load_incident_work(connection& c, int64_t org_id, int64_t id);

// The end of a snooze (docs/guarantees.md#working-an-incident): an acknowledged incident
// whose snooze is due at `now` and still at `version` returns to OPEN, its ladder from
// the first step with keys of its own, the first step due `first_delay` after now.
// nullopt when the compare-and-set failed (resolved, escalated, snoozed again meanwhile).
std::optional<incident_record> end_snooze(connection& c, int64_t org_id, int64_t id,
                                          int64_t version, micros first_delay,
                                          micros now);

} // namespace belay::storage
