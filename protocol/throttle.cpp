#include "protocol/throttle.hpp"

namespace belay::protocol {

throttle_windows default_page_throttle(std::string_view type) {
  if (type == "sms")
    return {{1, 60}, {5, 900}, {11, 3600}};
  if (type == "voice")
    return {{1, 60}, {3, 900}, {7, 3600}};
  if (type == "email")
    return {{1, 60}};
  return {};
}

throttle_windows default_status_throttle(std::string_view type) {
  if (type == "sms" || type == "voice")
    return {{1, 180}, {3, 1200}, {8, 7200}};
  if (type == "email")
    return {{1, 180}};
  return {};
}

bool can_bundle(std::string_view type) {
  return type == "sms" || type == "voice" || type == "email" || type == "slack";
}

} // namespace belay::protocol
