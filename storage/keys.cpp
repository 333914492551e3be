#include "storage/keys.hpp"

#include "storage/db.hpp"

namespace belay::storage {

std::optional<std::pair<int64_t, std::string>> find_api_key(connection& c,
                                                            const std::string& key_hash) {
  auto r = c.query("SELECT org_id, key_hash FROM api_key WHERE key_hash = $1", key_hash);
  if (r.rows() == 0)
    return std::nullopt;
  return std::make_pair(r.int64(0, 0), r.str(0, 1));
}

std::optional<integration_row> find_integration(connection& c,
                                                const std::string& key_hash) {
  auto r = c.query("SELECT i.org_id, i.name, i.type, i.policy, i.shadow, i.key_hash, "
                   "i.rate_limit_per_minute, i.heartbeat, coalesce(h.id, 0) "
                   "FROM integration i LEFT JOIN heartbeat h ON i.heartbeat <> '' "
                   "AND h.org_id = i.org_id AND h.name = i.heartbeat "
                   "WHERE i.key_hash = $1",
                   key_hash);
  if (r.rows() == 0)
    return std::nullopt;
  return integration_row{r.int64(0, 0),
                         r.str(0, 1),
                         r.str(0, 2),
                         r.str(0, 3),
                         r.boolean(0, 4),
                         r.str(0, 5),
                         static_cast<int>(r.int64(0, 6)),
                         r.str(0, 7),
                         r.int64(0, 8)};
}

} // namespace belay::storage
