#include "actors/transport/channels.hpp"
#include "actors/transport/curl.hpp"

namespace belay::transport::detail {

// The webhook URL is itself the credential: post_json keeps it out of every error.
send_result send_slack(const channel_config& channel, const rendered& message) {
  return post_json(channel, message, "slack webhook", false);
}

} // namespace belay::transport::detail
