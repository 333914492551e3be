// The token bucket of the rate limits (docs/guarantees.md#rate-limits), in microseconds.
#include "protocol/rate_limit.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace belay::protocol;

namespace {
constexpr micros second = 1'000'000;
}

TEST_CASE("a bucket allows a minute's worth at once, then refuses") {
  token_bucket b;
  for (int i = 0; i < 600; ++i)
    REQUIRE(take_token(b, 600, 1000 * second).allowed);
  auto refused = take_token(b, 600, 1000 * second);
  CHECK_FALSE(refused.allowed);
  CHECK(refused.retry_after == second / 10); // 600 a minute: one token per 100 ms
  CHECK(retry_after_seconds(refused.retry_after) == 1);
}

TEST_CASE("a bucket refills at its limit's pace and never beyond a minute's worth") {
  token_bucket b;
  for (int i = 0; i < 60; ++i)
    REQUIRE(take_token(b, 60, 0).allowed);
  CHECK_FALSE(take_token(b, 60, 0).allowed);
  CHECK_FALSE(take_token(b, 60, second / 2).allowed);
  CHECK(take_token(b, 60, second).allowed); // one a second
  CHECK_FALSE(take_token(b, 60, second).allowed);
  // An hour idle refills to 60, not 3600.
  int allowed = 0;
  while (take_token(b, 60, 3600 * second).allowed)
    ++allowed;
  CHECK(allowed == 60);
}

TEST_CASE("Retry-After tells the wait until the next token, in whole seconds") {
  token_bucket b;
  REQUIRE(take_token(b, 1, 0).allowed);
  auto refused = take_token(b, 1, 15 * second);
  CHECK_FALSE(refused.allowed);
  CHECK(refused.retry_after == 45 * second);
  CHECK(retry_after_seconds(refused.retry_after) == 45);
  CHECK(retry_after_seconds(45 * second + 1) == 46);
  CHECK(retry_after_seconds(0) == 1);
}

TEST_CASE("a clock that goes backwards refills nothing, and a zero limit refuses") {
  token_bucket b;
  REQUIRE(take_token(b, 1, 100 * second).allowed);
  CHECK_FALSE(take_token(b, 1, 10 * second).allowed);
  CHECK_FALSE(take_token(b, 1, 100 * second).allowed);
  token_bucket none;
  CHECK_FALSE(take_token(none, 0, 0).allowed);
}
