#include "protocol/markup.hpp"

#include "protocol/text.hpp"

namespace belay::protocol {

namespace {

bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

} // namespace

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    case '\t':
    case '\r':
    case '\n':
      out += c;
      break;
    default:
      out += is_control(c) ? ' ' : c;
    }
  }
  return out;
}

std::string escape_slack(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

std::string one_line(std::string_view text) {
  std::string out{text};
  for (char& c : out)
    if (is_control(c))
      c = ' ';
  return out;
}

std::string clip(std::string_view text, std::size_t max_chars) {
  if (utf8_length(text) <= max_chars)
    return std::string{text};
  return utf8_prefix(text, max_chars) + "...";
}

} // namespace belay::protocol
