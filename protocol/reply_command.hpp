// What a person answered to a page: an SMS reply, a key pressed during a call, or a
// button on the answer page (docs/http.md#answering).
#pragma once

#include "protocol/model.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace belay::protocol {

enum class answer_action { acknowledge, resolve };

struct reply_command {
  answer_action action = answer_action::acknowledge;
  // The incident the reply names ("ack 123"); nullopt means the most recent
  // non-resolved incident that paged the sender.
  std::optional<int64_t> incident_id;

  friend bool operator==(const reply_command& a, const reply_command& b) {
    return a.action == b.action && a.incident_id == b.incident_id;
  }
};

// "1", "ack" or "acknowledge" acknowledges; "2" or "resolve" resolves; either may be
// followed by an incident id ("ack 123", "resolve #123"). Case and the whitespace
// around and between the words do not matter. Anything else, an id of 0 or one too
// large for int64 included, is not understood: nullopt, answered with
// sms_reply_help.
std::optional<reply_command> parse_sms_reply(std::string_view body);

// The reply to a message that was not understood.
inline constexpr std::string_view sms_reply_help =
    "Not understood. Reply 1 to acknowledge, 2 to resolve, or \"ack 123\" / "
    "\"resolve 123\" for incident 123.";

// Twilio's Digits from the call's <Gather>: "1" acknowledges, "2" resolves, anything
// else (no key, another key) is nullopt.
std::optional<answer_action> parse_voice_digits(std::string_view digits);

// The answer page's form field `action`: exactly "ack" or "resolve".
std::optional<answer_action> parse_answer_action(std::string_view action);

// "ack" and "resolve", the spelling of the answer page's form and Slack's buttons.
std::string_view answer_action_name(answer_action action);

// Which answers make sense in `status`: acknowledge while OPEN or EXHAUSTED, resolve
// while OPEN, EXHAUSTED or ACKNOWLEDGED. The answer page and Slack's buttons offer only
// these (the API still accepts the others and answers them as
// docs/architecture.md#incident-lifecycle says).
bool can_acknowledge(std::string_view status);
bool can_resolve(std::string_view status);

// What came of an answer, as the answer page, the SMS reply and the call say it.
enum class answer_outcome {
  acknowledged,
  resolved,
  already_acknowledged,
  already_resolved, // acknowledging a resolved incident lands here too
  not_understood,
  unavailable, // belay could not record it (a timeout, the database away): try again
};

// "Acknowledged by alice", "Already resolved", …: one wording for every way of
// answering. `incident` is as it is after the answer; `by` who answered.
std::string answer_outcome_text(answer_outcome outcome, const incident_record& incident,
                                std::string_view by);

// What an answer to every incident of a bundle came to: "Acknowledged 12 of 14
// incidents by alice (2 were already answered)", or that belay could not record some.
struct answer_all_tally {
  size_t changed = 0, already = 0, unavailable = 0, total = 0;
};
std::string answer_all_text(answer_action action, const answer_all_tally& tally,
                            std::string_view by);

} // namespace belay::protocol
