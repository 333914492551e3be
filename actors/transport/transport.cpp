#include "actors/transport/transport.hpp"

#include "actors/transport/channels.hpp"
#include "protocol/email.hpp"
#include "protocol/log_line.hpp"
#include "protocol/slack_message.hpp"
#include "protocol/sms.hpp"
#include "protocol/text.hpp"
#include "protocol/twiml.hpp"
#include "protocol/webhook.hpp"

#include <ctime>
#include <exception>
#include <string_view>

namespace belay::transport {

namespace {

// Each channel type: the renderer that writes its bytes, the transport that sends them.
struct channel_type {
  std::string_view name;
  std::string (*render)(const page& p, const channel_config& channel);
  send_result (*send)(const channel_config& channel, const detail::rendered& message);
};

// A renderer that needs nothing of the channel.
template <std::string (*render)(const page&)>
std::string of_page(const page& p, const channel_config&) {
  return render(p);
}

std::string email_message(const page& p, const channel_config& channel) {
  return protocol::email_message(p, channel.from, std::time(nullptr));
}

std::string log_line(const page& p, const channel_config& channel) {
  return protocol::log_line(p, channel.name);
}

const channel_type channel_types[] = {
    {"webhook", of_page<protocol::webhook_body>, detail::send_webhook},
    {"slack", of_page<protocol::slack_body>, detail::send_slack},
    {"email", email_message, detail::send_email},
    {"sms", of_page<protocol::sms_text>, detail::send_sms},
    {"voice", of_page<protocol::voice_twiml>, detail::send_voice},
    {"log", log_line, detail::send_log},
};

} // namespace

send_result send(const channel_config& channel, const page& p) {
  try {
    for (const auto& type : channel_types)
      if (channel.type == type.name)
        return type.send(channel, {p.idempotency_key, p.target, type.render(p, channel)});
    return detail::permanent("unknown channel type '" + protocol::one_line(channel.type) +
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
