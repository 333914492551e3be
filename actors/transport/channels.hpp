// The transports behind send(), one per channel type: each sends the bytes a renderer
// of protocol/ made for the page, with the channel's settings. Internal to
// actors/transport.
#pragma once

#include "actors/transport/transport.hpp"

#include <string>
#include <utility>

namespace belay::transport::detail {

// What goes out for one page: the rendered bytes and whom they are for.
struct rendered {
  std::string idempotency_key; // the page's, identical on every attempt
  std::string target;          // the page's recipient
  std::string body;            // the renderer's output, sent as it is
};

send_result send_webhook(const channel_config& channel, const rendered& message);
send_result send_slack(const channel_config& channel, const rendered& message);
send_result send_email(const channel_config& channel, const rendered& message);
send_result send_sms(const channel_config& channel, const rendered& message);
send_result send_voice(const channel_config& channel, const rendered& message);
send_result send_log(const channel_config& channel, const rendered& message);

inline send_result permanent(std::string error) {
  send_result result;
  result.result = outcome::permanent;
  result.error = std::move(error);
  return result;
}

} // namespace belay::transport::detail
