#include "storage/changes.hpp"

#include "storage/db.hpp"

namespace belay::storage {

namespace {

#define BELAY_CHANGE_COLUMNS                                                             \
  "id, summary, source, belay_us(happened_at), integration, details::text, links::text"

protocol::change_record change_of(const result& r, int row) {
  return {r.int64(row, 0), r.str(row, 1), r.str(row, 2), r.int64(row, 3),
          r.str(row, 4),   r.str(row, 5), r.str(row, 6)};
}

std::vector<protocol::change_record> changes_of(const result& r, int limit) {
  std::vector<protocol::change_record> out;
  for (int i = 0; i < r.rows() && i < limit; ++i)
    out.push_back(change_of(r, i));
  return out;
}

} // namespace

int64_t record_change(connection& c, int64_t org_id, const std::string& integration,
                      const protocol::change_event& e, micros now) {
  return c
      .query("INSERT INTO change_event (org_id, integration, summary, source, "
             "happened_at, received_at, details, links) VALUES ($1, $2, $3, $4, "
             "belay_ts($5), belay_ts($6), $7::jsonb, $8::jsonb) RETURNING id",
             org_id, integration, e.summary, e.source, e.timestamp.value_or(now), now,
             e.details_json, e.links_json)
      .int64(0, 0);
}

change_page list_changes(connection& c, int64_t org_id, int limit, int64_t after_id) {
  auto r = c.query("SELECT " BELAY_CHANGE_COLUMNS " FROM change_event WHERE org_id = $1 "
                   "AND ($2::bigint = 0 OR id < $2::bigint) ORDER BY id DESC LIMIT $3",
                   org_id, after_id, limit + 1);
  change_page page;
  page.changes = changes_of(r, limit);
  if (r.rows() > limit)
    page.next_after = page.changes.back().id;
  return page;
}

std::vector<protocol::change_record> changes_before(connection& c, int64_t org_id,
                                                    micros opened_at, int limit) {
  auto r = c.query("SELECT " BELAY_CHANGE_COLUMNS " FROM change_event WHERE org_id = $1 "
                   "AND happened_at > belay_ts($2) AND happened_at <= belay_ts($3) "
                   "ORDER BY happened_at DESC, id DESC LIMIT $4",
                   org_id, opened_at - change_reach, opened_at, limit);
  return changes_of(r, limit);
}

} // namespace belay::storage
