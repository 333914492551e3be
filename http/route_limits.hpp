// Rate limits of the routes that take no API or integration key
// (docs/guarantees.md#rate-limits): heartbeat pings (/hb/<key>), answer links
// (/a/<token>), and the Twilio and Slack replies. Each ping key and answer token has a
// token bucket, and so has each source address over all of these routes together;
// a request over either is answered 429 with Retry-After before its body is read. The
// buckets are per node, like the keys' (N nodes allow up to N×).
#pragma once

#include "protocol/rate_limit.hpp"

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace httplib {
struct Request;
}

namespace belay {

struct route_limit_options {
  double per_token_per_minute = 60;     // a ping key, an answer token
  double per_address_per_minute = 1200; // a client (a proxy in front counts as one)
  // Sign-in attempts (docs/security.md#signing-in): per login tried, per address.
  double sign_ins_per_login_per_minute = 10;
  double sign_ins_per_address_per_minute = 30;
};

class route_limits {
public:
  // Buckets held at most; past it, idle ones are dropped (a flood of made-up tokens
  // cannot grow memory without bound).
  static constexpr size_t max_buckets = 100'000;

  explicit route_limits(route_limit_options options = {}) : options_(options) {}

  // 0 when the request may go on, else the seconds it should wait (Retry-After). Takes
  // one token from each bucket the request counts against; other routes take nothing.
  int64_t take(const httplib::Request& req);
  // The same for one sign-in attempt (a password tried, a callback, a password
  // changed): one token from the address's bucket and from the login's (`login`
  // empty: the address's only).
  int64_t take_sign_in(const std::string& address, const std::string& login);

private:
  // A refusal's wait in microseconds, 0 when taken.
  micros take(const std::string& who, double per_minute, micros now);
  double per_minute_of(const std::string& who) const;
  void make_room(micros now);

  route_limit_options options_;
  std::mutex mutex_;
  std::unordered_map<std::string, protocol::token_bucket> buckets_;
};

} // namespace belay
