#include "actors/transport/channels.hpp"
#include "actors/transport/curl.hpp"
#include "protocol/page_text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace belay::transport {

namespace {

bool is_atext(char c) {
  static constexpr std::string_view specials = "!#$%&'*+-/?^_`{|}~";
  return std::isalnum(static_cast<unsigned char>(c)) ||
         specials.find(c) != std::string_view::npos;
}

void append_escaped(std::string& out, char c) {
  static constexpr char digits[] = "0123456789ABCDEF";
  auto u = static_cast<unsigned char>(c);
  out += '=';
  out += digits[u >> 4];
  out += digits[u & 0x0f];
}

} // namespace

std::string email_message_id(const page& p) {
  // id-left must be a dot-atom: atext separated by single dots.
  const auto& key = p.idempotency_key;
  std::string left;
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i] == ':' ? '.' : key[i];
    bool dot_allowed =
        c == '.' && !left.empty() && left.back() != '.' && i + 1 < key.size();
    if ((is_atext(c) && c != '=') || dot_allowed)
      left += c;
    else
      append_escaped(left, c);
  }
  return left + "@belay";
}

namespace detail {

namespace {

std::string rfc5322_date(std::time_t now) {
  static constexpr const char* days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::tm utc{};
  gmtime_r(&now, &utc);
  char out[64];
  std::snprintf(out, sizeof out, "%s, %02d %s %04d %02d:%02d:%02d +0000",
                days[utc.tm_wday], utc.tm_mday, months[utc.tm_mon], utc.tm_year + 1900,
                utc.tm_hour, utc.tm_min, utc.tm_sec);
  return out;
}

std::string base64(std::string_view data) {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < data.size(); i += 3) {
    uint32_t chunk = static_cast<unsigned char>(data[i]) << 16;
    if (i + 1 < data.size())
      chunk |= static_cast<unsigned char>(data[i + 1]) << 8;
    if (i + 2 < data.size())
      chunk |= static_cast<unsigned char>(data[i + 2]);
    out += alphabet[(chunk >> 18) & 63];
    out += alphabet[(chunk >> 12) & 63];
    out += i + 1 < data.size() ? alphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < data.size() ? alphabet[chunk & 63] : '=';
  }
  return out;
}

// A header value as RFC 2047 encoded words when it is not plain ASCII, folded so
// that no line exceeds 78 characters; UTF-8 characters are never split.
std::string header_text(std::string_view text) {
  if (std::all_of(text.begin(), text.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return std::string(text);
  constexpr size_t chunk_bytes = 45; // 60 base64 characters per encoded word
  std::string out;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = std::min(begin + chunk_bytes, text.size());
    while (end < text.size() && end > begin &&
           (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
      --end;
    if (!out.empty())
      out += "\r\n ";
    out += "=?UTF-8?B?" + base64(text.substr(begin, end - begin)) + "?=";
    begin = end;
  }
  return out;
}

// "Ops <ops@example.com>" -> "ops@example.com"; a bare address stays as it is.
std::string envelope_address(std::string_view from) {
  auto open = from.rfind('<');
  auto close = from.rfind('>');
  if (open != std::string_view::npos && close != std::string_view::npos && open < close)
    return std::string(from.substr(open + 1, close - open - 1));
  return std::string(from);
}

bool plausible_address(std::string_view address) {
  return !address.empty() && std::none_of(address.begin(), address.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f || c == '<' || c == '>' || c == ',' || c == '"';
  });
}

} // namespace

std::string email_message(const channel_config& channel, const page& p, std::time_t now) {
  const auto& incident = p.incident;
  auto title = one_line(clip(incident.title, 500));
  std::string m;
  m += "Date: " + rfc5322_date(now) + "\r\n";
  m += "From: " + header_text(one_line(channel.from)) + "\r\n";
  m += "To: " + p.target + "\r\n";
  const auto update = p.update.empty()
                          ? std::string{}
                          : one_line(protocol::render_status_update(incident, p.update));
  if (update.empty())
    m += "Subject: [belay] " + upper_severity(p) + " " + header_text(title) + "\r\n";
  else
    m += "Subject: " + header_text(update) + "\r\n";
  m += "Message-ID: <" + email_message_id(p) + ">\r\n";
  m += "MIME-Version: 1.0\r\n";
  // With the way back the message has the link in a text and an HTML part; the
  // boundary starts with "=_", which neither the text's lines nor base64 can.
  constexpr const char* boundary = "=_belay_answer";
  const bool linked = !p.answer_url.empty();
  if (linked) {
    m += std::string{"Content-Type: multipart/alternative; boundary=\""} + boundary +
         "\"\r\n";
  } else {
    m += "Content-Type: text/plain; charset=utf-8\r\n";
    m += "Content-Transfer-Encoding: 8bit\r\n";
  }
  m += "Auto-Submitted: auto-generated\r\n";
  m += "X-Belay-Incident: " + std::to_string(incident.id) + "\r\n";
  m += "\r\n";
  if (!update.empty())
    m += update + "\r\n\r\n";
  if (linked) {
    m += std::string{"--"} + boundary + "\r\n";
    m += "Content-Type: text/plain; charset=utf-8\r\n";
    m += "Content-Transfer-Encoding: 8bit\r\n\r\n";
  }
  m += "Incident " + std::to_string(incident.id) + ": " + title + "\r\n";
  m += "\r\n";
  m += "Severity:  " + upper_severity(p) + "\r\n";
  m += "Status:    " + one_line(incident.status) + "\r\n";
  m += "Dedup key: " + one_line(clip(incident.dedup_key, 500)) + "\r\n";
  m += "Ladder:    " + step_label(p) + " of policy '" + one_line(incident.policy) +
       "'\r\n";
  m += "Attempt:   " + std::to_string(p.attempt) + "\r\n";
  m += "\r\n";
  if (!linked) {
    if (update.empty())
      m += "Acknowledge the incident in belay to stop the escalation.\r\n";
    return m;
  }
  m += "Acknowledge or resolve it here:\r\n" + p.answer_url + "\r\n\r\n";
  m += "The link answers as you: do not forward it.\r\n";
  m += std::string{"--"} + boundary + "\r\n";
  m += "Content-Type: text/html; charset=utf-8\r\n";
  m += "Content-Transfer-Encoding: base64\r\n\r\n";
  // An escaped title may make a line longer than SMTP's 998 octets: base64 it.
  const auto html = base64(protocol::render_email_page(incident, p.answer_url).html);
  for (size_t i = 0; i < html.size(); i += 76)
    m += html.substr(i, 76) + "\r\n";
  m += std::string{"--"} + boundary + "--\r\n";
  return m;
}

send_result send_email(const channel_config& channel, const page& p) {
  if (auto refused = refuse_scheme(channel.url, {"smtp", "smtps"}, "mail server"))
    return *refused;
  auto sender = envelope_address(channel.from);
  if (!plausible_address(sender))
    return permanent("email: the channel has no valid from address");
  if (!plausible_address(p.target))
    return permanent("email: invalid recipient address '" +
                     one_line(clip(p.target, 200)) + "'");
  smtp_mail request;
  request.url = channel.url;
  request.mail_from = sender;
  request.rcpt_to = p.target;
  request.message = email_message(channel, p, std::time(nullptr));
  request.username = channel.account;
  request.password = channel.secret;
  request.timeout_seconds = channel.timeout_seconds;
  return mail(request);
}

} // namespace detail

} // namespace belay::transport
