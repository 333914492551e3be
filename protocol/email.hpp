// The email a page sends (docs/guarantees.md#answering-the-page): its texts, and the
// whole RFC 5322 message that the SMTP transport hands to the server as it is.
#pragma once

#include "protocol/page.hpp"

#include <ctime>
#include <string>
#include <string_view>

namespace belay::protocol {

struct email_parts {
  std::string subject; // one line, UTF-8: email_message() encodes it for the header
  std::string text;    // text/plain, CRLF line endings
  std::string html;    // text/html, a complete document; empty unless answerable
};
// Answerable: the incident and the link, in a text and an HTML part. Plain: the
// incident, its ladder and attempt, and that acknowledging it stops the escalation.
// Update: status_update_text() as the subject and first line, then the incident.
email_parts email_content(const page& p);

// The Message-ID of the email for this page (without angle brackets): the
// idempotency key with ':' replaced by '.', "@belay" appended. Characters that are
// not allowed in a Message-ID (such as the '@' of the target address) are written
// as "=XX" so that distinct keys keep distinct ids.
std::string email_message_id(const page& p);

// The complete message from `from` to p.target, dated `now`: email_content() as a
// text/plain body, or as multipart/alternative when it has an HTML part.
std::string email_message(const page& p, std::string_view from, std::time_t now);

} // namespace belay::protocol
