// Resolves bearer keys to their org or integration. Keys are stored as SHA-256
// hashes; known hashes are cached, unknown ones are asked of the database each time
// (caching misses would let anyone grow the cache).
#pragma once

#include "storage/keys.hpp"

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
  explicit key_store(storage::pool& db) : db_(db) {}
  std::optional<int64_t> org_for(std::string_view api_key);
  std::optional<storage::integration_row> integration_for(std::string_view key);

private:
  storage::pool& db_;
  std::mutex mutex_;
  std::map<std::string, int64_t> orgs_;
  std::map<std::string, storage::integration_row> integrations_;
};

} // namespace belay
