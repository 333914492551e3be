#include "support/simulated_system.hpp"

#include "actors/node.hpp"

#include <caf/atom.hpp>

namespace belay::test {

testing_config::testing_config() {
  configure(*this);
  set("scheduler.policy", caf::atom("testing"));
}

simulated_system::simulated_system(micros wall_start)
    : sys(cfg), sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())),
      clock{wall_start, sys.clock().now()} {}

simulated_system::~simulated_system() {
  // Whatever is still alive gets its pending messages processed; timers left in the
  // schedule belong to actors that are gone and never fire.
  run();
}

void simulated_system::run() {
  sched.run();
}

void simulated_system::advance(caf::timespan d) {
  auto& clk = sched.clock();
  auto target = clk.now() + d;
  run();
  while (clk.has_pending_timeout()) {
    auto due = clk.schedule().begin()->first;
    if (due > target)
      break;
    sched.advance_time(due > clk.now() ? due - clk.now() : caf::timespan{0});
    run();
  }
  if (target > clk.now())
    sched.advance_time(target - clk.now());
  run();
}

micros simulated_system::now() const {
  return clock.at(const_cast<caf::actor_system&>(sys).clock().now());
}

} // namespace belay::test
