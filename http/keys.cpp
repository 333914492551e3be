#include "http/keys.hpp"

#include "protocol/hash.hpp"
#include "storage/db.hpp"

#include <iterator>

namespace belay {

namespace {

micros micros_of(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch())
      .count();
}

} // namespace

// The cached value of `key` while it is fresh, else what `load(connection, hash)` reads;
// with `take`, one token from its bucket (kept across re-reads of the key).
template <class T, class Load, class Rate>
admission<T> key_store::lookup(std::unordered_map<std::string, cached<T>>& cache,
                               unknown_keys& unknown, std::string_view key, bool take,
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
    if (auto it = unknown.find(hash); it != unknown.end()) {
      if (now - it->second < options_.unknown_ttl)
        return out;
      unknown.erase(it);
    }
  }
  std::optional<T> found;
  {
    auto conn = db_.acquire();
    found = load(*conn, hash);
  }
  std::lock_guard lock{mutex_};
  ++reads_;
  if (!found) {
    cache.erase(hash);
    if (unknown.size() >= max_unknown)
      for (auto it = unknown.begin(); it != unknown.end();)
        it = now - it->second >= options_.unknown_ttl ? unknown.erase(it) : std::next(it);
    if (unknown.size() < max_unknown)
      unknown[hash] = now;
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
      orgs_, api_key, true,
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
      integrations_, key, true,
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

std::optional<int64_t> key_store::org_for(std::string_view api_key) {
  auto a = lookup(
      orgs_, api_key, false,
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
      integrations_, key, false,
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
      heartbeats_, unknown_heartbeats_, ping_key, false,
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
