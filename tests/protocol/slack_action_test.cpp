#include "pages.hpp"
#include "parsed_helpers.hpp"
#include "protocol/answer_token.hpp"
#include "protocol/form.hpp"
#include "protocol/slack_action.hpp"
#include "protocol/slack_message.hpp"

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

// The shape of a block_actions payload as Slack's interactivity reference shows it,
// for a press of one of belay's buttons; USER, ACTION_ID and VALUE are filled in.
const std::string payload_template = R"({
  "type": "block_actions",
  "team": {"id": "T3MDE", "domain": "acme"},
  "user": USER,
  "api_app_id": "A0CA5",
  "token": "Shh_its_a_seekrit",
  "container": {"type": "message", "message_ts": "1548261231.000200",
                "channel_id": "C0CA5", "is_ephemeral": false},
  "trigger_id": "12466734323.1395872398",
  "channel": {"id": "C0CA5", "name": "ops"},
  "message": {"type": "message", "text": "[CRITICAL] Disk full"},
  "response_url": "https://hooks.slack.com/actions/T3MDE/1234/abcd",
  "actions": [{"action_id": "ACTION_ID", "block_id": "b1",
               "text": {"type": "plain_text", "text": "Acknowledge"},
               "value": "VALUE", "style": "primary", "type": "button",
               "action_ts": "1548426417.840180"}]
})";

std::string replaced(std::string text, const std::string& placeholder,
                     const std::string& value) {
  return text.replace(text.find(placeholder), placeholder.size(), value);
}

std::string block_actions(
    const std::string& action_id, const std::string& value,
    const std::string& user = R"({"id":"U0CA5","username":"alice","name":"alice"})") {
  return replaced(
      replaced(replaced(payload_template, "USER", user), "ACTION_ID", action_id), "VALUE",
      value);
}

} // namespace

TEST_CASE("a press of belay's Acknowledge button yields the token and who pressed it",
          "[signing]") {
  const slack_action a = value_of(parse_slack_action(block_actions("belay_ack", "tok")));
  CHECK(a.action == answer_action::acknowledge);
  CHECK(a.token == "tok");
  CHECK(a.by == "alice");
  CHECK(a.response_url == "https://hooks.slack.com/actions/T3MDE/1234/abcd");
}

TEST_CASE("a press of belay's Resolve button resolves", "[signing]") {
  const slack_action a =
      value_of(parse_slack_action(block_actions("belay_resolve", "tok")));
  CHECK(a.action == answer_action::resolve);
}

TEST_CASE("a press of belay's Escalate or Snooze 1 h button says so", "[signing]") {
  CHECK(value_of(parse_slack_action(block_actions("belay_escalate", "tok"))).verb ==
        slack_verb::escalate);
  CHECK(value_of(parse_slack_action(block_actions("belay_snooze_1h", "tok"))).verb ==
        slack_verb::snooze);
  CHECK(value_of(parse_slack_action(block_actions("belay_ack", "tok"))).verb ==
        slack_verb::answer);
}

TEST_CASE("the Slack user is named by username, else name, else id", "[signing]") {
  auto by = [](const std::string& user) {
    return value_of(parse_slack_action(block_actions("belay_ack", "tok", user))).by;
  };
  CHECK(by(R"({"id":"U1","username":"alice","name":"Alice Ng"})") == "alice");
  CHECK(by(R"({"id":"U1","name":"alice.ng"})") == "alice.ng");
  CHECK(by(R"({"id":"U1","username":"","name":"alice.ng"})") == "alice.ng");
  CHECK(by(R"({"id":"U1"})") == "U1");
  CHECK(error_of(parse_slack_action(block_actions("belay_ack", "tok", "{}"))).code ==
        "missing_field");
}

TEST_CASE("Slack payloads that are not a press of belay's buttons are refused",
          "[signing]") {
  CHECK(error_of(parse_slack_action("payload")).code == "invalid_json");
  CHECK(error_of(parse_slack_action(block_actions("other_app", "tok"))).field ==
        "payload.actions[0].action_id");
  CHECK(error_of(parse_slack_action(block_actions("belay_ack", ""))).field ==
        "payload.actions[0].value");
  CHECK(error_of(parse_slack_action(R"({"type":"view_submission","user":{"id":"U1"}})"))
            .field == "payload.type");
  CHECK(error_of(parse_slack_action(R"({"type":"block_actions","user":{"id":"U1"}})"))
            .field == "payload.actions");
  CHECK(error_of(parse_slack_action(
                     R"({"type":"block_actions","user":{"id":"U1"},"actions":[]})"))
            .field == "payload.actions");
  CHECK(error_of(parse_slack_action(
                     R"({"type":"block_actions","actions":[{"action_id":"belay_ack",
                         "value":"tok"}]})"))
            .field == "payload.user");
}

TEST_CASE("a rendered Slack button, pressed, leads back to its delivery", "[signing]") {
  // The pure half of the round trip: render the page's buttons, take a button as Slack
  // would echo it in a payload, inside the form Slack posts, and verify its token.
  belay::incident_record incident;
  incident.id = 42;
  incident.title = "Disk full";
  const std::string secret = "belay-test-secret";
  const std::string token = make_answer_token(secret, 7, 2'000'000'000'000'000);
  auto message = json(slack_body(answerable(incident, token, "https://belay.test/a/x")));
  const auto& button = message["blocks"][1]["elements"][1];
  const std::string body =
      "payload=" +
      std::string{"%7B%22type%22%3A%22block_actions%22%2C%22user%22%3A%7B%22"
                  "username%22%3A%22alice%22%7D%2C%22actions%22%3A%5B%7B%22"
                  "action_id%22%3A%22"} +
      str(button["action_id"]) + "%22%2C%22value%22%3A%22" + str(button["value"]) +
      "%22%7D%5D%7D";
  const auto payload = form_value(value_of(parse_form(body)), "payload");
  REQUIRE(payload);
  const slack_action a = value_of(parse_slack_action(*payload));
  CHECK(a.action == answer_action::resolve);
  CHECK(a.by == "alice");
  CHECK(verify_answer_token(secret, a.token, 1'000'000'000'000'000) == 7);
}
