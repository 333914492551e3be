#include "actors/transport/channels.hpp"
#include "actors/transport/curl.hpp"

namespace belay::transport::detail {

send_result send_webhook(const channel_config& channel, const rendered& message) {
  return post_json(channel, message, "webhook", true);
}

} // namespace belay::transport::detail
