#include "http/route_limits.hpp"

#include <algorithm>
#include <chrono>
#include <httplib.h>

namespace belay {

namespace {

micros steady_now() {
  using namespace std::chrono;
  return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// The first path segment after `prefix` (a ping key, an answer token).
std::string segment_after(const std::string& path, size_t prefix) {
  return path.substr(prefix, path.find('/', prefix) - prefix);
}

// The ping key or answer token the request names; empty when it names none.
std::string token_of(const httplib::Request& req) {
  if (starts_with(req.path, "/hb/"))
    return "hb " + segment_after(req.path, 4);
  if (starts_with(req.path, "/a/"))
    return "a " + segment_after(req.path, 3);
  if (req.path == "/api/v1/integrations/twilio/voice" && req.has_param("t"))
    return "a " + req.get_param_value("t");
  return {};
}

bool limited(const httplib::Request& req) {
  return starts_with(req.path, "/hb/") || starts_with(req.path, "/a/") ||
         starts_with(req.path, "/api/v1/integrations/twilio/") ||
         starts_with(req.path, "/api/v1/integrations/slack/");
}

} // namespace

int64_t route_limits::take(const httplib::Request& req) {
  if (!limited(req))
    return 0;
  auto now = steady_now();
  std::lock_guard lock{mutex_};
  if (buckets_.size() >= max_buckets)
    make_room(now);
  micros wait = take("addr " + req.remote_addr, options_.per_address_per_minute, now);
  if (auto token = token_of(req); !token.empty() && wait == 0)
    wait = take(token, options_.per_token_per_minute, now);
  return wait > 0 ? protocol::retry_after_seconds(wait) : 0;
}

int64_t route_limits::take_sign_in(const std::string& address, const std::string& login) {
  auto now = steady_now();
  std::lock_guard lock{mutex_};
  if (buckets_.size() >= max_buckets)
    make_room(now);
  micros wait =
      take("sign-in addr " + address, options_.sign_ins_per_address_per_minute, now);
  if (!login.empty() && wait == 0)
    wait = take("sign-in login " + login, options_.sign_ins_per_login_per_minute, now);
  return wait > 0 ? protocol::retry_after_seconds(wait) : 0;
}

double route_limits::per_minute_of(const std::string& who) const {
  if (starts_with(who, "sign-in addr "))
    return options_.sign_ins_per_address_per_minute;
  if (starts_with(who, "sign-in login "))
    return options_.sign_ins_per_login_per_minute;
  return starts_with(who, "addr ") ? options_.per_address_per_minute
                                   : options_.per_token_per_minute;
}

micros route_limits::take(const std::string& who, double per_minute, micros now) {
  auto taken = protocol::take_token(buckets_[who], per_minute, now);
  return taken.allowed ? 0 : std::max<micros>(1, taken.retry_after);
}

void route_limits::make_room(micros now) {
  // A bucket that has refilled since its last request is as good as a new one.
  auto full_again = [&](const std::string& who, const protocol::token_bucket& b) {
    auto per_minute = per_minute_of(who);
    return b.tokens + static_cast<double>(now - b.updated) / 60e6 * per_minute >=
           per_minute;
  };
  for (auto it = buckets_.begin(); it != buckets_.end();)
    it = full_again(it->first, it->second) ? buckets_.erase(it) : std::next(it);
  if (buckets_.size() >= max_buckets) // all busy: forget them rather than grow
    buckets_.clear();
}

} // namespace belay
