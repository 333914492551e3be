// Resolves bearer keys to their org or integration, personal tokens to their user and
// session cookies to their session (docs/security.md), and holds each key's rate limit
// (docs/guarantees.md#rate-limits). Keys and tokens are stored as SHA-256 hashes.
//
// A known key is cached for `ttl` (10 s): a key that provisioning removed, on any
// node, stops working everywhere within that. An unknown key is settled against the
// set of every stored hash of its kind (API, integration, heartbeat: one set each, so a
// key sent as the wrong kind harms nothing), read again at most every `unknown_ttl`
// (2 s) when a miss finds it older: a flood of random keys costs one database read per
// kind every 2 s, however many keys, and a key just provisioned works within that.
// Memory holds the stored hashes only, never what a client sent. Each known key has a
// token bucket (protocol/rate_limit.hpp) on this node: N nodes allow up to N times the
// limit. Personal tokens are settled like keys. A session is cached for `ttl` too, so
// a logout or a user's removal on another node ends it here within that (at once on
// the node it happened on); an unknown session cookie is remembered as unknown for
// `unknown_ttl`.
#pragma once

#include "protocol/access.hpp"
#include "protocol/rate_limit.hpp"
#include "storage/heartbeats.hpp"
#include "storage/identities.hpp"
#include "storage/keys.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

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
  // A session ends this long after its last use (--session-hours), and 7 days after it
  // began whatever its use.
  micros session_idle = 12LL * 3'600'000'000LL;
  micros session_cap = 7LL * 86'400'000'000LL;
  // A session's last use is written at most this often (its expiry slides with it).
  micros session_touch_every = 60'000'000;
};

// An API key as a request presents it: its org, name and scope.
struct api_key_info {
  int64_t org_id = 0;
  std::string name;  // "" for a plain-string key
  std::string label; // "sha256:<12 hex>"
  protocol::role scope = protocol::role::admin;
};

class key_store {
public:
  explicit key_store(storage::pool& db, key_store_options options = {})
      : db_(db), options_(options) {}
  key_store(storage::pool& db, std::chrono::milliseconds ttl)
      : key_store(db, key_store_options{ttl}) {}

  // The key's org or integration and one request from its bucket.
  admission<api_key_info> admit_api_key(std::string_view api_key);
  // A personal token's user and scope, one request from its bucket.
  admission<storage::personal_token_row> admit_personal_token(std::string_view token);
  // The session of a session cookie's token, unless it ended by `now` (the logic's
  // clock); its expiry slides (written at most every session_touch_every), and one
  // request is taken from its bucket.
  admission<storage::session_row> admit_session(std::string_view token, micros now);
  // Forgets a session on this node at once (a logout here).
  void forget_session(std::string_view token);
  const key_store_options& options() const { return options_; }
  admission<storage::integration_row> admit_integration(std::string_view key);

  // `n` more tokens from a known integration key's bucket (an Alertmanager post costs
  // one per alert: docs/guarantees.md#rate-limits); a cost over what the bucket can
  // hold costs the whole bucket. 0 when taken, else the seconds to wait (none taken).
  int64_t charge_integration(std::string_view key, double n);

  // Lookups that take nothing from a bucket.
  std::optional<int64_t> org_for(std::string_view api_key);
  std::optional<storage::integration_row> integration_for(std::string_view key);
  // A heartbeat's ping key (docs/http.md#heartbeats-api): no rate limit, its own negative
  // cache (a ping is as cheap as a lookup in memory).
  std::optional<storage::heartbeat_key> heartbeat_for(std::string_view ping_key);

  // Database reads so far, of keys and of hash sets (tests: the negative cache).
  size_t reads() const { return reads_; }

private:
  using clock = std::chrono::steady_clock;
  template <class T> struct cached {
    T value;
    clock::time_point read_at;
    protocol::token_bucket bucket;
  };
  // The stored hashes of one kind of key, as read at `read_at`.
  struct known_hashes {
    storage::key_table table;
    std::unordered_set<std::string> hashes{};
    std::optional<clock::time_point> read_at{};
    std::mutex reading{}; // one reader at a time; the others use what it read
  };
  template <class T, class Load, class Rate>
  admission<T> lookup(std::unordered_map<std::string, cached<T>>& cache,
                      known_hashes& known, std::string_view key, bool take, Load load,
                      Rate rate);
  // Whether `hash` is stored, from a set read at most unknown_ttl ago.
  bool is_stored(known_hashes& known, const std::string& hash, clock::time_point now);

  storage::pool& db_;
  key_store_options options_;
  std::mutex mutex_; // held for map and bucket arithmetic only, never across I/O
  std::unordered_map<std::string, cached<api_key_info>> keys_;
  std::unordered_map<std::string, cached<storage::integration_row>> integrations_;
  std::unordered_map<std::string, cached<storage::heartbeat_key>> heartbeats_;
  std::unordered_map<std::string, cached<storage::personal_token_row>> tokens_;
  std::unordered_map<std::string, cached<storage::session_row>> sessions_;
  // Session hashes found unknown, and when: asked again only after unknown_ttl.
  std::unordered_map<std::string, clock::time_point> unknown_sessions_;
  known_hashes api_hashes_{storage::key_table::api_key};
  known_hashes token_hashes_{storage::key_table::personal_token};
  known_hashes integration_hashes_{storage::key_table::integration};
  known_hashes heartbeat_hashes_{storage::key_table::heartbeat};
  std::atomic<size_t> reads_{0};
};

} // namespace belay
