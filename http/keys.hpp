// Resolves bearer keys to their org or integration, and holds each key's rate limit
// (docs/guarantees.md#rate-limits). Keys are stored as SHA-256 hashes.
//
// A known key is cached for `ttl` (10 s): a key that provisioning removed, on any
// node, stops working everywhere within that. An unknown key is remembered as unknown
// for `unknown_ttl` (2 s), at most max_unknown of them, so a flood of one bad key
// does not reach the database with every request; a key just provisioned works within
// that. Each known key has a token bucket (protocol/rate_limit.hpp) on this node: N
// nodes allow up to N times the limit.
#pragma once

#include "protocol/rate_limit.hpp"
#include "storage/heartbeats.hpp"
#include "storage/keys.hpp"

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace belay {

namespace storage {
class pool;
}

template <class T> struct admission {
  bool found = false;
  T value{};
  int64_t retry_after_seconds = 0; // > 0: over its rate limit, refused
};

struct key_store_options {
  std::chrono::milliseconds ttl{10'000};
  std::chrono::milliseconds unknown_ttl{2'000};
  double api_rate_per_minute = 6000;
};

class key_store {
public:
  static constexpr size_t max_unknown = 10'000;

  explicit key_store(storage::pool& db, key_store_options options = {})
      : db_(db), options_(options) {}
  key_store(storage::pool& db, std::chrono::milliseconds ttl)
      : key_store(db, key_store_options{ttl}) {}

  // The key's org or integration and one request from its bucket.
  admission<int64_t> admit_api_key(std::string_view api_key);
  admission<storage::integration_row> admit_integration(std::string_view key);

  // Lookups that take nothing from a bucket.
  std::optional<int64_t> org_for(std::string_view api_key);
  std::optional<storage::integration_row> integration_for(std::string_view key);
  // A heartbeat's ping key (docs/http.md#heartbeats-api): no rate limit, its own negative
  // cache (a ping is as cheap as a lookup in memory).
  std::optional<storage::heartbeat_key> heartbeat_for(std::string_view ping_key);

  // Database reads so far (tests: the negative cache).
  size_t reads() const { return reads_; }

private:
  using clock = std::chrono::steady_clock;
  template <class T> struct cached {
    T value;
    clock::time_point read_at;
    protocol::token_bucket bucket;
  };
  using unknown_keys = std::unordered_map<std::string, clock::time_point>;
  template <class T, class Load, class Rate>
  admission<T> lookup(std::unordered_map<std::string, cached<T>>& cache,
                      std::string_view key, bool take, Load load, Rate rate) {
    return lookup(cache, unknown_, key, take, load, rate);
  }
  template <class T, class Load, class Rate>
  admission<T> lookup(std::unordered_map<std::string, cached<T>>& cache,
                      unknown_keys& unknown, std::string_view key, bool take, Load load,
                      Rate rate);

  storage::pool& db_;
  key_store_options options_;
  std::mutex mutex_; // held for map and bucket arithmetic only, never across I/O
  std::unordered_map<std::string, cached<int64_t>> orgs_;
  std::unordered_map<std::string, cached<storage::integration_row>> integrations_;
  std::unordered_map<std::string, cached<storage::heartbeat_key>> heartbeats_;
  unknown_keys unknown_;
  unknown_keys unknown_heartbeats_;
  size_t reads_ = 0;
};

} // namespace belay
