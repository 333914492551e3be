// GET /api/v1/dead-letters and POST …/{id}/replay through the running binary.
#include "support/http_sink.hpp"
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace std::chrono_literals;

namespace {

std::string failing_org(const test::http_sink& sink) {
  return R"({"orgs":[{"name":"alpha","apiKeys":["alpha-key"],
    "channels":[{"name":"hook","type":"webhook","url":")" +
         sink.url("/hook") + R"(","maxAttempts":1}],
    "policies":[{"name":"default","steps":[{"delaySeconds":0,
      "targets":[{"channel":"hook","to":"#ops"}]}]}]},
    {"name":"beta","apiKeys":["beta-key"]}]})";
}

} // namespace

TEST_CASE(
    "a dead letter is listed, replayed once as a fresh delivery, and only in its org") {
  test::http_sink sink;
  sink.script({400}); // the first page is refused for good; the replay goes through
  test::served_belay belay{failing_org(sink)};
  REQUIRE(belay.trigger("dead-on-arrival").status == 201);

  test::reply listed;
  REQUIRE(test::eventually([&] {
    listed = belay.get("/api/v1/dead-letters", "alpha-key");
    return listed.status == 200 && listed.json["deadLetters"].Size() == 1;
  }));
  auto& dead = listed.json["deadLetters"][0];
  CHECK(std::string{dead["channel"].GetString()} == "hook");
  CHECK(std::string{dead["target"].GetString()} == "#ops");
  CHECK(std::string{dead["reason"].GetString()}.find("400") != std::string::npos);
  auto replay =
      "/api/v1/dead-letters/" + std::to_string(dead["id"].GetInt64()) + "/replay";

  CHECK(belay.get("/api/v1/dead-letters", "beta-key").json["deadLetters"].Size() == 0);
  CHECK(belay.post(replay, "", "beta-key").status == 404);
  auto replayed = belay.post(replay, "", "alpha-key");
  REQUIRE(replayed.status == 202);
  CHECK(replayed.json["deliveryId"].IsInt64());
  CHECK(sink.wait_for(2, 10s));
  CHECK(belay.post(replay, "", "alpha-key").status == 409);
  CHECK(test::eventually([&] {
    return belay.count(
               "SELECT count(*) FROM delivery WHERE status = 'SENT' AND replay_of "
               "IS NOT NULL") == 1;
  }));
  CHECK(sink.count() == 2);
}
