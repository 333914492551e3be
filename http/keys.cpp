#include "http/keys.hpp"

#include "protocol/hash.hpp"
#include "storage/db.hpp"

#include <algorithm>
#include <iterator>

namespace belay {

namespace {

micros micros_of(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch())
      .count();
}

} // namespace

bool key_store::is_stored(known_hashes& known, const std::string& hash,
                          clock::time_point now) {
  std::lock_guard reading{known.reading};
  {
    std::lock_guard lock{mutex_};
    if (known.read_at && now - *known.read_at < options_.unknown_ttl)
      return known.hashes.count(hash) > 0;
  }
  std::vector<std::string> stored;
  {
    auto conn = db_.acquire();
    stored = storage::key_hashes(*conn, known.table);
  }
  ++reads_;
  std::lock_guard lock{mutex_};
  known.hashes = std::unordered_set<std::string>(std::make_move_iterator(stored.begin()),
                                                 std::make_move_iterator(stored.end()));
  known.read_at = clock::now();
  return known.hashes.count(hash) > 0;
}

// The cached value of `key` while it is fresh, else what `load(connection, hash)` reads
// when its kind's stored hashes hold it; with `take`, one token from its bucket (kept
// across re-reads of the key).
template <class T, class Load, class Rate>
admission<T> key_store::lookup(std::unordered_map<std::string, cached<T>>& cache,
                               known_hashes& known, std::string_view key, bool take,
                               Load load, Rate rate) {
  admission<T> out;
  if (key.empty())
    return out;
  auto hash = sha256_hex(key);
  auto now = clock::now();
  auto admit = [&](cached<T>& entry) {
    out.found = true;
    out.value = entry.value;
    if (!take)
      return;
    auto taken = protocol::take_token(entry.bucket, rate(entry.value), micros_of(now));
    if (!taken.allowed)
      out.retry_after_seconds = protocol::retry_after_seconds(taken.retry_after);
  };
  {
    std::lock_guard lock{mutex_};
    if (auto it = cache.find(hash);
        it != cache.end() && now - it->second.read_at < options_.ttl) {
      admit(it->second);
      return out;
    }
  }
  std::optional<T> found;
  if (is_stored(known, hash, now)) {
    auto conn = db_.acquire();
    found = load(*conn, hash);
    ++reads_;
  }
  std::lock_guard lock{mutex_};
  if (!found) {
    cache.erase(hash);
    return out;
  }
  auto& entry = cache[hash]; // a re-read keeps the key's bucket
  entry.value = *found;
  entry.read_at = now;
  admit(entry);
  return out;
}

admission<int64_t> key_store::admit_api_key(std::string_view api_key) {
  return lookup(
      orgs_, api_hashes_, api_key, true,
      [](storage::connection& c, const std::string& hash) -> std::optional<int64_t> {
        auto found = storage::find_api_key(c, hash);
        if (!found || !constant_time_equal(found->second, hash))
          return std::nullopt;
        return found->first;
      },
      [this](int64_t) { return options_.api_rate_per_minute; });
}

admission<storage::integration_row> key_store::admit_integration(std::string_view key) {
  return lookup(
      integrations_, integration_hashes_, key, true,
      [](storage::connection& c,
         const std::string& hash) -> std::optional<storage::integration_row> {
        auto found = storage::find_integration(c, hash);
        if (!found || !constant_time_equal(found->key_hash, hash))
          return std::nullopt;
        return found;
      },
      [](const storage::integration_row& row) {
        return static_cast<double>(row.rate_limit_per_minute);
      });
}

int64_t key_store::charge_integration(std::string_view key, double n) {
  auto hash = sha256_hex(key);
  std::lock_guard lock{mutex_};
  auto it = integrations_.find(hash);
  if (it == integrations_.end() || !(n > 0))
    return 0;
  auto per_minute = static_cast<double>(it->second.value.rate_limit_per_minute);
  // The request's first token was taken when its key was checked.
  auto cost = std::min(n, std::max(0.0, per_minute - 1));
  auto taken =
      protocol::take_tokens(it->second.bucket, per_minute, micros_of(clock::now()), cost);
  return taken.allowed ? 0 : protocol::retry_after_seconds(taken.retry_after);
}

std::optional<int64_t> key_store::org_for(std::string_view api_key) {
  auto a = lookup(
      orgs_, api_hashes_, api_key, false,
      [](storage::connection& c, const std::string& hash) -> std::optional<int64_t> {
        auto found = storage::find_api_key(c, hash);
        if (!found || !constant_time_equal(found->second, hash))
          return std::nullopt;
        return found->first;
      },
      [](int64_t) { return 0.0; });
  return a.found ? std::optional<int64_t>{a.value} : std::nullopt;
}

std::optional<storage::integration_row> key_store::integration_for(std::string_view key) {
  auto a = lookup(
      integrations_, integration_hashes_, key, false,
      [](storage::connection& c,
         const std::string& hash) -> std::optional<storage::integration_row> {
        auto found = storage::find_integration(c, hash);
        if (!found || !constant_time_equal(found->key_hash, hash))
          return std::nullopt;
        return found;
      },
      [](const storage::integration_row&) { return 0.0; });
  return a.found ? std::optional<storage::integration_row>{a.value} : std::nullopt;
}

std::optional<storage::heartbeat_key>
key_store::heartbeat_for(std::string_view ping_key) {
  auto a = lookup(
      heartbeats_, heartbeat_hashes_, ping_key, false,
      [](storage::connection& c,
         const std::string& hash) -> std::optional<storage::heartbeat_key> {
        auto found = storage::find_heartbeat(c, hash);
        if (!found || !constant_time_equal(found->key_hash, hash))
          return std::nullopt;
        return found;
      },
      [](const storage::heartbeat_key&) { return 0.0; });
  return a.found ? std::optional<storage::heartbeat_key>{a.value} : std::nullopt;
}

} // namespace belay
