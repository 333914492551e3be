// What every actor of a node is given at spawn time.
#pragma once

#include "actors/clock.hpp"

#include <caf/actor.hpp>
#include <string>

namespace belay {

struct deps {
  caf::actor storage;    // pool of storage workers (actors/storage.hpp)
  caf::actor dispatcher; // delivery: nudged when a step inserts deliveries; may be empty
  wall_clock clock;
  std::string node_id;
  double lease_seconds = 30;
  caf::timespan db_retry = std::chrono::seconds{1}; // back-off after a storage error
};

} // namespace belay
