#include "protocol/mime.hpp"

#include "protocol/encoding.hpp"

#include <algorithm>
#include <cstdio>

namespace belay::protocol {

namespace {

constexpr std::size_t max_smtp_line_octets = 998;

bool is_ascii(char c) {
  return static_cast<unsigned char>(c) < 0x80;
}

bool is_continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

std::string encoded_words(std::string_view text) {
  constexpr std::size_t chunk_bytes = 45; // 60 base64 characters per encoded word
  std::string out;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = std::min(begin + chunk_bytes, text.size());
    while (end < text.size() && end > begin && is_continuation_byte(text[end]))
      --end;
    if (!out.empty())
      out += "\r\n ";
    out += "=?UTF-8?B?" + base64_encode(text.substr(begin, end - begin)) + "?=";
    begin = end;
  }
  return out;
}

bool lines_fit_smtp(std::string_view text) {
  std::size_t begin = 0;
  while (begin < text.size()) {
    auto end = text.find("\r\n", begin);
    if (end == std::string_view::npos)
      end = text.size();
    if (end - begin > max_smtp_line_octets)
      return false;
    begin = end + 2;
  }
  return true;
}

} // namespace

std::string rfc5322_date(std::time_t t) {
  static constexpr const char* days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::tm utc{};
  gmtime_r(&t, &utc);
  char out[64];
  std::snprintf(out, sizeof out, "%s, %02d %s %04d %02d:%02d:%02d +0000",
                days[utc.tm_wday], utc.tm_mday, months[utc.tm_mon], utc.tm_year + 1900,
                utc.tm_hour, utc.tm_min, utc.tm_sec);
  return out;
}

std::string header_text(std::string_view text) {
  const auto first = std::find_if_not(text.begin(), text.end(), is_ascii);
  if (first == text.end())
    return std::string{text};
  const auto last = std::find_if_not(text.rbegin(), text.rend(), is_ascii).base();
  // Whole words: an encoded word must stand apart from the text around it.
  const auto space_before =
      text.rfind(' ', static_cast<std::size_t>(first - text.begin()));
  const std::size_t begin = space_before == std::string_view::npos ? 0 : space_before + 1;
  const std::size_t end = std::min(
      text.find(' ', static_cast<std::size_t>(last - text.begin())), text.size());
  return std::string{text.substr(0, begin)} +
         encoded_words(text.substr(begin, end - begin)) + std::string{text.substr(end)};
}

mime_body text_body(std::string_view text) {
  if (lines_fit_smtp(text))
    return {"8bit", std::string{text}};
  return base64_body(text);
}

mime_body base64_body(std::string_view bytes) {
  constexpr std::size_t line_chars = 76;
  const auto encoded = base64_encode(bytes);
  std::string text;
  for (std::size_t i = 0; i < encoded.size(); i += line_chars)
    text += encoded.substr(i, line_chars) + "\r\n";
  return {"base64", std::move(text)};
}

} // namespace belay::protocol
