// The ladder's arithmetic (docs/architecture.md#incident-lifecycle) on its own:
// microseconds, no actors.
#include "protocol/ladder.hpp"

#include <catch2/catch.hpp>

using namespace belay;

namespace {

constexpr micros second = 1'000'000;

policy three_steps(int repeat = 0, std::optional<double> repeat_delay = {}) {
  policy p;
  p.name = "p";
  p.repeat = repeat;
  p.repeat_delay_seconds = repeat_delay;
  p.grace_seconds = 300;
  p.steps = {{0, {{"hook", "a"}}}, {60, {{"hook", "b"}}}, {120.5, {{"hook", "c"}}}};
  return p;
}

} // namespace

TEST_CASE("each step fires its own delay after the previous step's scheduled time") {
  auto p = three_steps();
  auto next = advance(p, 0, 0, 1000 * second);
  CHECK(next.step == 1);
  CHECK(next.loop == 0);
  CHECK(next.fire_at == 1060 * second);
  CHECK_FALSE(next.exhausted_at);
  next = advance(p, 1, 0, next.fire_at);
  CHECK(next.step == 2);
  CHECK(next.fire_at ==
        1180 * second + second / 2); // fractional delays are exact to 1 us
}

TEST_CASE("after the last step of the last loop the grace period runs") {
  auto p = three_steps();
  auto end = advance(p, 2, 0, 2000 * second);
  CHECK(end.step == 3); // == steps.size(): nothing left to fire
  CHECK(end.exhausted_at == 2000 * second);
  CHECK(end.fire_at == 2300 * second);
}

TEST_CASE("a repeated ladder starts its next loop after the last step's own delay") {
  auto p = three_steps(1);
  auto next = advance(p, 2, 0, 2000 * second);
  CHECK(next.step == 0);
  CHECK(next.loop == 1);
  CHECK(next.fire_at == 2000 * second + seconds_to_micros(120.5));
  CHECK(advance(p, 2, 1, 3000 * second).exhausted_at == 3000 * second);
}

TEST_CASE("repeatDelaySeconds, when given, separates the loops") {
  auto p = three_steps(2, 30);
  CHECK(advance(p, 2, 0, 2000 * second).fire_at == 2030 * second);
  CHECK(advance(p, 2, 1, 2000 * second).loop == 2);
}

TEST_CASE("seconds become microseconds rounded to the nearest") {
  CHECK(seconds_to_micros(0.1) == 100'000);
  CHECK(seconds_to_micros(1e-7) == 0);
  CHECK(seconds_to_micros(2.0000005) == 2'000'001);
}
