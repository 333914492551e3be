// A storm on the simulated clock (docs/architecture.md#storms): 1,000 incidents page one
// person over an SMS channel with the default throttle (docs/guarantees.md#storms),
// through the channel actor to a Twilio-like local HTTP sink, against a real database.
#include "protocol/answer_all.hpp"
#include "storage/contacts.hpp"
#include "support/database_fixture.hpp"
#include "support/form.hpp"
#include "support/http_sink.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>
#include <set>

using namespace belay;
using namespace std::chrono_literals;

namespace {

const std::string bob_phone = "+15550002222";
const std::string messages_path = "/twilio/2010-04-01/Accounts/AC0123/Messages.json";
const std::string public_url = "https://belay.example";

// Org "acme": channel "sms" with no `throttle` field (the defaults: 1/60 s, 5/900 s,
// 11/3600 s); policy "default" texts bob at once and again 300 s later.
std::string sms_org(const test::http_sink& twilio) {
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
    "channels":[{"name":"sms","type":"sms","url":")" +
         twilio.url("/twilio") + R"(","account":"AC0123","secret":"twilio-token",
      "from":"+15550001111"}],
    "users":[{"name":"bob","contacts":[{"name":"phone","channel":"sms","to":")" +
         bob_phone + R"("}],"rules":[{"contact":"phone"}]}],
    "policies":[{"name":"default","steps":[
      {"delaySeconds":0,"targets":[{"user":"bob"}]},
      {"delaySeconds":300,"targets":[{"user":"bob"}]}]}]}]})";
}

struct sms_storm : test::database_fixture {
  test::http_sink twilio;

  sms_storm() {
    db.provision(sms_org(twilio));
    org = db.org_id("acme");
  }

  std::vector<std::string> texts() const {
    std::vector<std::string> out;
    for (auto& r : twilio.requests())
      if (r.path == messages_path)
        out.push_back(test::form_fields(r.body)["Body"]);
    return out;
  }
};

// Bob's reply "1" as http/answers.cpp's twilio_sms takes it, on the simulated node (which
// has no HTTP server): a reply naming no incident finds the bundle of the contact's last
// message with storage::last_bundle_to, loads it with storage::load_bundle, and
// protocol::answer_all sends the registry one acknowledge per incident still open, as
// the bundle's person, via "sms" — these same calls. Only the signature check and the
// TwiML are left out.
size_t reply_ack_all(test::test_node& node, int64_t org) {
  auto bundle = storage::last_bundle_to(node.db.sql(), org, "sms", bob_phone);
  REQUIRE(bundle);
  auto b = storage::load_bundle(node.db.sql(), *bundle);
  REQUIRE(b);
  return protocol::answer_all(
             b->org_id, b->incidents, protocol::answer_action::acknowledge, b->person,
             "sms", std::nullopt,
             [&node](const transition_command& cmd) {
               return std::optional<transition_reply>{
                   node.ask<transition_reply>(node.n.registry, atom::transition_v, cmd)};
             })
      .changed;
}

} // namespace

TEST_CASE_METHOD(sms_storm,
                 "a thousand incidents to one SMS person with the default throttle: two "
                 "texts in the first minute naming them all, and 1 to the second "
                 "acknowledges all of them, and nothing is sent after",
                 "[storms]") {
  test::test_node node{db, test::simulated_epoch, "test-node", [](node_options& o) {
                         o.answers = {public_url, "answer-secret"};
                       }};
  std::vector<int64_t> ids;
  for (int k = 0; k < 1000; ++k)
    ids.push_back(node.trigger(org, "storm-" + std::to_string(k)).incident.id);
  REQUIRE(std::set<int64_t>(ids.begin(), ids.end()).size() == 1000);

  CHECK(texts().size() == 1);
  CHECK(count("SELECT count(*) FROM delivery WHERE held_by = 'throttle'") == 999);
  node.advance(60s);

  auto sent = texts();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].find("(incident #" + std::to_string(ids.front()) + ")") !=
        std::string::npos);
  CHECK(sent[1].find("belay: 1000 incidents need you") == 0);
  CHECK(sent[1].find("Reply 1 to acknowledge all, 2 to resolve all. " + public_url +
                     "/a/") != std::string::npos);
  // The bundle names every incident: the 999 held pages and the first, still open.
  auto bundle = storage::last_bundle_to(db.sql(), org, "sms", bob_phone);
  REQUIRE(bundle);
  CHECK(count("SELECT count(DISTINCT incident_id) FROM bundle_incident WHERE bundle_id "
              "= $1",
              *bundle) == 1000);
  CHECK(count("SELECT count(*) FROM delivery WHERE status = 'SENT' AND bundle_id = $1",
              *bundle) == 999);

  CHECK(reply_ack_all(node, org) == 1000);
  CHECK(count("SELECT count(*) FROM incident WHERE status = 'ACKNOWLEDGED' AND acked_by "
              "= 'bob' AND acked_via = 'sms'") == 1000);

  // Past the ladder's second step (300 s) and every throttle window (an hour).
  node.advance(2h);
  CHECK(twilio.count() == 2);
  CHECK(count("SELECT count(*) FROM delivery WHERE status IN ('PENDING', 'CLAIMED')") ==
        0);
  CHECK(count("SELECT count(*) FROM delivery") == 1000);
}
