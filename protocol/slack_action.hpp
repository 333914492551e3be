// Slack's interactivity requests (docs/http.md#answering): a person pressed the
// Acknowledge or Resolve button belay put under a page. The body is a form with one
// field, `payload`, holding a block_actions JSON document; verify the request's
// signature (inbound_signatures.hpp) before parsing it.
#pragma once

#include "protocol/error.hpp"
#include "protocol/reply_command.hpp"

#include <string>
#include <string_view>

namespace belay::protocol {

// The buttons' action_id; their value is the delivery's answer token.
inline constexpr std::string_view slack_ack_action_id = "belay_ack";
inline constexpr std::string_view slack_resolve_action_id = "belay_resolve";
// Working the incident from the page (docs/http.md#working-an-incident): on a page of one
// incident only, never a bundle's.
inline constexpr std::string_view slack_escalate_action_id = "belay_escalate";
inline constexpr std::string_view slack_snooze_action_id = "belay_snooze_1h";

// What a button does: answer (acknowledge or resolve, `action`), escalate now, or
// acknowledge if need be and snooze for an hour.
enum class slack_verb { answer, escalate, snooze };

struct slack_action {
  slack_verb verb = slack_verb::answer;
  answer_action action = answer_action::acknowledge;
  std::string token; // to be checked with verify_answer_token
  std::string by;    // user.username, else user.name, else user.id
  // Where Slack takes follow-up messages for this click (empty if absent); an outbound
  // target like any other.
  std::string response_url;
};

// The first action of a block_actions payload. 400 errors for anything else: invalid
// JSON, another payload type, no actions, an action_id that is not one of belay's, no
// value, no user.
parsed<slack_action> parse_slack_action(std::string_view payload_json);

} // namespace belay::protocol
