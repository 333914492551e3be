// Unwrapping parsed<T> in tests, with the unexpected side shown when it is the other;
// and the JSON helpers of support/json.hpp, for the protocol tests that use them.
#pragma once

#include "protocol/error.hpp"
#include "support/json.hpp"

#include <catch2/catch.hpp>
#include <variant>

namespace belay::protocol::test {

template <class T> const T& value_of(const parsed<T>& p) {
  if (auto e = std::get_if<error>(&p))
    FAIL("expected a value, got error " << e->code << " at '" << e->field
                                        << "': " << e->message);
  return std::get<T>(p);
}

template <class T> const error& error_of(const parsed<T>& p) {
  REQUIRE(std::holds_alternative<error>(p));
  return std::get<error>(p);
}

using belay::test::json;
using belay::test::str;
using belay::test::text_of;

} // namespace belay::protocol::test
