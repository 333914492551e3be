#include "storage/audit.hpp"

#include "storage/db.hpp"

#include <chrono>

namespace belay::storage {

namespace {

constexpr const char* lock_head_sql =
    "SELECT last_id, last_hash FROM audit_head WHERE id = 1 FOR UPDATE";

constexpr const char* append_sql = R"sql(
WITH row AS (
  INSERT INTO audit (id, at, org_id, actor, via, source_ip, action, object_kind,
                     object_name, changes, prev_hash, hash)
  VALUES ($1, belay_ts($2), nullif($3, 0), $4, $5, $6, $7, $8, $9, $10::json, $11, $12)
  RETURNING id, hash)
UPDATE audit_head h SET last_id = row.id, last_hash = row.hash FROM row WHERE h.id = 1)sql";

#define BELAY_AUDIT_COLUMNS                                                              \
  "id, belay_us(at), coalesce(org_id, 0), actor, via, source_ip, action, object_kind, "  \
  "object_name, changes::text, prev_hash, hash"

// Newest first, the caller's org only, optionally one actor's or one action's.
const std::string list_sql = R"sql(
SELECT )sql" BELAY_AUDIT_COLUMNS R"sql( FROM audit
WHERE org_id = $1 AND ($2::bigint = 0 OR id < $2::bigint)
  AND ($3 = '' OR actor = $3) AND ($4 = '' OR action = $4)
ORDER BY id DESC LIMIT $5)sql";

const std::string chain_page_sql =
    R"sql(
SELECT )sql" BELAY_AUDIT_COLUMNS
    R"sql( FROM audit WHERE id >= $1 ORDER BY id LIMIT $2)sql";

constexpr const char* head_sql =
    "SELECT last_id, last_hash, first_id, first_prev_hash FROM audit_head WHERE id = 1";

constexpr const char* any_before_sql =
    "SELECT 1 FROM audit WHERE at < belay_ts($1) LIMIT 1";
constexpr const char* lock_whole_head_sql =
    "SELECT last_id, last_hash, first_id FROM audit_head WHERE id = 1 FOR UPDATE";
// The oldest row to keep: the first written at or after the cut-off, within `limit` of
// the oldest kept.
constexpr const char* new_first_sql = R"sql(
SELECT id, prev_hash FROM audit
WHERE id >= $1 AND (at >= belay_ts($2) OR id >= $1 + $3) ORDER BY id LIMIT 1)sql";
constexpr const char* prune_sql = "DELETE FROM audit WHERE id < $1";
constexpr const char* move_first_sql =
    "UPDATE audit_head SET first_id = $1, first_prev_hash = $2 WHERE id = 1";

protocol::audit_entry read_entry(const result& r, int i) {
  protocol::audit_entry e;
  e.id = r.int64(i, 0);
  e.at = r.int64(i, 1);
  e.org_id = r.int64(i, 2);
  e.actor = r.str(i, 3);
  e.via = r.str(i, 4);
  e.source_ip = r.str(i, 5);
  e.action = r.str(i, 6);
  e.object_kind = r.str(i, 7);
  e.object_name = r.str(i, 8);
  e.changes_json = r.str(i, 9);
  e.prev_hash = r.str(i, 10);
  e.hash = r.str(i, 11);
  return e;
}

} // namespace

protocol::audit_entry append_audit(connection& c, protocol::audit_entry e) {
  if (e.at == 0) // a command's, not the logic's: the wall clock
    e.at = std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
               .count();
  auto work = [&] {
    auto head = c.exec(lock_head_sql);
    e.id = head.int64(0, 0) + 1;
    e.prev_hash = head.str(0, 1);
    e.hash = protocol::audit_hash(e);
    c.query(append_sql, e.id, e.at, e.org_id, e.actor, e.via, e.source_ip, e.action,
            e.object_kind, e.object_name, e.changes_json, e.prev_hash, e.hash);
    return e;
  };
  return c.in_transaction() ? work() : transaction(c, work);
}

protocol::audit_entry audit_row(const attribution& who, micros at, int64_t org_id,
                                std::string action, std::string object_kind,
                                std::string object_name, std::string changes_json) {
  protocol::audit_entry e;
  e.at = at;
  e.org_id = org_id;
  e.actor = who.actor;
  e.via = who.via;
  e.source_ip = who.source_ip;
  e.action = std::move(action);
  e.object_kind = std::move(object_kind);
  e.object_name = std::move(object_name);
  e.changes_json = std::move(changes_json);
  return e;
}

audit_page list_audit(connection& c, const audit_filter& f) {
  auto r = c.query(list_sql, f.org_id, f.before_id, f.actor, f.action, f.limit + 1);
  audit_page page;
  for (int i = 0; i < r.rows() && i < f.limit; ++i)
    page.entries.push_back(read_entry(r, i));
  if (r.rows() > f.limit)
    page.next_before = page.entries.back().id;
  return page;
}

audit_verification verify_audit(connection& c) {
  // One snapshot: rows appended meanwhile are neither seen nor expected.
  return transaction(c, [&] {
    c.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    auto head = c.exec(head_sql);
    protocol::chain_anchor anchor{head.int64(0, 2), head.str(0, 3), head.int64(0, 0),
                                  head.str(0, 1)};
    audit_verification out;
    out.head_id = anchor.last_id;
    out.head_hash = anchor.last_hash;
    int64_t expected = anchor.first_id;
    std::string prev = anchor.first_prev;
    constexpr int page = 5000;
    for (;;) {
      auto r = c.query(chain_page_sql, expected, page);
      std::vector<protocol::audit_entry> rows;
      for (int i = 0; i < r.rows(); ++i)
        rows.push_back(read_entry(r, i));
      const auto before = expected;
      out.broken = protocol::check_chain(rows, expected, prev);
      out.rows += expected - before;
      if (out.broken)
        return out;
      if (r.rows() < page)
        break;
    }
    out.broken = protocol::check_chain_end(expected, prev, anchor);
    return out;
  });
}

size_t prune_audit(connection& c, micros before, int limit) {
  if (c.query(any_before_sql, before).rows() == 0)
    return 0; // the common case: no lock taken
  auto work = [&]() -> size_t {
    auto head = c.exec(lock_whole_head_sql);
    const auto last_id = head.int64(0, 0);
    const auto first_id = head.int64(0, 2);
    auto keep = c.query(new_first_sql, first_id, before, limit);
    // Every row is past retention: the chain starts after the newest.
    int64_t new_first = keep.rows() ? keep.int64(0, 0) : last_id + 1;
    std::string new_prev = keep.rows() ? keep.str(0, 1) : head.str(0, 1);
    if (new_first <= first_id)
      return 0;
    auto gone = c.query(prune_sql, new_first);
    c.query(move_first_sql, new_first, new_prev);
    (void)gone;
    return static_cast<size_t>(new_first - first_id);
  };
  return c.in_transaction() ? work() : transaction(c, work);
}

} // namespace belay::storage
