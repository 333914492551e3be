// One message for many incidents (docs/architecture.md#storms): what each channel's
// renderer writes for a bundle of pages and of status updates.
#include "pages.hpp"
#include "protocol/answer_token.hpp"
#include "protocol/bundle_text.hpp"
#include "protocol/email.hpp"
#include "protocol/json_document.hpp"
#include "protocol/slack_message.hpp"
#include "protocol/sms.hpp"
#include "protocol/twiml.hpp"
#include "protocol/webhook.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

const answer_links links{"https://belay.example.com/", "bundle-test-secret"};
constexpr belay::micros now = 1'800'000'000'000'000;

belay::incident_record numbered(int64_t id, const std::string& severity,
                                const std::string& status = "OPEN") {
  auto incident = incident_in(status);
  incident.id = id;
  incident.severity = severity;
  incident.title = "Disk full on db-" + std::to_string(id);
  return incident;
}

// A bundle of `n` incidents, #101.., the first `critical` of them critical.
page bundle_of(int n, int critical = 0, const std::string& update = "") {
  page p;
  p.update = update;
  std::vector<bundled_incident> incidents;
  for (int k = 0; k < n; ++k)
    incidents.push_back({numbered(101 + k, k < critical ? "critical" : "warning",
                                  update.empty() ? "OPEN" : "ACKNOWLEDGED"),
                         "https://belay.example.com/a/member-" + std::to_string(k)});
  with_bundle(p, links, 77, std::move(incidents), now);
  return p;
}

} // namespace

TEST_CASE("a bundle's token names the bundle by its negated id, which no delivery has",
          "[storms]") {
  auto p = bundle_of(3);
  CHECK(verify_answer_token(links.signing_secret, p.answer_token, now) == -77);
  CHECK(p.answer_url == "https://belay.example.com/a/" + p.answer_token);
  CHECK(contains(p.voice_url, "/api/v1/integrations/twilio/voice?t=" + p.answer_token));
  CHECK(p.incident.id == 101);
  CHECK(kind_of(p) == page_kind::bundle);
}

TEST_CASE(
    "an SMS bundle counts the incidents and the critical ones, lists them, and says "
    "how to answer all",
    "[storms]") {
  auto sms = sms_text(bundle_of(3, 2));
  CHECK(sms ==
        "belay: 3 incidents need you (2 critical): #101 Disk full on db-101; #102 "
        "Disk full on db-102; #103 Disk full on db-103\nReply 1 to acknowledge all, "
        "2 to resolve all. " +
            bundle_of(3, 2).answer_url);
}

TEST_CASE("an SMS bundle of a storm stays short and says how many it did not list",
          "[storms]") {
  auto sms = sms_text(bundle_of(1000));
  CHECK(contains(sms, "belay: 1000 incidents need you: #101 "));
  CHECK(contains(sms, "...and "));
  CHECK(contains(sms, " more\nReply 1 to acknowledge all"));
  CHECK(sms.size() < 320 + 200);
  for (unsigned char c : sms)
    CHECK(c < 0x80); // GSM-7 friendly: one segment is 160 characters, not 70
}

TEST_CASE("a call for a bundle says the count and three titles and gathers one key for "
          "all",
          "[storms]") {
  auto twiml = voice_twiml(bundle_of(5, 1));
  CHECK(contains(twiml,
                 "<Gather numDigits=\"1\" action=\"https://belay.example.com/api/v1/"
                 "integrations/twilio/voice?t="));
  CHECK(contains(twiml,
                 "belay. 5 incidents need you (1 critical). Disk full on db-101. "
                 "Disk full on db-102. Disk full on db-103. And 2 more. Press 1 to "
                 "acknowledge all, 2 to resolve all."));
}

TEST_CASE("an email bundle links every incident and the bundle", "[storms]") {
  auto p = bundle_of(2, 1);
  auto mail = email_content(p);
  CHECK(mail.subject == "[belay] 2 incidents need you (1 critical)");
  CHECK(
      contains(mail.text, "Acknowledge or resolve all of them here:\r\n" + p.answer_url));
  CHECK(contains(mail.text, "#101 [CRITICAL] Disk full on db-101\r\n  "
                            "https://belay.example.com/a/member-0"));
  CHECK(contains(mail.html, "href=\"https://belay.example.com/a/member-1\""));
  CHECK(contains(mail.html, "Acknowledge or resolve all</a>"));
}

TEST_CASE("an incident carried into a bundle without a page of its own links the bundle",
          "[storms]") {
  auto p = bundle_of(2);
  p.bundle[1].answer_url.clear();
  auto mail = email_content(p);
  CHECK(contains(mail.text, "#102 [WARNING] Disk full on db-102\r\n  " + p.answer_url));
}

TEST_CASE(
    "a Slack bundle has Acknowledge all and Resolve all carrying the bundle's token",
    "[storms]") {
  auto p = bundle_of(4, 4);
  auto body = slack_body(p);
  CHECK(contains(body, "\"text\":\"Acknowledge all\""));
  CHECK(contains(body, "\"text\":\"Resolve all\""));
  CHECK(contains(body, "\"value\":\"" + p.answer_token + "\""));
  CHECK(contains(body, "4 incidents need you (4 critical)"));
  rapidjson::Document doc;
  CHECK_FALSE(parse_json(doc, body, "body").has_value());
}

TEST_CASE("status updates bundle into one message naming who answered and how",
          "[storms]") {
  auto p = bundle_of(3, 0, "acknowledged");
  for (auto& b : p.bundle) {
    b.incident.acked_by = "alice";
    b.incident.acked_via = "sms";
  }
  CHECK(sms_text(p) ==
        "[belay] 3 incidents acknowledged by alice via sms: #101 Disk full "
        "on db-101; #102 Disk full on db-102; #103 Disk full on db-103");
  CHECK(p.answer_token.empty()); // an update answers nothing
  p.bundle[2].incident.status = "RESOLVED";
  p.bundle[2].incident.resolved_by = "bob";
  p.bundle[2].incident.resolved_via = "link";
  CHECK(sms_text(p) ==
        "[belay] 2 incidents acknowledged by alice via sms: #101 Disk full "
        "on db-101; #102 Disk full on db-102. 1 incident resolved by bob via "
        "link: #103 Disk full on db-103");
}

TEST_CASE("a webhook that bundled would list the incidents", "[storms]") {
  auto body = webhook_body(bundle_of(2));
  CHECK(contains(body, "\"bundle\":77,\"incidents\":[101,102]"));
}
