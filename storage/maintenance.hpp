// Maintenance windows (docs/guarantees.md#maintenance-windows): their rows, and the
// statement that lets a held ladder go once no window covers its incident any more. The
// step statement (storage/steps.cpp) holds ladders and the claim (storage/deliveries.cpp)
// holds deliveries; both read the windows themselves, so every node sees a new window at
// once.
#pragma once

#include "protocol/commands.hpp"
#include "protocol/maintenance_json.hpp"
#include "protocol/model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace belay::storage {

class connection;

// Writes that `who` names are audited in their transaction (docs/security.md#audit-log).
// Stores the window unless its policy or integration does not exist in the org (then
// nothing is written and nullopt comes back).
std::optional<protocol::maintenance_window>
add_maintenance(connection& c, int64_t org_id, const protocol::maintenance_window& m,
                micros now, const attribution& who = {});

// The org's windows that have not ended by `now` (active and future), by start.
std::vector<protocol::maintenance_window> list_maintenance(connection& c, int64_t org_id,
                                                           micros now);

// Ends a window at `now` (a future one never begins); false if it is unknown or over.
bool end_maintenance(connection& c, int64_t org_id, int64_t id, micros now,
                     const attribution& who = {});

// A held incident's actor asks whether its window is over (at its end, and every so
// often before, in case it ended early). Still covered: held on, until the latest end of
// the windows covering it now. Over: the ladder starts again from its first step, due
// `first_delay` after `at`. Nullopt when nothing changed (still held until the same end,
// or no longer OPEN at `version`).
struct resume_event {
  int64_t org_id = 0;
  int64_t id = 0;
  int64_t version = 0;
  std::string policy;
  std::string integration;
  micros first_delay = 0;
  micros at = 0;
};

std::optional<incident_record> resume_held(connection& c, const resume_event& e);

} // namespace belay::storage
