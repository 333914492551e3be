#include "protocol/slack_action.hpp"

#include "protocol/field_reader.hpp"
#include "protocol/json_document.hpp"
#include "protocol/limits.hpp"
#include "protocol/text.hpp"

namespace belay::protocol {

namespace {

// Tokens are 64 characters; the margin keeps a future format possible.
constexpr std::size_t max_token_chars = 256;
constexpr std::size_t max_url_chars = 2048;

std::string user_name(field_reader& user) {
  for (const char* name : {"username", "name", "id"})
    if (auto text = user.optional_string(name, max_name_chars, blank::allowed);
        text && !is_blank(*text))
      return *text;
  if (user.ok())
    user.fail("missing_field", user.path_of("username"),
              "'" + user.path() + "' has no username, name or id");
  return {};
}

} // namespace

parsed<slack_action> parse_slack_action(std::string_view payload_json) {
  rapidjson::Document doc;
  if (auto e = parse_json(doc, payload_json, "payload"))
    return *e;
  std::optional<error> first_error;
  field_reader payload(doc, "payload", first_error);
  const std::string type = payload.required_string("type", max_name_chars);
  if (payload.ok() && type != "block_actions")
    payload.fail("invalid_value", payload.path_of("type"),
                 "'payload.type' must be block_actions, not \"" + abbreviate(type) +
                     "\"");
  slack_action out;
  const rapidjson::Value* user = payload.required_object("user");
  if (user) {
    field_reader user_reader(*user, payload.path_of("user"), first_error);
    out.by = user_name(user_reader);
  }
  out.response_url = payload.optional_string("response_url", max_url_chars).value_or("");
  const rapidjson::Value* actions = payload.required_array("actions");
  if (actions && actions->Empty())
    payload.fail("invalid_value", payload.path_of("actions"),
                 "'payload.actions' must hold the pressed button");
  if (payload.ok() && actions) {
    field_reader action((*actions)[0], "payload.actions[0]", first_error);
    const std::string id = action.required_choice(
        "action_id", {slack_ack_action_id, slack_resolve_action_id,
                      slack_escalate_action_id, slack_snooze_action_id});
    out.action = id == slack_resolve_action_id ? answer_action::resolve
                                               : answer_action::acknowledge;
    out.verb = id == slack_escalate_action_id ? slack_verb::escalate
               : id == slack_snooze_action_id ? slack_verb::snooze
                                              : slack_verb::answer;
    out.token = action.required_string("value", max_token_chars);
  }
  if (first_error)
    return *first_error;
  return out;
}

} // namespace belay::protocol
