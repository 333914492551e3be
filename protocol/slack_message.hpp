// The message a Slack incoming webhook posts for a page
// (docs/guarantees.md#answering-the-page).
#pragma once

#include "protocol/page.hpp"

#include <string>

namespace belay::protocol {

// Incoming-webhook JSON: "channel" (p.target, when set: honoured by legacy incoming
// webhooks; app webhooks post to their own channel) and "text" (the notification's
// fallback). A page adds "blocks": the incident in a mrkdwn section and, answerable,
// a link to the answer page and the Acknowledge and Resolve buttons its status allows,
// valued with the token. Every text belay did not write is escaped for mrkdwn.
std::string slack_body(const page& p);

} // namespace belay::protocol
