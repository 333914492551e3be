#include "protocol/reply_command.hpp"

#include <limits>

namespace belay::protocol {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && is_space(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && is_space(text.back()))
    text.remove_suffix(1);
  return text;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char x =
        a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    if (x != b[i])
      return false;
  }
  return true;
}

std::optional<answer_action> action_word(std::string_view word) {
  if (word == "1" || equals_ignoring_case(word, "ack") ||
      equals_ignoring_case(word, "acknowledge"))
    return answer_action::acknowledge;
  if (word == "2" || equals_ignoring_case(word, "resolve"))
    return answer_action::resolve;
  return std::nullopt;
}

// A positive decimal id that fits int64; '#' in front is allowed because the page
// texts say "incident #123".
std::optional<int64_t> incident_id(std::string_view text) {
  if (!text.empty() && text.front() == '#')
    text.remove_prefix(1);
  if (text.empty())
    return std::nullopt;
  int64_t id = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    const int digit = c - '0';
    if (id > (std::numeric_limits<int64_t>::max() - digit) / 10)
      return std::nullopt;
    id = id * 10 + digit;
  }
  if (id == 0)
    return std::nullopt;
  return id;
}

} // namespace

std::optional<reply_command> parse_sms_reply(std::string_view body) {
  body = trimmed(body);
  std::size_t word_end = 0;
  while (word_end < body.size() && !is_space(body[word_end]))
    ++word_end;
  const auto action = action_word(body.substr(0, word_end));
  if (!action)
    return std::nullopt;
  reply_command command;
  command.action = *action;
  const std::string_view rest = trimmed(body.substr(word_end));
  if (!rest.empty()) {
    command.incident_id = incident_id(rest);
    if (!command.incident_id)
      return std::nullopt;
  }
  return command;
}

std::optional<answer_action> parse_voice_digits(std::string_view digits) {
  digits = trimmed(digits);
  if (digits == "1")
    return answer_action::acknowledge;
  if (digits == "2")
    return answer_action::resolve;
  return std::nullopt;
}

std::optional<answer_action> parse_answer_action(std::string_view action) {
  if (action == "ack")
    return answer_action::acknowledge;
  if (action == "resolve")
    return answer_action::resolve;
  return std::nullopt;
}

std::string_view answer_action_name(answer_action action) {
  return action == answer_action::acknowledge ? "ack" : "resolve";
}

bool can_acknowledge(std::string_view status) {
  return status == status_open || status == status_exhausted;
}

bool can_resolve(std::string_view status) {
  return can_acknowledge(status) || status == status_acknowledged;
}

std::string answer_outcome_text(answer_outcome outcome, const incident_record& incident,
                                std::string_view by) {
  switch (outcome) {
  case answer_outcome::acknowledged:
    return "Acknowledged by " + std::string{by};
  case answer_outcome::resolved:
    return "Resolved by " + std::string{by};
  case answer_outcome::already_acknowledged:
    return incident.acked_by.empty() ? "Already acknowledged"
                                     : "Already acknowledged by " + incident.acked_by;
  case answer_outcome::already_resolved:
    return "Already resolved";
  case answer_outcome::not_understood:
    return "Not understood: choose acknowledge or resolve";
  case answer_outcome::unavailable:
    break;
  }
  return "Not recorded: belay could not record the answer just now. Try again in a "
         "minute";
}

std::string answer_all_text(answer_action action, const answer_all_tally& t,
                            std::string_view by) {
  std::string text = action == answer_action::acknowledge ? "Acknowledged " : "Resolved ";
  text += std::to_string(t.changed) + " of " + std::to_string(t.total) +
          (t.total == 1 ? " incident" : " incidents");
  if (!by.empty())
    text += " by " + std::string{by};
  if (t.already > 0)
    text += " (" + std::to_string(t.already) + " already answered)";
  if (t.unavailable > 0)
    text += ". " + std::to_string(t.unavailable) +
            " could not be recorded now: try again in a moment";
  return text + ".";
}

} // namespace belay::protocol
