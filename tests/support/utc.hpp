// Instants written as UTC text ("2026-03-06T14:00:00Z"), read with the date library
// rather than with belay's own parser.
#pragma once

#include "protocol/model.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>
#include <sstream>
#include <string>

namespace belay::test {

inline micros utc(const std::string& text) {
  std::istringstream in(text);
  date::sys_seconds t;
  in >> date::parse("%FT%TZ", t);
  REQUIRE_FALSE(in.fail());
  return t.time_since_epoch().count() * 1'000'000;
}

} // namespace belay::test
