#include "support/simulated_system.hpp"

#include <caf/event_based_actor.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>

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

namespace {

micros stepped_now = 0;
micros stepped_source() {
  return stepped_now;
}

} // namespace

TEST_CASE("the production wall clock reads the system clock each time, so a step of it "
          "(NTP, a paused VM) is followed at once") {
  auto actor_now = caf::actor_clock::clock_type::now();
  auto c = system_wall_clock();
  // Whatever the actor clock says: an anchored clock would answer an hour ahead here.
  CHECK(std::abs(c.at(actor_now + 1h) - system_micros()) < 1'000'000);

  c.source = &stepped_source;
  stepped_now = test::simulated_epoch;
  CHECK(c.at(actor_now) == test::simulated_epoch);
  stepped_now += 3'600'000'000; // the system clock steps an hour forward
  CHECK(c.at(actor_now) == test::simulated_epoch + 3'600'000'000);
  // A fire time an hour and a minute after the first reading is a minute away now.
  CHECK(c.until(test::simulated_epoch + 3'660'000'000, actor_now) == 1min);
}
