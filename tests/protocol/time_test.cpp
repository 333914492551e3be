#include "protocol/time.hpp"

#include <catch2/catch.hpp>

using belay::protocol::rfc3339;

TEST_CASE("rfc3339 renders the epoch") {
  CHECK(rfc3339(0) == "1970-01-01T00:00:00.000Z");
}

TEST_CASE("rfc3339 renders known instants in UTC with milliseconds") {
  CHECK(rfc3339(1'795'976'415'123'000) == "2026-11-29T18:20:15.123Z");
  CHECK(rfc3339(1'709'251'199'999'000) == "2024-02-29T23:59:59.999Z"); // leap day
  CHECK(rfc3339(951'868'800'000'000) ==
        "2000-03-01T00:00:00.000Z"); // after 400-year leap
}

TEST_CASE("rfc3339 cuts microseconds off instead of rounding into the future") {
  CHECK(rfc3339(1'795'976'415'123'999) == "2026-11-29T18:20:15.123Z");
}

TEST_CASE("rfc3339 renders instants before the epoch") {
  CHECK(rfc3339(-1) == "1969-12-31T23:59:59.999Z");
  CHECK(rfc3339(-14'182'940'000'000) == "1969-07-20T20:17:40.000Z");
}
