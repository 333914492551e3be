// Every transport carries the way back (docs/guarantees.md#answering-the-page): the
// answer link, Slack's buttons, the SMS reply line, the call's <Gather>, as the real
// peers receive them.
#include "actors/transport/transport.hpp"
#include "protocol/encoding.hpp"
#include "tests/actors/transport/fixtures.hpp"
#include "tests/support/http_sink.hpp"
#include "tests/support/smtp_sink.hpp"
#include "tests/support/text.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

using namespace std::chrono_literals;
using namespace belay;
using namespace belay::transport;
using namespace belay::transport::testing;
using belay::test::contains;

namespace {

const answer_links links{"https://belay.example/", "links-test-secret"};
constexpr micros paged_at = 1'767'225'600'000'000; // 2026-01-01T00:00:00Z

page linked_page(const std::string& channel, const std::string& target) {
  auto p = sample_page(channel, target);
  delivery_record d;
  d.id = 9001;
  with_answer(p, links, d, paged_at);
  return p;
}

} // namespace

TEST_CASE("webhook: the body carries ackUrl") {
  test::http_sink sink;
  auto p = linked_page("ops-hook", "primary");
  REQUIRE(send(make_channel("ops-hook", "webhook", sink.url("/hook")), p).result ==
          outcome::sent);
  rapidjson::Document json;
  json.Parse(sink.requests().at(0).body.c_str());
  REQUIRE(json.IsObject());
  CHECK(std::string(json["ackUrl"].GetString()) == p.answer_url);
}

TEST_CASE(
    "slack: the message has Acknowledge, Resolve, Escalate and Snooze 1 h buttons valued "
    "with the token") {
  test::http_sink sink;
  auto p = linked_page("ops-slack", "#ops");
  REQUIRE(send(make_channel("ops-slack", "slack", sink.url("/slack")), p).result ==
          outcome::sent);
  rapidjson::Document json;
  json.Parse(sink.requests().at(0).body.c_str());
  REQUIRE(json.IsObject());
  CHECK(std::string(json["channel"].GetString()) == "#ops");
  std::vector<std::string> buttons;
  for (auto& block : json["blocks"].GetArray())
    if (std::string(block["type"].GetString()) == "actions")
      for (auto& b : block["elements"].GetArray()) {
        buttons.push_back(b["action_id"].GetString());
        CHECK(std::string(b["value"].GetString()) == p.answer_token);
      }
  CHECK(buttons == std::vector<std::string>{"belay_ack", "belay_resolve",
                                            "belay_escalate", "belay_snooze_1h"});
  CHECK(contains(json["blocks"][0]["text"]["text"].GetString(), p.answer_url));
}

TEST_CASE("sms: the text ends with the reply line and the link") {
  test::http_sink sink;
  auto p = linked_page("lead-sms", "+15559998888");
  REQUIRE(send(twilio_channel("sms", sink.url("/"), "AC0123", "token"), p).result ==
          outcome::sent);
  auto body = form_fields(sink.requests().at(0).body)["Body"];
  const std::string tail = "\nReply 1 to acknowledge, 2 to resolve\n" + p.answer_url;
  REQUIRE(body.size() > tail.size());
  CHECK(body.substr(body.size() - tail.size()) == tail);
}

TEST_CASE("voice: the call gathers one key and posts it to the voice callback") {
  test::http_sink sink;
  auto p = linked_page("lead-voice", "+15559998888");
  REQUIRE(send(twilio_channel("voice", sink.url("/"), "AC0123", "token"), p).result ==
          outcome::sent);
  auto twiml = form_fields(sink.requests().at(0).body)["Twiml"];
  CHECK(contains(twiml, "<Gather numDigits=\"1\" action=\"" +
                            std::string{"https://belay.example/api/v1/integrations/"
                                        "twilio/voice?t="} +
                            p.answer_token + "\" method=\"POST\">"));
  CHECK(contains(twiml, "Press 1 to acknowledge, 2 to resolve."));
}

TEST_CASE("email: a text and an HTML part, each with the link") {
  test::smtp_sink sink;
  auto c = make_channel("oncall-mail", "email", sink.url());
  c.from = "belay@example.com";
  auto p = linked_page("oncall-mail", "alice@example.com");
  REQUIRE(send(c, p).result == outcome::sent);
  REQUIRE(sink.wait_for(1, 5s));
  auto mail = sink.messages().at(0);
  CHECK(mail.header("Content-Type") ==
        "multipart/alternative; boundary=\"=_belay_answer\"");
  auto body = mail.body();
  CHECK(contains(body, "Content-Type: text/plain; charset=utf-8"));
  CHECK(contains(body, "Acknowledge or resolve it here:\r\n" + p.answer_url + "\r\n"));
  const std::string html_head =
      "Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: "
      "base64\r\n\r\n";
  auto at = body.find(html_head);
  REQUIRE(at != std::string::npos);
  auto end = body.find("--=_belay_answer--", at);
  REQUIRE(end != std::string::npos);
  std::string encoded;
  for (char ch : body.substr(at + html_head.size(), end - at - html_head.size()))
    if (ch != '\r' && ch != '\n')
      encoded += ch;
  // base64url's decoder reads standard base64 once its two letters are swapped back.
  for (auto& ch : encoded)
    ch = ch == '+' ? '-' : ch == '/' ? '_' : ch;
  while (!encoded.empty() && encoded.back() == '=')
    encoded.pop_back();
  auto html = protocol::base64url_decode(encoded);
  REQUIRE(html);
  CHECK(contains(*html, "<a href=\"" + p.answer_url + "\""));
}
