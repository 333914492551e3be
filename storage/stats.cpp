#include "storage/stats.hpp"

#include "storage/db.hpp"

namespace belay::storage {

namespace {

const std::string unresolved_sql = R"sql(
SELECT status, count(*) FROM incident WHERE status <> 'RESOLVED' GROUP BY status)sql";

// Observability only, so the database clock is fine here.
const std::string outbox_sql = R"sql(
SELECT count(*), coalesce(extract(epoch FROM now() - min(next_attempt_at)
                            FILTER (WHERE status = 'PENDING' AND next_attempt_at <= now())),
                          0)::float8
FROM delivery WHERE status IN ('PENDING', 'CLAIMED'))sql";

} // namespace

std::map<std::string, int64_t> unresolved_by_status(connection& c) {
  std::map<std::string, int64_t> out{{"OPEN", 0}, {"ACKNOWLEDGED", 0}, {"EXHAUSTED", 0}};
  auto r = c.exec(unresolved_sql);
  for (int i = 0; i < r.rows(); ++i)
    out[r.str(i, 0)] = r.int64(i, 1);
  return out;
}

outbox_stats outbox(connection& c) {
  auto r = c.exec(outbox_sql);
  return {r.int64(0, 0), r.float8(0, 1)};
}

} // namespace belay::storage
