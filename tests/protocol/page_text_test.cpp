#include "parsed_helpers.hpp"
#include "protocol/page_text.hpp"
#include "protocol/twiml.hpp"

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

const std::string url = "https://belay.example.com/a/TOKEN-_42";

belay::incident_record incident_in(const std::string& status) {
  belay::incident_record incident;
  incident.id = 42;
  incident.title = "Disk full on db-1";
  incident.severity = "critical";
  incident.status = status;
  return incident;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() &&
         text.compare(text.size() - end.size(), end.size(), end) == 0;
}

} // namespace

TEST_CASE("links are the public URL with /a/<token> or the voice callback", "[signing]") {
  CHECK(answer_url("https://belay.example.com", "T") == "https://belay.example.com/a/T");
  CHECK(answer_url("https://belay.example.com/", "T") == "https://belay.example.com/a/T");
  CHECK(answer_url("http://127.0.0.1:8080/belay//", "T") ==
        "http://127.0.0.1:8080/belay/a/T");
  CHECK(twilio_voice_url("https://belay.example.com/", "T") ==
        "https://belay.example.com/api/v1/integrations/twilio/voice?t=T");
}

TEST_CASE("an SMS page ends with how to answer and the link", "[signing]") {
  const std::string sms = render_sms_page(incident_in("OPEN"), url);
  CHECK(sms == "[belay] CRITICAL Disk full on db-1 (incident #42)\n"
               "Reply 1 to acknowledge, 2 to resolve\n" +
                   url);
}

TEST_CASE("an SMS page keeps a long or multi-line title short and on one line",
          "[signing]") {
  belay::incident_record incident = incident_in("OPEN");
  incident.title = "line one\nline two " + std::string(500, 'x');
  const std::string sms = render_sms_page(incident, url);
  CHECK(contains(sms, "line one line two xxx"));
  CHECK(contains(sms, "x... (incident #42)"));
  CHECK(sms.size() < 300);
  CHECK(ends_with(sms, "Reply 1 to acknowledge, 2 to resolve\n" + url));
}

TEST_CASE("SMS replies say what happened", "[signing]") {
  CHECK(sms_outcome_text(answer_outcome::acknowledged, incident_in("ACKNOWLEDGED"),
                         "alice") == "Acknowledged by alice: #42 Disk full on db-1");
  CHECK(sms_incident_not_paged(123) == "Incident #123 did not page this number.");
  CHECK(render_twiml_message(sms_nothing_to_answer) ==
        "<Response><Message>No open incident paged this number.</Message></Response>");
}

TEST_CASE("an email page carries the link in its text and HTML parts", "[signing]") {
  const email_parts email = render_email_page(incident_in("OPEN"), url);
  CHECK(email.subject == "[belay] CRITICAL Disk full on db-1 (incident #42)");
  CHECK(contains(email.text, "Incident #42: Disk full on db-1\r\n"));
  CHECK(contains(email.text, "\r\n" + url + "\r\n"));
  CHECK_FALSE(contains(email.text, "\n\n")); // every line break is CRLF
  CHECK(email.html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(contains(email.html, "<a href=\"" + url + "\""));
}

TEST_CASE("an email page escapes the title in HTML and keeps the subject on one line",
          "[signing]") {
  belay::incident_record incident = incident_in("OPEN");
  incident.title = "<b>\"x\"</b>\r\nBcc: evil@example.com";
  const email_parts email = render_email_page(incident, url);
  CHECK(email.subject.find_first_of("\r\n") == std::string::npos);
  CHECK_FALSE(contains(email.html, "<b>\"x\"</b>"));
  CHECK(contains(email.html, "&lt;b&gt;&quot;x&quot;&lt;/b&gt;"));
  CHECK_FALSE(contains(email.text, "\r\nBcc:"));
}

TEST_CASE("a Slack page has Acknowledge and Resolve buttons carrying the token",
          "[signing]") {
  auto message = json(render_slack_page(incident_in("OPEN"), "TOKEN-_42", url));
  CHECK(str(message["text"]) == "[CRITICAL] Disk full on db-1 (incident #42)");
  const auto& blocks = message["blocks"];
  REQUIRE(blocks.Size() == 2);
  CHECK(str(blocks[0]["type"]) == "section");
  CHECK(str(blocks[0]["text"]["type"]) == "mrkdwn");
  CHECK(contains(str(blocks[0]["text"]["text"]), "<" + url + "|"));
  CHECK(str(blocks[1]["type"]) == "actions");
  const auto& buttons = blocks[1]["elements"];
  REQUIRE(buttons.Size() == 2);
  CHECK(str(buttons[0]["type"]) == "button");
  CHECK(str(buttons[0]["action_id"]) == "belay_ack");
  CHECK(str(buttons[0]["text"]["text"]) == "Acknowledge");
  CHECK(str(buttons[0]["value"]) == "TOKEN-_42");
  CHECK(str(buttons[1]["action_id"]) == "belay_resolve");
  CHECK(str(buttons[1]["text"]["text"]) == "Resolve");
  CHECK(str(buttons[1]["value"]) == "TOKEN-_42");
}

TEST_CASE("a Slack page offers only the buttons the status allows", "[signing]") {
  auto acked = json(render_slack_page(incident_in("ACKNOWLEDGED"), "T", url));
  REQUIRE(acked["blocks"].Size() == 2);
  REQUIRE(acked["blocks"][1]["elements"].Size() == 1);
  CHECK(str(acked["blocks"][1]["elements"][0]["action_id"]) == "belay_resolve");
  auto resolved = json(render_slack_page(incident_in("RESOLVED"), "T", url));
  CHECK(resolved["blocks"].Size() == 1);
}

TEST_CASE("a Slack page escapes what Slack would read as markup", "[signing]") {
  belay::incident_record incident = incident_in("OPEN");
  incident.title = "<!channel> <@U123> & co";
  auto message = json(render_slack_page(incident, "T", url));
  const std::string section = str(message["blocks"][0]["text"]["text"]);
  CHECK(contains(section, "&lt;!channel&gt; &lt;@U123&gt; &amp; co"));
  CHECK_FALSE(contains(section, "<!channel>"));
  CHECK(str(message["text"]) == "[CRITICAL] &lt;!channel&gt; &lt;@U123&gt; &amp; co "
                                "(incident #42)");
}

TEST_CASE("a Slack page can be written into the caller's own message", "[signing]") {
  rapidjson::StringBuffer buffer;
  json_writer w(buffer);
  w.StartObject();
  w.Key("channel");
  w.String("#ops");
  write_slack_page(w, incident_in("OPEN"), "T", url);
  w.EndObject();
  auto message = json(to_string(buffer));
  CHECK(str(message["channel"]) == "#ops");
  CHECK(message["blocks"].Size() == 2);
}

TEST_CASE("TwiML replies escape their text", "[signing]") {
  CHECK(render_twiml_message("Acknowledged by <alice> & \"bob\"") ==
        "<Response><Message>Acknowledged by &lt;alice&gt; &amp; &quot;bob&quot;"
        "</Message></Response>");
  CHECK(render_twiml_say("Resolved by alice") ==
        "<Response><Say>Resolved by alice</Say></Response>");
}

TEST_CASE("a call gathers one key and posts it to the voice callback", "[signing]") {
  belay::incident_record incident = incident_in("OPEN");
  incident.title = "Disk <full> & \"hot\"\x01";
  const std::string twiml = render_voice_gather(
      incident, "https://belay.example.com/api/v1/integrations/twilio/voice?t=T&x=1");
  CHECK(twiml.rfind("<Response><Gather numDigits=\"1\" "
                    "action=\"https://belay.example.com/api/v1/integrations/twilio/"
                    "voice?t=T&amp;x=1\" method=\"POST\"><Say>",
                    0) == 0);
  CHECK(contains(twiml, "Disk &lt;full&gt; &amp; &quot;hot&quot; . Incident 42."));
  CHECK(contains(twiml, "Press 1 to acknowledge, 2 to resolve.</Say></Gather>"));
  CHECK(ends_with(twiml, "</Response>"));
}
