// Text measurements shared by the parsers. Limits in the HTTP contract count
// characters (Unicode code points), not bytes, so "255 chars" means the same in every
// language; the parsers only ever see valid UTF-8 (RapidJSON validates it).
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
// For echoing a client's value in a message without echoing a whole payload.
std::string abbreviate(std::string_view s, std::size_t max_chars = 64);

// 0.1 → "0.1", 30 → "30": durations in messages read as they were written.
std::string decimal_text(double value);

// "orgs[0]" + "name" → "orgs[0].name"; "" + "name" → "name".
std::string member_path(std::string_view parent, std::string_view name);
// "alerts" + 3 → "alerts[3]".
std::string element_path(std::string_view parent, std::size_t index);

} // namespace belay::protocol
