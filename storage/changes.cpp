#include "storage/changes.hpp"

#include "storage/columns.hpp"
#include "storage/db.hpp"

namespace belay::storage {

namespace {

// Every column of a change (storage/columns.hpp).
// clang-format off
#define BELAY_CHANGE_COLUMN_LIST(first, next)                                            \
  first(id, "id")                                                                        \
  next(summary, "summary")                                                               \
  next(source, "source")                                                                 \
  next(timestamp, "belay_us(happened_at)")                                               \
  next(integration, "integration")                                                       \
  next(details_json, "details::text")                                                    \
  next(links_json, "links::text")
// clang-format on
#define BELAY_CHANGE_COLUMNS BELAY_SELECT_LIST(BELAY_CHANGE_COLUMN_LIST)

std::vector<protocol::change_record> changes_of(const result& r, int limit) {
  return read_rows<protocol::change_record>(r, BELAY_ROW_READER(BELAY_CHANGE_COLUMN_LIST),
                                            limit);
}

const std::string record_sql = R"sql(
INSERT INTO change_event (org_id, integration, summary, source, happened_at, received_at,
                          details, links)
VALUES ($1, $2, $3, $4, belay_ts($5), belay_ts($6), $7::jsonb, $8::jsonb)
RETURNING id)sql";

// A page of an org's changes, newest first, before change $2 (0: from the newest).
const std::string list_sql = R"sql(
SELECT )sql" BELAY_CHANGE_COLUMNS R"sql( FROM change_event
WHERE org_id = $1 AND ($2::bigint = 0 OR id < $2::bigint) ORDER BY id DESC LIMIT $3)sql";

// The changes that happened in the reach before $3, newest first.
const std::string before_sql = R"sql(
SELECT )sql" BELAY_CHANGE_COLUMNS R"sql( FROM change_event
WHERE org_id = $1 AND happened_at > belay_ts($2) AND happened_at <= belay_ts($3)
ORDER BY happened_at DESC, id DESC LIMIT $4)sql";

} // namespace

int64_t record_change(connection& c, int64_t org_id, const std::string& integration,
                      const protocol::change_event& e, micros now) {
  return c
      .query(record_sql, org_id, integration, e.summary, e.source,
             e.timestamp.value_or(now), now, e.details_json, e.links_json)
      .int64(0, 0);
}

change_page list_changes(connection& c, int64_t org_id, int limit, int64_t after_id) {
  auto r = c.query(list_sql, org_id, after_id, limit + 1);
  change_page page;
  page.changes = changes_of(r, limit);
  if (r.rows() > limit)
    page.next_after = page.changes.back().id;
  return page;
}

std::vector<protocol::change_record> changes_before(connection& c, int64_t org_id,
                                                    micros opened_at, int limit) {
  auto r = c.query(before_sql, org_id, opened_at - change_reach, opened_at, limit);
  return changes_of(r, limit);
}

} // namespace belay::storage
