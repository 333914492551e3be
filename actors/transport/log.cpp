#include "actors/transport/channels.hpp"

#include <spdlog/spdlog.h>

namespace belay::transport::detail {

send_result send_log(const channel_config& channel, const page& p) {
  spdlog::info("page via log channel '{}': incident {} \"{}\" [{}] to '{}' (key {})",
               one_line(channel.name), p.incident.id, one_line(p.incident.title),
               upper_severity(p), one_line(p.target), one_line(p.idempotency_key));
  send_result result;
  result.result = outcome::sent;
  return result;
}

} // namespace belay::transport::detail
