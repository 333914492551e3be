// Storms (docs/architecture.md#storms), end to end: the real binary pages a Twilio-like
// HTTP sink through a channel whose throttle is seconds long instead of a minute, and
// the person answers by SMS, signed as Twilio signs (tests/http/inbound_sign.py).
#include "support/answering.hpp"
#include "support/json.hpp"
#include "support/text.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using test::contains;
using test::received;

namespace {

const std::string twilio_number = "+15550001111";
const std::string bob_phone = "+15550002222";
const std::string twilio_token = "twilio-auth-token";
const std::string messages_path = "/twilio/2010-04-01/Accounts/AC0123/Messages.json";

// Org "alpha": policy "sms" texts bob through a channel that lets one message through
// every 4 s (`throttle`, the shape of docs/guarantees.md#storms with a short window).
std::string storm_org(const test::http_sink& twilio) {
  return R"({"orgs":[{"name":"alpha","apiKeys":["alpha-key"],
    "channels":[{"name":"sms","type":"sms","url":")" +
         twilio.url("/twilio") + R"(","account":"AC0123","secret":")" + twilio_token +
         R"(","from":")" + twilio_number + R"(","throttle":[{"count":1,"seconds":4}]}],
    "users":[{"name":"bob","contacts":[{"name":"phone","channel":"sms","to":")" +
         bob_phone + R"("}],"rules":[{"contact":"phone"}]}],
    "policies":[{"name":"sms","steps":[{"delaySeconds":0,"targets":[{"user":"bob"}]}]}]
  }]})";
}

std::vector<std::string> texts(const test::http_sink& sink) {
  std::vector<std::string> out;
  for (auto& r : received(sink, messages_path))
    out.push_back(test::form_fields(r.body)["Body"]);
  return out;
}

int64_t count(test::served_belay& belay, const std::string& where) {
  return belay.count("SELECT count(*) FROM delivery WHERE " + where);
}

} // namespace

TEST_CASE("a storm of 40 incidents texts the person twice, not 40 times: one page, then "
          "one bundle naming every open incident, and a reply of 1 acknowledges them all",
          "[storms]") {
  test::http_sink twilio;
  test::served_belay belay{storm_org(twilio)};
  std::vector<int64_t> ids;
  for (int k = 0; k < 40; ++k)
    ids.push_back(belay.open("storm-" + std::to_string(k), "sms"));

  // The first page goes alone; the others wait for the throttle, visibly, never dropped.
  REQUIRE(twilio.wait_for(1, std::chrono::seconds(10)));
  REQUIRE(test::eventually([&] { return count(belay, "held_by = 'throttle'") == 39; }));
  auto deliveries =
      belay.get("/api/v1/incidents/" + std::to_string(ids.back()), "alpha-key");
  REQUIRE(deliveries.status == 200);
  CHECK(contains(deliveries.body, "\"heldBy\":\"throttle\""));
  CHECK(belay.metric("belay_pages_held_by_throttle") == 39);

  // When it opens, one message carries the 39 and the first, still open.
  REQUIRE(twilio.wait_for(2, std::chrono::seconds(15)));
  REQUIRE(test::eventually([&] { return count(belay, "status = 'SENT'") == 40; }));
  auto sent = texts(twilio);
  REQUIRE(sent.size() == 2);
  CHECK(contains(sent[0], "(incident #" + std::to_string(ids.front()) + ")"));
  CHECK(contains(sent[1], "belay: 40 incidents need you (40 critical): #"));
  CHECK(contains(sent[1], "Reply 1 to acknowledge all, 2 to resolve all. " +
                              test::base_url(belay) + "/a/"));
  CHECK(count(belay, "bundle_id IS NOT NULL AND status = 'SENT'") == 39);
  CHECK(belay.count("SELECT count(*) FROM bundle WHERE status = 'SENT'") == 1);
  CHECK(belay.metric("belay_bundles_sent_total{channel=\"sms\"}") == 1);
  CHECK(belay.metric("belay_pages_bundled_total{channel=\"sms\"}") == 39);

  auto ack = test::sms_reply(belay, bob_phone, twilio_number, "1", twilio_token);
  CHECK(ack.status == 200);
  CHECK(contains(ack.body, "Acknowledged 40 of 40 incidents by bob."));
  CHECK(belay.count("SELECT count(*) FROM incident WHERE status = 'ACKNOWLEDGED' AND "
                    "acked_by = 'bob' AND acked_via = 'sms'") == 40);
  // Nothing more is sent: the ladder stopped for all of them.
  CHECK_FALSE(twilio.wait_for(3, std::chrono::seconds(5)));
}

TEST_CASE(
    "a bundle's answer page lists its incidents, answers one of them, then all still "
    "open, and a tampered token changes nothing",
    "[storms]") {
  test::http_sink twilio;
  test::served_belay belay{storm_org(twilio)};
  std::vector<int64_t> ids;
  for (int k = 0; k < 5; ++k)
    ids.push_back(belay.open("page-" + std::to_string(k), "sms"));
  REQUIRE(twilio.wait_for(2, std::chrono::seconds(20)));
  auto bundle_text = texts(twilio).at(1);
  auto at = bundle_text.find("/a/");
  REQUIRE(at != std::string::npos);
  const auto path = bundle_text.substr(at);

  auto page = belay.client().Get(path.c_str());
  REQUIRE(page);
  CHECK(page->status == 200);
  CHECK(contains(page->body, "<h1>5 incidents</h1>"));
  CHECK(contains(page->body, "Acknowledge all"));
  for (auto id : ids)
    CHECK(contains(page->body, " #" + std::to_string(id) + " Disk full on page-"));

  auto one =
      test::post_form(belay, path, "action=resolve&incident=" + std::to_string(ids[2]));
  CHECK(one.status == 200);
  CHECK(contains(one.body, "Resolved 1 of 1 incident by bob."));
  CHECK(belay.count("SELECT count(*) FROM incident WHERE status = 'RESOLVED'") == 1);

  auto stranger = test::post_form(belay, path, "action=ack&incident=999999");
  CHECK(stranger.status == 400);
  auto tampered =
      test::post_form(belay, path.substr(0, path.size() - 2) + "AA", "action=ack");
  CHECK(tampered.status == 404);
  CHECK(belay.count("SELECT count(*) FROM incident WHERE status = 'ACKNOWLEDGED'") == 0);

  auto all = test::post_form(belay, path, "action=ack");
  CHECK(all.status == 200);
  CHECK(contains(all.body, "Acknowledged 4 of 5 incidents by bob (1 already answered)."));
  CHECK(belay.count("SELECT count(*) FROM incident WHERE status = 'ACKNOWLEDGED' AND "
                    "acked_via = 'link' AND acked_by = 'bob'") == 4);
}
