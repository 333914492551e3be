// The parts of an Internet message (RFC 5322, MIME) that email_message() frames its
// texts with. CRLF line endings throughout.
#pragma once

#include <ctime>
#include <string>
#include <string_view>

namespace belay::protocol {

// "Thu, 01 Jan 2026 00:00:00 +0000".
std::string rfc5322_date(std::time_t t);

// A header value: as it is when it is plain ASCII; otherwise the run from the first to
// the last word that is not becomes RFC 2047 encoded words (UTF-8, base64) of at most
// 45 bytes each, folded onto continuation lines, and the ASCII words around it stay
// readable. A UTF-8 character is never split.
std::string header_text(std::string_view text);

// A body as MIME sends it: its Content-Transfer-Encoding and the encoded text.
struct mime_body {
  std::string transfer_encoding; // "8bit" or "base64"
  std::string text;
};
// 8bit while every line fits SMTP's 998 octets, else base64 (a long title could make
// a line longer).
mime_body text_body(std::string_view text);
// base64 in lines of 76 characters.
mime_body base64_body(std::string_view bytes);

} // namespace belay::protocol
