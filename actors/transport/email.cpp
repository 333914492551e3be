#include "actors/transport/channels.hpp"
#include "actors/transport/curl.hpp"
#include "protocol/text.hpp"

#include <algorithm>

namespace belay::transport::detail {

namespace {

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

send_result send_email(const channel_config& channel, const rendered& message) {
  if (auto refused = refuse_scheme(channel.url, {"smtp", "smtps"}, "mail server"))
    return *refused;
  auto sender = envelope_address(channel.from);
  if (!plausible_address(sender))
    return permanent("email: the channel has no valid from address");
  if (!plausible_address(message.target))
    return permanent("email: invalid recipient address '" +
                     protocol::one_line(protocol::clip(message.target, 200)) + "'");
  smtp_mail request;
  request.url = channel.url;
  request.mail_from = sender;
  request.rcpt_to = message.target;
  request.message = message.body;
  request.username = channel.account;
  request.password = channel.secret;
  request.timeout_seconds = channel.timeout_seconds;
  return mail(request);
}

} // namespace belay::transport::detail
