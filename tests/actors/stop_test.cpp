// Stopping a node: the registry tells its incident actors to exit a slice at a time and
// quits after the last of them is down (actors/registry.cpp, tell_some_to_exit).
#include "support/ladder_fixture.hpp"
#include "support/test_node.hpp"

#include <caf/actor_registry.hpp>
#include <catch2/catch.hpp>

using namespace belay;

TEST_CASE_METHOD(
    test::ladder_fixture,
    "a node stopping with more incidents than one slice stops every incident "
    "actor") {
  test::test_node a{db};
  a.adopt();
  auto before = a.sys.registry().running();
  for (int i = 0; i < 300; ++i) // more than the 256 told at a time
    a.trigger(org, "stop-" + std::to_string(i));
  a.advance(std::chrono::seconds{1});
  REQUIRE(a.sys.registry().running() >= before + 300);
  a.stop();
  CHECK(a.sys.registry().running() == 0); // the registry and every incident actor
}
