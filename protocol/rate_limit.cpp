#include "protocol/rate_limit.hpp"

#include <algorithm>
#include <cmath>

namespace belay::protocol {

take_result take_token(token_bucket& b, double per_minute, micros now) {
  return take_tokens(b, per_minute, now, 1);
}

take_result take_tokens(token_bucket& b, double per_minute, micros now, double n) {
  if (!(per_minute > 0))
    return {false, 60'000'000};
  const double capacity = per_minute;
  const double per_micro = per_minute / 60e6;
  if (!b.started) {
    b.started = true;
    b.tokens = capacity;
    b.updated = now;
  } else if (now > b.updated) {
    b.tokens =
        std::min(capacity, b.tokens + static_cast<double>(now - b.updated) * per_micro);
    b.updated = now;
  }
  if (b.tokens >= n) {
    b.tokens -= n;
    return {true, 0};
  }
  auto wait = static_cast<micros>(std::ceil((n - b.tokens) / per_micro));
  return {false, std::max<micros>(wait, 1)};
}

int64_t retry_after_seconds(micros wait) {
  return std::max<int64_t>(1, (wait + 999'999) / 1'000'000);
}

} // namespace belay::protocol
