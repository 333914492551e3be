// What every actor of a node is given at spawn time. The defaults here are the node's
// (node_options and the settings take theirs from these).
#pragma once

#include "actors/actors.hpp"
#include "actors/clock.hpp"

#include <caf/timespan.hpp>
#include <chrono>
#include <memory>
#include <string>

namespace belay {

struct deps {
  storage_actor storage; // the storage router (actors/storage_router.hpp)
  dispatcher_actor
      dispatcher; // delivery: nudged when a step inserts deliveries; may be empty
  wall_clock clock;
  std::string node_id;
  double lease_seconds = 30;       // renewed every third of it
  double orphan_sweep_seconds = 5; // how often the registry sweeps for orphans; 0: never
  // Resolved incidents older than this are deleted, a batch a minute, by the sweep
  // (docs/guarantees.md#retention); 0: kept for ever.
  double retention_days = 90;
  caf::timespan db_retry = std::chrono::seconds{1}; // back-off after a storage error
  // How often an incident held by a maintenance window asks whether the window ended
  // early (deleted, on any node); at its end it asks at once
  // (docs/guarantees.md#maintenance-windows).
  caf::timespan maintenance_poll = std::chrono::seconds{10};
  // Every request to another actor has a deadline
  // (docs/guarantees.md#nothing-waits-for-ever): a storage operation answers within the
  // statement timeout plus the reply timeout's margin. The hot paths (a step's write, a
  // claim, an outcome, a send) carry no timer of CAF's: each one costs the clock thread
  // two wake-ups and holds an entry until it is cancelled (20,000 steps at once: +6 MiB
  // of RSS). Their bound is built in instead: the storage worker's connection gives up
  // after the reply timeout, a worker that dies fails every request it held, and a
  // transport gives up after its own timeout.
  caf::timespan request_timeout = std::chrono::seconds{35};
  int adopt_page_size = 10000; // incidents per page of the adoption at start
  // The way back every page carries (docs/guarantees.md#answering-the-page); shared,
  // since every actor has a copy of these deps and only channels read it. Null: pages
  // carry no link.
  std::shared_ptr<const transport::answer_links> answers;
};

} // namespace belay
