#include "actors/transport/channels.hpp"
#include "actors/transport/curl.hpp"
#include "protocol/hash.hpp"

namespace belay::transport::detail {

send_result send_webhook(const channel_config& channel, const rendered& message) {
  if (auto refused = refuse_scheme(channel.url, {"http", "https"}, "webhook"))
    return *refused;
  http_post request;
  request.what = "webhook";
  request.url = channel.url;
  request.body = message.body;
  request.timeout_seconds = channel.timeout_seconds;
  request.headers = {"Content-Type: application/json",
                     "Idempotency-Key: " + header_safe(message.idempotency_key)};
  if (!channel.secret.empty())
    request.headers.push_back("X-Belay-Signature: sha256=" +
                              hmac_sha256_hex(channel.secret, request.body));
  request.secrets = {channel.secret};
  return post(request);
}

} // namespace belay::transport::detail
