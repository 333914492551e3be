#include "storage/keys.hpp"

#include "storage/columns.hpp"
#include "storage/db.hpp"

#include <rapidjson/document.h>

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
  next(heartbeat_id, "coalesce(h.id, 0)")                                                \
  next(group_by, "array_to_json(i.group_by)::text")
// clang-format on

const std::string integration_sql = R"sql(
SELECT )sql" BELAY_SELECT_LIST(BELAY_INTEGRATION_COLUMN_LIST) R"sql(
FROM integration i LEFT JOIN heartbeat h ON i.heartbeat <> ''
  AND h.org_id = i.org_id AND h.name = i.heartbeat
WHERE i.key_hash = $1)sql";

} // namespace

// A JSON array of strings (array_to_json of a text[]) into its strings.
void read_column(const result& r, int row, int col, std::vector<std::string>& out) {
  rapidjson::Document doc;
  auto text = r.text(row, col);
  doc.Parse(text.data(), text.size());
  out.clear();
  if (doc.HasParseError() || !doc.IsArray())
    return;
  for (auto& item : doc.GetArray())
    if (item.IsString())
      out.emplace_back(item.GetString(), item.GetStringLength());
}

std::optional<api_key_row> find_api_key(connection& c, const std::string& key_hash) {
  auto r = c.query("SELECT org_id, key_hash, coalesce(name, ''), scope FROM api_key "
                   "WHERE key_hash = $1",
                   key_hash);
  if (r.rows() == 0)
    return std::nullopt;
  return api_key_row{r.int64(0, 0), r.str(0, 1), r.str(0, 2), r.str(0, 3)};
}

std::optional<integration_row> find_integration(connection& c,
                                                const std::string& key_hash) {
  auto r = c.query(integration_sql, key_hash);
  if (r.rows() == 0)
    return std::nullopt;
  return read_row<integration_row>(r, 0, BELAY_ROW_READER(BELAY_INTEGRATION_COLUMN_LIST));
}

std::vector<std::string> key_hashes(connection& c, key_table table) {
  const char* sql = table == key_table::api_key       ? "SELECT key_hash FROM api_key"
                    : table == key_table::integration ? "SELECT key_hash FROM integration"
                    : table == key_table::heartbeat
                        ? "SELECT key_hash FROM heartbeat"
                        : "SELECT token_hash FROM personal_token";
  auto r = c.query(sql);
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(r.str(i, 0));
  return out;
}

} // namespace belay::storage
