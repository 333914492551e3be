// No secret reaches the logs (docs/guarantees.md#no-secret-at-rest): a heartbeat key and
// an answer token travel in the request path, which belay logs at debug level and again
// on an error; the logged path carries "…" in their place.
#include "support/eventually.hpp"
#include "support/served_belay.hpp"
#include "support/text.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using test::contains;

namespace {

const std::string hb_key = "hb-secret-key-4242";
const std::string token = "tok3nSecretAnswerLink99";

std::string org_with_heartbeat() {
  return R"({"orgs":[{"name":"alpha","apiKeys":["alpha-key"],
    "channels":[{"name":"log","type":"log"}],
    "policies":[{"name":"default","steps":[{"delaySeconds":0,
      "targets":[{"channel":"log","to":"#ops"}]}]}],
    "heartbeats":[{"name":"nightly","key":")" +
         hb_key +
         R"(","periodSeconds":86400,"graceSeconds":3600,"policy":"default"}]}]})";
}

} // namespace

TEST_CASE("heartbeat keys and answer tokens in request paths are logged as …, at debug "
          "level too") {
  test::served_belay belay{org_with_heartbeat(), 1, {"--log-level", "debug"}};
  auto client = belay.client();
  REQUIRE(client.Get(("/hb/" + hb_key).c_str())->status == 200);
  REQUIRE(client.Get(("/hb/" + hb_key + "/start").c_str())->status == 200);
  CHECK(client.Get(("/a/" + token).c_str())->status == 404);
  CHECK(client
            .Post(("/a/" + token).c_str(), "action=ack",
                  "application/x-www-form-urlencoded")
            ->status == 404);

  // A request is logged after its answer is sent: wait for the last one's line.
  const std::string last_line = "http POST /a/\u2026 -> 404";
  CHECK(test::eventually([&] { return contains(belay.process().log(), last_line); },
                         std::chrono::seconds(5)));
  auto log = belay.process().log();
  // The requests were logged, with the secret part replaced and the rest kept.
  CHECK(contains(log, "http GET /hb/\u2026 -> 200"));
  CHECK(contains(log, "http GET /hb/\u2026/start -> 200"));
  CHECK_FALSE(contains(log, hb_key));
  CHECK_FALSE(contains(log, token));
}
