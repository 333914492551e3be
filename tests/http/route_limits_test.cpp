// docs/guarantees.md#rate-limits for the routes that take no API or integration key:
// heartbeat pings and answer links are limited per ping key or token and per source
// address, the Twilio and Slack replies per source address; over it 429 with
// Retry-After, before the handler runs.
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>

using namespace belay;

namespace {

// Org "alpha" with two heartbeats, ping keys hb-one and hb-two.
std::string org_with_heartbeats() {
  return R"({"orgs":[{"name":"alpha","apiKeys":["alpha-key"],
    "channels":[{"name":"log","type":"log"}],
    "policies":[{"name":"default","steps":[
      {"delaySeconds":0,"targets":[{"channel":"log","to":"#ops"}]}]}],
    "heartbeats":[
      {"name":"one","key":"hb-one","periodSeconds":3600,"graceSeconds":600,"policy":"default"},
      {"name":"two","key":"hb-two","periodSeconds":3600,"graceSeconds":600,"policy":"default"}]}]})";
}

// Statuses of `n` requests made by `send`.
template <class Send> std::vector<int> statuses(int n, Send send) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    auto r = send();
    out.push_back(r ? r->status : 0);
  }
  return out;
}

} // namespace

TEST_CASE("a heartbeat ping key or an answer link over its rate limit gets 429") {
  test::served_belay belay{
      org_with_heartbeats(), 1, {"--token-rate-limit-per-minute", "3"}};
  auto http = belay.client();
  CHECK(statuses(3, [&] { return http.Get("/hb/hb-one"); }) ==
        std::vector{200, 200, 200});
  auto over = http.Get("/hb/hb-one/fail");
  REQUIRE(over);
  CHECK(over->status == 429);
  CHECK(std::stoi(over->get_header_value("Retry-After")) >= 1);
  CHECK(test::error_code(test::to_reply(over)) == "rate_limited");
  CHECK(http.Get("/hb/hb-two")->status == 200); // another key has its own bucket
  // Made-up keys and tokens count too: guessing is paced.
  CHECK(statuses(3, [&] { return http.Get("/hb/guess"); }) == std::vector{404, 404, 404});
  CHECK(http.Get("/hb/guess")->status == 429);
  auto answers = statuses(4, [&] { return http.Get("/a/not-a-token"); });
  CHECK(answers.back() == 429);
  CHECK(answers.front() != 429);
  CHECK(http.Post("/api/v1/integrations/twilio/voice?t=not-a-token", "", "text/plain")
            ->status == 429); // the same link, asked by voice
}

TEST_CASE("one source address over its rate limit gets 429 on every unkeyed route") {
  test::served_belay belay{
      org_with_heartbeats(), 1, {"--address-rate-limit-per-minute", "4"}};
  auto http = belay.client();
  CHECK(http.Get("/hb/hb-one")->status == 200);
  CHECK(http.Get("/a/some-token")->status != 429);
  CHECK(http.Post("/api/v1/integrations/twilio/sms", "From=%2B1555&Body=2",
                  "application/x-www-form-urlencoded")
            ->status != 429);
  CHECK(http.Post("/api/v1/integrations/slack/actions", "payload=%7B%7D",
                  "application/x-www-form-urlencoded")
            ->status != 429);
  for (auto path :
       {"/api/v1/integrations/slack/actions", "/api/v1/integrations/twilio/sms"}) {
    auto r = http.Post(path, "payload=%7B%7D", "application/x-www-form-urlencoded");
    REQUIRE(r);
    CHECK(r->status == 429);
    CHECK(r->has_header("Retry-After"));
  }
  CHECK(http.Get("/hb/hb-two")->status == 429);
  // Keyed routes keep their own limits: the API is not refused for this address.
  CHECK(belay.get("/api/v1/heartbeats", "alpha-key").status == 200);
}
