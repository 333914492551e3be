// The inspector and its stream show the caller's org only (docs/http.md#inspector): two
// orgs on one node, neither learns how many incidents the other has.
#include "support/json.hpp"
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>

using namespace belay;

namespace {

// The first snapshot of the org's live stream, as JSON text.
std::string first_streamed(test::served_belay& belay, const std::string& key) {
  std::string received;
  auto http = belay.client();
  http.set_read_timeout(5, 0);
  http.Get("/api/v1/inspector/stream", {{"Authorization", test::bearer(key)}},
           [&](const char* data, size_t n) {
             received.append(data, n);
             return received.find("\n\n") == std::string::npos;
           });
  auto data = received.find("data: ");
  auto end = received.find("\n\n");
  REQUIRE(data != std::string::npos);
  REQUIRE(end != std::string::npos);
  return received.substr(data + 6, end - data - 6);
}

} // namespace

TEST_CASE("the inspector and its stream show the caller's org only") {
  test::served_belay belay;
  for (auto dedup : {"alpha-1", "alpha-2"})
    REQUIRE(belay.trigger(dedup, "alpha-key").status == 201);
  REQUIRE(belay.trigger("beta-1", "beta-key").status == 201);
  REQUIRE(belay.trigger("beta-1", "beta-key").status == 200); // a duplicate

  auto alpha = belay.get("/api/v1/inspector", "alpha-key");
  REQUIRE(alpha.status == 200);
  CHECK(alpha.json["incidents"].Size() == 2);
  auto& mine = alpha.json["registry"];
  CHECK(mine["held"].GetUint64() == 2);
  CHECK(mine["created"].GetUint64() == 2);
  CHECK(mine["deduplicated"].GetUint64() == 0);

  auto beta = belay.get("/api/v1/inspector", "beta-key");
  REQUIRE(beta.status == 200);
  CHECK(beta.json["incidents"].Size() == 1);
  auto& theirs = beta.json["registry"];
  CHECK(theirs["held"].GetUint64() == 1);
  CHECK(theirs["created"].GetUint64() == 1);
  CHECK(theirs["deduplicated"].GetUint64() == 1);

  for (auto [key, held] : {std::pair{"alpha-key", 2u}, std::pair{"beta-key", 1u}}) {
    auto streamed = test::json(first_streamed(belay, key));
    INFO(key);
    CHECK(streamed["registry"]["held"].GetUint64() == held);
    CHECK(streamed["incidents"].Size() == held);
  }
}
