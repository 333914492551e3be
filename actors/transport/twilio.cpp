#include "actors/transport/channels.hpp"
#include "actors/transport/curl.hpp"

#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace belay::transport::detail {

namespace {

constexpr const char* default_api_base = "https://api.twilio.com";

std::string percent_encode(std::string_view text) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += digits[u >> 4];
      out += digits[u & 0x0f];
    }
  }
  return out;
}

std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty())
      out += '&';
    out += percent_encode(name) + "=" + percent_encode(value);
  }
  return out;
}

// Twilio's REST API: POST {base}/2010-04-01/Accounts/{sid}/{resource} with form
// fields and basic auth sid:token. The base URL is configurable (tests, proxies).
send_result send_twilio(const channel_config& channel, const rendered& message,
                        const char* kind, const char* resource,
                        std::vector<std::pair<std::string, std::string>> fields) {
  std::string what = std::string("twilio ") + kind;
  std::string base = channel.url.empty() ? default_api_base : channel.url;
  if (auto refused = refuse_scheme(base, {"http", "https"}, what))
    return *refused;
  if (channel.account.empty())
    return permanent(what + ": the channel has no account SID");
  if (channel.from.empty())
    return permanent(what + ": the channel has no caller id (from)");
  if (message.target.empty())
    return permanent(what + ": the page has no phone number");
  while (!base.empty() && base.back() == '/')
    base.pop_back();

  http_post request;
  request.what = what;
  request.url =
      base + "/2010-04-01/Accounts/" + percent_encode(channel.account) + "/" + resource;
  request.body = form_encode(fields);
  request.timeout_seconds = channel.timeout_seconds;
  auto key = header_safe(message.idempotency_key);
  request.headers = {"Content-Type: application/x-www-form-urlencoded",
                     "Idempotency-Key: " + key, "I-Twilio-Idempotency-Token: " + key};
  request.username = channel.account;
  request.password = channel.secret;
  return post(request);
}

} // namespace

send_result send_sms(const channel_config& channel, const rendered& message) {
  return send_twilio(
      channel, message, "sms", "Messages.json",
      {{"To", message.target}, {"From", channel.from}, {"Body", message.body}});
}

send_result send_voice(const channel_config& channel, const rendered& message) {
  return send_twilio(
      channel, message, "voice", "Calls.json",
      {{"To", message.target}, {"From", channel.from}, {"Twiml", message.body}});
}

} // namespace belay::transport::detail
