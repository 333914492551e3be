#include "support/simulated_system.hpp"

#include <caf/event_based_actor.hpp>
#include <catch2/catch.hpp>
#include <chrono>

using namespace belay;
using namespace std::chrono_literals;

namespace {

// Re-arms itself every minute, like a ladder timer, and counts the ticks.
caf::behavior ticker(caf::event_based_actor* self, int* ticks) {
  self->delayed_send(self, 1min, caf::atom_constant<caf::atom("tick")>::value);
  return {[=](caf::atom_constant<caf::atom("tick")> tick) {
    ++*ticks;
    self->delayed_send(self, 1min, tick);
  }};
}

} // namespace

TEST_CASE("the simulated clock drives a timer through an hour in well under a second") {
  test::simulated_system s;
  int ticks = 0;
  auto t = s.sys.spawn(ticker, &ticks);
  auto started = std::chrono::steady_clock::now();
  s.advance(1h);
  auto took = std::chrono::steady_clock::now() - started;
  CHECK(ticks == 60);
  CHECK(s.now() == test::simulated_epoch + 3'600'000'000);
  CHECK(took < 1s);
  caf::anon_send_exit(t, caf::exit_reason::user_shutdown);
}
