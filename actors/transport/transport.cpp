#include "actors/transport/transport.hpp"

#include "actors/transport/channels.hpp"
#include "protocol/answer_token.hpp"
#include "protocol/page_text.hpp"

#include <cctype>
#include <exception>

namespace belay::transport {

namespace detail {

std::string upper_severity(const page& p) {
  std::string out = one_line(p.incident.severity);
  for (auto& c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string step_label(const page& p) {
  std::string label = "step " + std::to_string(p.step + 1);
  if (p.loop > 0)
    label += " (repeat " + std::to_string(p.loop) + ")";
  return label;
}

std::string escape_markup(std::string_view text, bool quotes) {
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
      out += quotes ? "&quot;" : "\"";
      break;
    case '\'':
      out += quotes ? "&apos;" : "'";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string one_line(std::string_view text) {
  std::string out(text);
  for (auto& c : out) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      c = ' ';
  }
  return out;
}

std::string clip(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes)
    return std::string(text);
  size_t end = max_bytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx) to a character start.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
    --end;
  return std::string(text.substr(0, end)) + "...";
}

} // namespace detail

void with_answer(page& p, const answer_links& links, const delivery_record& delivery,
                 micros now) {
  p.delivery_id = delivery.id;
  p.update = delivery.update_of;
  if (links.signing_secret.empty() || !p.update.empty())
    return;
  p.answer_token = protocol::make_answer_token(links.signing_secret, delivery.id,
                                               now + protocol::answer_token_validity);
  p.answer_url = protocol::answer_url(links.public_url, p.answer_token);
  p.voice_url = protocol::twilio_voice_url(links.public_url, p.answer_token);
}

send_result send(const channel_config& channel, const page& p) {
  try {
    if (channel.type == "webhook")
      return detail::send_webhook(channel, p);
    if (channel.type == "slack")
      return detail::send_slack(channel, p);
    if (channel.type == "email")
      return detail::send_email(channel, p);
    if (channel.type == "sms")
      return detail::send_sms(channel, p);
    if (channel.type == "voice")
      return detail::send_voice(channel, p);
    if (channel.type == "log")
      return detail::send_log(channel, p);
    return detail::permanent("unknown channel type '" + detail::one_line(channel.type) +
                             "'");
  } catch (const std::exception& e) {
    // Out of memory and the like: nothing about the page itself is wrong.
    send_result failed;
    failed.error = std::string("transport failed: ") + e.what();
    return failed;
  } catch (...) {
    send_result failed;
    failed.error = "transport failed";
    return failed;
  }
}

} // namespace belay::transport
