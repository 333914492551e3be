#include "protocol/text.hpp"

#include <cstdio>

namespace belay::protocol {

namespace {

bool is_continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

} // namespace

std::size_t utf8_length(std::string_view s) {
  std::size_t n = 0;
  for (char c : s)
    n += !is_continuation_byte(c);
  return n;
}

std::string utf8_prefix(std::string_view s, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!is_continuation_byte(s[i]) && chars++ == max_chars)
      return std::string{s.substr(0, i)};
  }
  return std::string{s};
}

bool is_blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

bool has_whitespace_or_control(std::string_view s) {
  for (char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7F)
      return true;
  }
  return false;
}

std::string one_line(std::string_view text) {
  std::string out{text};
  for (char& c : out)
    if (is_control(c))
      c = ' ';
  return out;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (is_control(text[i])) {
      out += '?';
    } else if (static_cast<unsigned char>(text[i]) == 0xC2 && next >= 0x80 &&
               next <= 0x9F) { // U+0080..U+009F
      out += '?';
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string clip(std::string_view text, std::size_t max_chars,
                 std::string_view ellipsis) {
  if (utf8_length(text) <= max_chars)
    return std::string{text};
  return utf8_prefix(text, max_chars) + std::string{ellipsis};
}

std::string abbreviate(std::string_view s, std::size_t max_chars) {
  return clip(s, max_chars, "…");
}

std::string decimal_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", value);
  return text;
}

std::string member_path(std::string_view parent, std::string_view name) {
  std::string path{parent};
  if (!path.empty())
    path += '.';
  path += name;
  return path;
}

std::string element_path(std::string_view parent, std::size_t index) {
  return std::string{parent} + '[' + std::to_string(index) + ']';
}

} // namespace belay::protocol
