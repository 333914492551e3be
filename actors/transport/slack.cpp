#include "actors/transport/channels.hpp"
#include "actors/transport/curl.hpp"

namespace belay::transport::detail {

send_result send_slack(const channel_config& channel, const rendered& message) {
  // The webhook URL is itself the credential: it never appears in an error.
  if (auto refused = refuse_scheme(channel.url, {"http", "https"}, "slack webhook"))
    return *refused;
  http_post request;
  request.what = "slack webhook";
  request.url = channel.url;
  request.body = message.body;
  request.timeout_seconds = channel.timeout_seconds;
  request.headers = {"Content-Type: application/json",
                     "Idempotency-Key: " + header_safe(message.idempotency_key)};
  request.secrets = {channel.secret};
  return post(request);
}

} // namespace belay::transport::detail
