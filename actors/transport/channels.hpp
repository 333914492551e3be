// The transports behind send(), one per channel type, and the texts they render.
// Internal to actors/transport; the renderers are declared here for the tests.
#pragma once

#include "actors/transport/transport.hpp"

#include <ctime>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace belay::transport::detail {

send_result send_webhook(const channel_config& channel, const page& p);
send_result send_slack(const channel_config& channel, const page& p);
send_result send_email(const channel_config& channel, const page& p);
send_result send_sms(const channel_config& channel, const page& p);
send_result send_voice(const channel_config& channel, const page& p);
send_result send_log(const channel_config& channel, const page& p);

std::string slack_body(const page& p);
// The complete RFC 5322 message (CRLF line endings) dated `now`.
std::string email_message(const channel_config& channel, const page& p, std::time_t now);
std::string sms_text(const page& p);
std::string voice_twiml(const page& p);
std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields);

// Shared wording: "CRITICAL", and "step 2" (humans count steps from 1).
std::string upper_severity(const page& p);
std::string step_label(const page& p);
// `text` on one line: CR, LF and other control characters become spaces.
std::string one_line(std::string_view text);
// &, < and > as entities (Slack reads them as markup: links, mentions); with `quotes`
// also " and ' (XML attributes, TwiML).
std::string escape_markup(std::string_view text, bool quotes = false);
// At most `max_bytes` of `text`, cut on a UTF-8 character boundary.
std::string clip(std::string_view text, size_t max_bytes);

inline send_result permanent(std::string error) {
  send_result result;
  result.result = outcome::permanent;
  result.error = std::move(error);
  return result;
}

} // namespace belay::transport::detail
