#include "http/keys.hpp"

#include "protocol/hash.hpp"
#include "storage/db.hpp"

namespace belay {

// The cached value of `key` while it is fresh, else what `load(connection, hash)` reads
// (std::nullopt: unknown, not cached).
template <class T, class Load>
std::optional<T> key_store::lookup(std::map<std::string, cached<T>>& cache,
                                   std::string_view key, Load load) {
  if (key.empty())
    return std::nullopt;
  auto hash = sha256_hex(key);
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock{mutex_};
    if (auto it = cache.find(hash); it != cache.end()) {
      if (now - it->second.read_at < ttl_)
        return it->second.value;
      cache.erase(it);
    }
  }
  auto conn = db_.acquire();
  std::optional<T> found = load(*conn, hash);
  if (found) {
    std::lock_guard lock{mutex_};
    cache[hash] = {*found, now};
  }
  return found;
}

std::optional<int64_t> key_store::org_for(std::string_view api_key) {
  return lookup(
      orgs_, api_key,
      [](storage::connection& c, const std::string& hash) -> std::optional<int64_t> {
        auto found = storage::find_api_key(c, hash);
        if (!found || !constant_time_equal(found->second, hash))
          return std::nullopt;
        return found->first;
      });
}

std::optional<storage::integration_row> key_store::integration_for(std::string_view key) {
  return lookup(integrations_, key,
                [](storage::connection& c,
                   const std::string& hash) -> std::optional<storage::integration_row> {
                  auto found = storage::find_integration(c, hash);
                  if (!found || !constant_time_equal(found->key_hash, hash))
                    return std::nullopt;
                  return found;
                });
}

} // namespace belay
