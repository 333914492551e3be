// G5 through the real binary: a node restarted straight away re-adopts its incidents,
// with the default node id and without waiting for any lease to lapse.
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>

using namespace belay;

TEST_CASE("a restarted node re-adopts its open incidents at once") {
  test::test_database db;
  test::temp_file provisioning{test::two_orgs()};
  std::vector<std::string> flags{"--provision", provisioning.path()};
  {
    auto first = test::belay_process::serve(db.url(), flags);
    auto c = first.client();
    auto r = c.Post("/api/v1/incidents", {{"Authorization", "Bearer alpha-key"}},
                    test::trigger_body("survives"), "application/json");
    REQUIRE(r);
    REQUIRE(r->status == 201);
    REQUIRE(first.stop() == 0);
  }
  auto second = test::belay_process::serve(db.url(), flags);
  auto view = test::to_reply(
      second.client().Get("/api/v1/inspector", {{"Authorization", "Bearer alpha-key"}}));
  REQUIRE(view.status == 200);
  CHECK(view.json["registry"]["held"].GetUint64() == 1);
  CHECK(second.log().find("adopted 1 non-resolved incidents") != std::string::npos);
}
