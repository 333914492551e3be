// Resolves bearer keys to their org or integration. Keys are stored as SHA-256
// hashes; known hashes are cached for a while, unknown ones are asked of the database
// each time (caching misses would let anyone grow the cache). The cache forgets an
// entry after `ttl`, so a key that another node's provisioning removed or re-pointed
// stops working here too.
#pragma once

#include "storage/keys.hpp"

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>

namespace belay {

namespace storage {
class pool;
}

class key_store {
public:
  explicit key_store(storage::pool& db,
                     std::chrono::milliseconds ttl = std::chrono::seconds{10})
      : db_(db), ttl_(ttl) {}
  std::optional<int64_t> org_for(std::string_view api_key);
  std::optional<storage::integration_row> integration_for(std::string_view key);

private:
  template <class T> struct cached {
    T value;
    std::chrono::steady_clock::time_point read_at;
  };
  template <class T, class Load>
  std::optional<T> lookup(std::map<std::string, cached<T>>& cache, std::string_view key,
                          Load load);

  storage::pool& db_;
  std::chrono::milliseconds ttl_;
  std::mutex mutex_;
  std::map<std::string, cached<int64_t>> orgs_;
  std::map<std::string, cached<storage::integration_row>> integrations_;
};

} // namespace belay
