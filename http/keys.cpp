#include "http/keys.hpp"

#include "protocol/hash.hpp"
#include "storage/db.hpp"

namespace belay {

std::optional<int64_t> key_store::org_for(std::string_view api_key) {
  if (api_key.empty())
    return std::nullopt;
  auto hash = sha256_hex(api_key);
  {
    std::lock_guard lock{mutex_};
    if (auto it = orgs_.find(hash); it != orgs_.end())
      return it->second;
  }
  auto conn = db_.acquire();
  auto found = storage::find_api_key(*conn, hash);
  if (!found || !constant_time_equal(found->second, hash))
    return std::nullopt;
  std::lock_guard lock{mutex_};
  orgs_[hash] = found->first;
  return found->first;
}

std::optional<storage::integration_row> key_store::integration_for(std::string_view key) {
  if (key.empty())
    return std::nullopt;
  auto hash = sha256_hex(key);
  {
    std::lock_guard lock{mutex_};
    if (auto it = integrations_.find(hash); it != integrations_.end())
      return it->second;
  }
  auto conn = db_.acquire();
  auto found = storage::find_integration(*conn, hash);
  if (!found || !constant_time_equal(found->key_hash, hash))
    return std::nullopt;
  std::lock_guard lock{mutex_};
  integrations_[hash] = *found;
  return found;
}

} // namespace belay
