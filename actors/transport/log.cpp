#include "actors/transport/channels.hpp"

#include <spdlog/spdlog.h>

namespace belay::transport::detail {

send_result send_log(const channel_config&, const rendered& message) {
  spdlog::info("{}", message.body);
  send_result result;
  result.result = outcome::sent;
  return result;
}

} // namespace belay::transport::detail
