#include "storage/keys.hpp"

#include "storage/columns.hpp"
#include "storage/db.hpp"

namespace belay::storage {

namespace {

// An integration, with the id of the heartbeat its Watchdog alert pings (0: none).
// clang-format off
#define BELAY_INTEGRATION_COLUMN_LIST(first, next)                                       \
  first(org_id, "i.org_id")                                                              \
  next(name, "i.name")                                                                   \
  next(type, "i.type")                                                                   \
  next(policy, "i.policy")                                                               \
  next(shadow, "i.shadow")                                                               \
  next(key_hash, "i.key_hash")                                                           \
  next(rate_limit_per_minute, "i.rate_limit_per_minute")                                 \
  next(heartbeat, "i.heartbeat")                                                         \
  next(heartbeat_id, "coalesce(h.id, 0)")
// clang-format on

const std::string integration_sql = R"sql(
SELECT )sql" BELAY_SELECT_LIST(BELAY_INTEGRATION_COLUMN_LIST) R"sql(
FROM integration i LEFT JOIN heartbeat h ON i.heartbeat <> ''
  AND h.org_id = i.org_id AND h.name = i.heartbeat
WHERE i.key_hash = $1)sql";

} // namespace

std::optional<std::pair<int64_t, std::string>> find_api_key(connection& c,
                                                            const std::string& key_hash) {
  auto r = c.query("SELECT org_id, key_hash FROM api_key WHERE key_hash = $1", key_hash);
  if (r.rows() == 0)
    return std::nullopt;
  return std::make_pair(r.int64(0, 0), r.str(0, 1));
}

std::optional<integration_row> find_integration(connection& c,
                                                const std::string& key_hash) {
  auto r = c.query(integration_sql, key_hash);
  if (r.rows() == 0)
    return std::nullopt;
  return read_row<integration_row>(r, 0, BELAY_ROW_READER(BELAY_INTEGRATION_COLUMN_LIST));
}

} // namespace belay::storage
