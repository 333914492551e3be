// What every actor of a node is given at spawn time.
#pragma once

#include "actors/actors.hpp"
#include "actors/clock.hpp"

#include <string>

namespace belay {

struct deps {
  storage_actor storage; // the storage router (actors/storage.hpp)
  dispatcher_actor
      dispatcher; // delivery: nudged when a step inserts deliveries; may be empty
  wall_clock clock;
  std::string node_id;
  double lease_seconds = 30;
  double orphan_sweep_seconds = 5; // how often the registry sweeps for orphans; 0: never
  // Resolved incidents older than this are deleted, a batch a minute, by the sweep
  // (DESIGN.md section 13); 0: kept for ever.
  double retention_days = 90;
  caf::timespan db_retry = std::chrono::seconds{1}; // back-off after a storage error
  // Every request to another actor has a deadline (DESIGN.md section 13): a storage
  // operation answers within the statement timeout plus the reply timeout's margin.
  caf::timespan request_timeout = std::chrono::seconds{35};
  transport::answer_links answers; // the way back every page carries (section 11)
};

} // namespace belay
