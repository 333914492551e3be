// The texts every transport carries so that a page can be answered where it is read
// (DESIGN.md section 11): the link to the answer page, SMS and email texts, Slack's
// buttons. Each takes the incident as recorded and the delivery's link or token.
#pragma once

#include "protocol/json_writer.hpp"
#include "protocol/model.hpp"
#include "protocol/reply_command.hpp"

#include <string>
#include <string_view>

namespace belay::protocol {

// <public url>/a/<token>, a trailing '/' of the public URL not doubled.
std::string answer_url(std::string_view public_url, std::string_view token);
// <public url>/api/v1/integrations/twilio/voice?t=<token>: where the call's <Gather>
// posts, and the URL its X-Twilio-Signature covers.
std::string twilio_voice_url(std::string_view public_url, std::string_view token);

// "[belay] CRITICAL Disk full on db-1 (incident #42)\nReply 1 to acknowledge, 2 to
// resolve\n<answer url>".
std::string render_sms_page(const incident_record& incident, std::string_view answer_url);

// The reply to an SMS answer: "Acknowledged by alice: #42 Disk full on db-1".
std::string sms_outcome_text(answer_outcome outcome, const incident_record& incident,
                             std::string_view by);
// The replies when a reply names nothing that paged the sender. The second does not
// say whether incident `id` exists: the sender may belong to another org.
inline constexpr std::string_view sms_nothing_to_answer =
    "No open incident paged this number.";
std::string sms_incident_not_paged(int64_t id);

// The one message a contact with statusUpdates gets when an incident it was paged for
// is acknowledged or resolved (`update`: "acknowledged" or "resolved"), saying by whom
// and how: "[belay] Acknowledged by alice via sms: #42 Disk full on db-1".
std::string render_status_update(const incident_record& incident,
                                 std::string_view update);

struct email_parts {
  std::string subject; // one line, UTF-8: the transport encodes it for the header
  std::string text;    // text/plain
  std::string html;    // text/html, a complete document
};
// Both bodies have CRLF line endings (MIME's canonical form). A title may make a line
// longer than SMTP's 998 octets: send the parts quoted-printable or base64.
email_parts render_email_page(const incident_record& incident,
                              std::string_view answer_url);

// Writes the members "text" (the notification's fallback) and "blocks" (the incident
// and, where they apply to its status, Acknowledge and Resolve buttons whose value is
// `token`) into an object the caller has started, so it can add its own ("channel").
void write_slack_page(json_writer& w, const incident_record& incident,
                      std::string_view token, std::string_view answer_url);
// The same as a whole message: {"text":…,"blocks":[…]}.
std::string render_slack_page(const incident_record& incident, std::string_view token,
                              std::string_view answer_url);

} // namespace belay::protocol
