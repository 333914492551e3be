// SMS texts (docs/guarantees.md#answering-the-page): the page a phone receives, and
// belay's replies to an inbound SMS answer.
#pragma once

#include "protocol/page.hpp"
#include "protocol/reply_command.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace belay::protocol {

// The text of the SMS for `p`:
//   answerable: "[belay] CRITICAL Disk full on db-1 (incident #42)\nReply 1 to
//               acknowledge, 2 to resolve\n<answer url>"
//   plain:      "[belay] CRITICAL Disk full on db-1 - incident 42, step 2"
//   update:     status_update_text().
std::string sms_text(const page& p);

// The reply to an SMS answer: "Acknowledged by alice: #42 Disk full on db-1".
std::string sms_outcome_text(answer_outcome outcome, const incident_record& incident,
                             std::string_view by);
// The replies when a reply names nothing that paged the sender. The second does not
// say whether incident `id` exists: the sender may belong to another org.
inline constexpr std::string_view sms_nothing_to_answer =
    "No open incident paged this number.";
std::string sms_incident_not_paged(int64_t id);
// The reply to a message Twilio delivered before (same MessageSid): a replay, or Twilio
// sending again a reply belay already acted on.
inline constexpr std::string_view sms_already_answered =
    "This reply was already answered; nothing more was done.";

} // namespace belay::protocol
