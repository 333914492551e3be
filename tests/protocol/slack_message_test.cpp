#include "pages.hpp"
#include "parsed_helpers.hpp"
#include "protocol/slack_message.hpp"

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

const std::string url = "https://belay.example.com/a/TOKEN-_42";

} // namespace

TEST_CASE("a Slack page has Acknowledge and Resolve buttons carrying the token",
          "[signing]") {
  auto message = json(slack_body(answerable(incident_in("OPEN"), "TOKEN-_42", url)));
  CHECK(str(message["text"]) == "[CRITICAL] Disk full on db-1 (incident #42)");
  const auto& blocks = message["blocks"];
  REQUIRE(blocks.Size() == 2);
  CHECK(str(blocks[0]["type"]) == "section");
  CHECK(str(blocks[0]["text"]["type"]) == "mrkdwn");
  CHECK(contains(str(blocks[0]["text"]["text"]), "<" + url + "|"));
  CHECK(str(blocks[1]["type"]) == "actions");
  const auto& buttons = blocks[1]["elements"];
  REQUIRE(buttons.Size() == 4);
  CHECK(str(buttons[0]["type"]) == "button");
  CHECK(str(buttons[0]["action_id"]) == "belay_ack");
  CHECK(str(buttons[0]["text"]["text"]) == "Acknowledge");
  CHECK(str(buttons[0]["value"]) == "TOKEN-_42");
  CHECK(str(buttons[1]["action_id"]) == "belay_resolve");
  CHECK(str(buttons[1]["text"]["text"]) == "Resolve");
  CHECK(str(buttons[1]["value"]) == "TOKEN-_42");
  CHECK(str(buttons[2]["action_id"]) == "belay_escalate");
  CHECK(str(buttons[2]["text"]["text"]) == "Escalate");
  CHECK(str(buttons[3]["action_id"]) == "belay_snooze_1h");
  CHECK(str(buttons[3]["text"]["text"]) == "Snooze 1 h");
  CHECK(str(buttons[3]["value"]) == "TOKEN-_42");
}

TEST_CASE("a Slack page offers only the buttons the status allows", "[signing]") {
  auto acked = json(slack_body(answerable(incident_in("ACKNOWLEDGED"), "T", url)));
  REQUIRE(acked["blocks"].Size() == 2);
  REQUIRE(acked["blocks"][1]["elements"].Size() == 3); // Resolve, Escalate, Snooze 1 h
  CHECK(str(acked["blocks"][1]["elements"][0]["action_id"]) == "belay_resolve");
  CHECK(str(acked["blocks"][1]["elements"][1]["action_id"]) == "belay_escalate");
  auto exhausted = json(slack_body(answerable(incident_in("EXHAUSTED"), "T", url)));
  CHECK(exhausted["blocks"][1]["elements"].Size() == 2); // nothing left to escalate to
  auto resolved = json(slack_body(answerable(incident_in("RESOLVED"), "T", url)));
  CHECK(resolved["blocks"].Size() == 1);
}

TEST_CASE("a Slack page escapes what Slack would read as markup", "[signing]") {
  belay::incident_record incident = incident_in("OPEN");
  incident.title = "<!channel> <@U123> & co";
  auto message = json(slack_body(answerable(incident, "T", url)));
  const std::string section = str(message["blocks"][0]["text"]["text"]);
  CHECK(contains(section, "&lt;!channel&gt; &lt;@U123&gt; &amp; co"));
  CHECK_FALSE(contains(section, "<!channel>"));
  CHECK(str(message["text"]) == "[CRITICAL] &lt;!channel&gt; &lt;@U123&gt; &amp; co "
                                "(incident #42)");
}

TEST_CASE("a Slack page names the channel it goes to", "[signing]") {
  auto p = answerable(incident_in("OPEN"), "T", url);
  p.target = "#ops";
  auto message = json(slack_body(p));
  CHECK(str(message["channel"]) == "#ops");
  CHECK(message["blocks"].Size() == 2);
}

TEST_CASE("a Slack status update is one escaped line of text, without blocks") {
  auto incident = incident_in("ACKNOWLEDGED");
  incident.acked_by = "<@U123>";
  auto p = update_of(incident, "acknowledged");
  p.target = "#ops";
  auto message = json(slack_body(p));
  CHECK(str(message["channel"]) == "#ops");
  CHECK(str(message["text"]) ==
        "[belay] Acknowledged by &lt;@U123&gt;: #42 Disk full on db-1");
  CHECK_FALSE(message.HasMember("blocks"));
}
