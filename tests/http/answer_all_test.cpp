// Answering a whole bundle (docs/architecture.md#storms) by a key pressed during the
// call and by Slack's "Resolve all", end to end: the real binary calls and posts to a
// local HTTP sink through channels whose throttle is seconds long, and the answers come
// back signed as Twilio and Slack sign them (tests/http/inbound_sign.py).
#include "support/answering.hpp"
#include "support/json.hpp"
#include "support/text.hpp"

#include <catch2/catch.hpp>
#include <chrono>

using namespace belay;
using namespace std::chrono_literals;
using test::base_url;
using test::contains;
using test::received;

namespace {

const std::string twilio_number = "+15550001111";
const std::string twilio_token = "twilio-auth-token";
const std::string slack_secret = "slack-signing-secret";
const std::string calls_path = "/twilio/2010-04-01/Accounts/AC0123/Calls.json";

// Org "alpha": policy "voice" calls one number, "slack" posts to #ops; each channel lets
// one message through every 3 s, so pages that find it closed wait and go as a bundle.
std::string answer_all_org(const test::http_sink& sink) {
  return R"({"orgs":[{"name":"alpha","apiKeys":["alpha-key"],
    "channels":[
      {"name":"voice","type":"voice","url":")" +
         sink.url("/twilio") + R"(","account":"AC0123","secret":")" + twilio_token +
         R"(","from":")" + twilio_number + R"(","throttle":[{"count":1,"seconds":3}]},
      {"name":"slack","type":"slack","url":")" +
         sink.url("/slack") + R"(","signingSecret":")" + slack_secret +
         R"(","throttle":[{"count":1,"seconds":3}]}],
    "policies":[
      {"name":"voice","steps":[{"delaySeconds":0,"targets":[{"channel":"voice","to":"+15550003333"}]}]},
      {"name":"slack","steps":[{"delaySeconds":0,"targets":[{"channel":"slack","to":"#ops"}]}]}
    ]}]})";
}

std::vector<int64_t> open_storm(test::served_belay& belay, const std::string& policy,
                                int n) {
  std::vector<int64_t> ids;
  for (int k = 0; k < n; ++k)
    ids.push_back(belay.open(policy + "-" + std::to_string(k), policy));
  return ids;
}

// Waits until every page was recorded sent (the sink records a request before it
// answers, so every message has arrived by then). The first message may already be a
// bundle when several pages were due at its first claim; the last one is a bundle
// naming every incident, the previous message's carried with its own.
void wait_all_sent(test::served_belay& belay, size_t pages) {
  REQUIRE(test::eventually(
      [&] {
        return belay.count("SELECT count(*) FROM delivery WHERE status = 'SENT'") ==
               static_cast<int64_t>(pages);
      },
      20s));
  REQUIRE(belay.count("SELECT count(*) FROM bundle WHERE status = 'SENT'") >= 1);
}

void settle(test::served_belay& belay, int64_t id, const std::string& verb) {
  REQUIRE(belay
              .post("/api/v1/incidents/" + std::to_string(id) + "/" + verb,
                    R"({"by":"alice"})", "alpha-key")
              .status == 200);
}

int64_t incidents_where(test::served_belay& belay, const std::string& where) {
  return belay.count("SELECT count(*) FROM incident WHERE " + where);
}

} // namespace

TEST_CASE("a key pressed during a bundle's call acknowledges every incident of it still "
          "open, as the person called, via voice",
          "[storms]") {
  test::http_sink sink;
  test::served_belay belay{answer_all_org(sink)};
  auto ids = open_storm(belay, "voice", 4);
  wait_all_sent(belay, ids.size());
  // One of them is resolved between the call and the key pressed.
  settle(belay, ids[1], "resolve");

  // The bundle call's <Gather action="…">: the voice callback with the bundle's token.
  auto twiml = test::form_fields(received(sink, calls_path).back().body)["Twiml"];
  INFO("twiml: " << twiml);
  const auto url = test::gather_action(twiml);
  REQUIRE(url.rfind(base_url(belay) + "/api/v1/integrations/twilio/voice?t=", 0) == 0);
  const auto body = test::form_body({{"AccountSid", "AC0123"},
                                     {"CallSid", "CA0002"},
                                     {"Digits", "1"},
                                     {"From", twilio_number},
                                     {"To", "+15550003333"}});
  auto pressed =
      test::post_form(belay, url.substr(base_url(belay).size()), body,
                      {{"X-Twilio-Signature",
                        test::python_signature("twilio", twilio_token, url, body)}});
  CHECK(pressed.status == 200);
  CHECK(contains(pressed.body, "Acknowledged 3 of 4 incidents by +15550003333 (1 already "
                               "answered)."));
  CHECK(incidents_where(belay, "status = 'ACKNOWLEDGED' AND acked_by = '+15550003333' "
                               "AND acked_via = 'voice'") == 3);
  CHECK(incidents_where(belay, "status = 'RESOLVED' AND resolved_by = 'alice'") == 1);
}

TEST_CASE("Slack's Resolve all on a bundle resolves every incident of it still open, as "
          "the Slack user, via slack",
          "[storms]") {
  test::http_sink sink;
  test::served_belay belay{answer_all_org(sink)};
  auto ids = open_storm(belay, "slack", 4);
  wait_all_sent(belay, ids.size());
  // Acknowledged meanwhile: still open, so resolved too; resolved meanwhile: left alone.
  settle(belay, ids[0], "ack");
  settle(belay, ids[2], "resolve");

  const auto token =
      test::slack_button_value(received(sink, "/slack").back().body, "Resolve all");
  REQUIRE(!token.empty());
  auto clicked = test::slack_click(belay, test::slack_click_body("belay_resolve", token),
                                   slack_secret, test::unix_seconds_now());
  CHECK(clicked.status == 200);
  CHECK(clicked.body == "Resolved 3 of 4 incidents by carol (1 already answered).");
  CHECK(incidents_where(belay, "status = 'RESOLVED' AND resolved_by = 'carol' AND "
                               "resolved_via = 'slack'") == 3);
  CHECK(incidents_where(belay, "resolved_by = 'alice'") == 1);
}
