// A CAF actor system on the deterministic test scheduler with a simulated clock
// (not caf/test/dsl.hpp, whose macros crash under Catch2: see STACK.md).
#pragma once

#include "actors/clock.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scheduler/test_coordinator.hpp>

namespace belay::test {

// 2026-01-01T00:00:00Z: simulated wall time starts here, so expected timestamps are
// plain arithmetic.
inline constexpr micros simulated_epoch = 1'767'225'600'000'000;

struct testing_config : caf::actor_system_config {
  testing_config();
};

class simulated_system {
public:
  explicit simulated_system(micros wall_start = simulated_epoch);
  ~simulated_system();

  // Runs every queued message until nothing is left to do.
  void run();
  // Moves the simulated clock forward by `d`, firing each timer at its own due time
  // (and everything it triggers) in order, as a real clock would.
  void advance(caf::timespan d);
  micros now() const;

  testing_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  wall_clock clock;
};

} // namespace belay::test
