#include "protocol/markup.hpp"

#include "protocol/text.hpp"

namespace belay::protocol {

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

} // namespace belay::protocol
