// Text measurements and the plain-text rules shared by the parsers and every renderer.
// Limits count characters (Unicode code points), not bytes, so "255 chars" means the
// same in every language; the parsers only ever see valid UTF-8 (RapidJSON validates
// it), and nothing here splits a character.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace belay::protocol {

std::size_t utf8_length(std::string_view s);
// The longest prefix of at most `max_chars` characters, never splitting one.
std::string utf8_prefix(std::string_view s, std::size_t max_chars);
// Empty or only ASCII whitespace.
bool is_blank(std::string_view s);
bool has_whitespace_or_control(std::string_view s);

// C0 controls and DEL, one byte each in UTF-8.
inline bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}
// `text` on one line: CR, LF and the other control characters become spaces. For
// titles in SMS texts, subjects, spoken prompts and log lines.
std::string one_line(std::string_view text);
// For a terminal, which must not obey escape sequences in text from alerts: C0
// controls, DEL and C1 controls (U+0080..U+009F) become '?'.
std::string printable(std::string_view text);

// At most `max_chars` characters of `text`, `ellipsis` appended when it was cut. Pages
// keep "..." rather than "…", which would switch an SMS to UCS-2 and halve its length.
std::string clip(std::string_view text, std::size_t max_chars,
                 std::string_view ellipsis = "...");
// For echoing a client's value in a message without echoing a whole payload.
std::string abbreviate(std::string_view s, std::size_t max_chars = 64);

// 0.1 → "0.1", 30 → "30": durations in messages read as they were written.
std::string decimal_text(double value);

// "orgs[0]" + "name" → "orgs[0].name"; "" + "name" → "name".
std::string member_path(std::string_view parent, std::string_view name);
// "alerts" + 3 → "alerts[3]".
std::string element_path(std::string_view parent, std::size_t index);

} // namespace belay::protocol
