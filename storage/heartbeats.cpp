#include "storage/heartbeats.hpp"

#include "storage/columns.hpp"
#include "storage/db.hpp"

#include <algorithm>
#include <map>

namespace belay::storage {

namespace {

// Every column of a heartbeat (storage/columns.hpp).
// clang-format off
#define BELAY_HEARTBEAT_COLUMN_LIST(first, next)                                         \
  first(org_id, "org_id")                                                                \
  next(id, "id")                                                                         \
  next(name, "name")                                                                     \
  next(policy, "policy")                                                                 \
  next(period_seconds, "period_seconds")                                                 \
  next(grace_seconds, "grace_seconds")                                                   \
  next(alert_if_never_pinged, "alert_if_never_pinged")                                   \
  next(state, "state")                                                                   \
  next(created_at, "belay_us(created_at)")                                               \
  next(last_ping_at, "belay_us(last_ping_at)")                                           \
  next(late_at, "belay_us(late_at)")                                                     \
  next(down_at, "belay_us(down_at)")                                                     \
  next(pending, "pending")                                                               \
  next(version, "version")                                                               \
  next(owner, "coalesce(owner, '')")
// clang-format on
#define BELAY_HEARTBEAT_COLUMNS BELAY_SELECT_LIST(BELAY_HEARTBEAT_COLUMN_LIST)

constexpr auto read_heartbeat_row = BELAY_ROW_READER(BELAY_HEARTBEAT_COLUMN_LIST);

heartbeat_record read_heartbeat(const result& r, int row) {
  return read_row<heartbeat_record>(r, row, read_heartbeat_row);
}

std::vector<heartbeat_record> read_all(const result& r) {
  return read_rows<heartbeat_record>(r, read_heartbeat_row);
}

// A success: up, due again a period from now. A start: down within grace unless due
// sooner. A fail: down now, its incident to open. A success after down (or with a side
// effect still pending) has the incident to resolve.
const std::string pings_sql = R"sql(
UPDATE heartbeat h SET
  last_ping_at = belay_ts(p_at),
  state = CASE p_kind WHEN 'success' THEN 'up' WHEN 'fail' THEN 'down' ELSE h.state END,
  late_at = CASE p_kind
    WHEN 'success' THEN belay_ts(p_at) + h.period_seconds * interval '1 second'
    WHEN 'fail' THEN NULL
    ELSE h.late_at END,
  down_at = CASE p_kind
    WHEN 'success' THEN belay_ts(p_at) + (h.period_seconds + h.grace_seconds) * interval '1 second'
    WHEN 'fail' THEN NULL
    ELSE CASE WHEN h.state = 'down' THEN NULL
         ELSE least(h.down_at, belay_ts(p_at) + h.grace_seconds * interval '1 second') END
    END,
  pending = CASE p_kind
    WHEN 'success' THEN CASE WHEN h.state = 'down' OR h.pending <> '' THEN 'resolve' ELSE '' END
    WHEN 'fail' THEN 'failed'
    ELSE h.pending END,
  version = h.version + 1
FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[]) AS p(p_org, p_id, p_kind, p_at)
WHERE h.org_id = p_org AND h.id = p_id
RETURNING )sql" BELAY_HEARTBEAT_COLUMNS;

const std::string late_sql = R"sql(
UPDATE heartbeat SET state = 'late', version = version + 1
WHERE org_id = $1 AND id = $2 AND version = $3 AND owner = $4
  AND state IN ('new', 'up') AND late_at <= belay_ts($5)
RETURNING )sql" BELAY_HEARTBEAT_COLUMNS;

const std::string down_sql = R"sql(
UPDATE heartbeat SET state = 'down', late_at = NULL, down_at = NULL, pending = 'missed',
  version = version + 1
WHERE org_id = $1 AND id = $2 AND version = $3 AND owner = $4
  AND state <> 'down' AND down_at <= belay_ts($5)
RETURNING )sql" BELAY_HEARTBEAT_COLUMNS;

// Not a new version: the monitor's schedule is unchanged.
const std::string settle_sql = R"sql(
UPDATE heartbeat SET pending = '' WHERE org_id = $1 AND id = $2 AND pending = $3
RETURNING )sql" BELAY_HEARTBEAT_COLUMNS;

const std::string read_sql = R"sql(
SELECT )sql" BELAY_HEARTBEAT_COLUMNS R"sql(
FROM heartbeat WHERE org_id = $1 AND id = $2)sql";

// Unowned monitors (provisioned since), and those whose holder's node lease lapsed
// (the row of a lapsed node is gone, or expired) while the monitor's own lease did too.
// The first holder stamps created_at on its clock and, with alertIfNeverPinged, the
// deadlines of a monitor never pinged.
const std::string take_sql = R"sql(
WITH free AS (
  SELECT h.org_id AS free_org, h.id AS free_id FROM heartbeat h
  LEFT JOIN node_lease n ON n.node = h.owner AND n.expires_at >= belay_ts($2)
  WHERE h.owner IS NULL
     OR (h.owner <> $1 AND coalesce(h.lease_expires_at < belay_ts($2), true)
         AND n.node IS NULL)
  FOR UPDATE OF h SKIP LOCKED
)
UPDATE heartbeat SET owner = $1, lease_expires_at = belay_ts($3),
  created_at = coalesce(created_at, belay_ts($2)),
  late_at = CASE WHEN created_at IS NULL AND alert_if_never_pinged
                 THEN belay_ts($2) + period_seconds * interval '1 second' ELSE late_at END,
  down_at = CASE WHEN created_at IS NULL AND alert_if_never_pinged
                 THEN belay_ts($2) + (period_seconds + grace_seconds) * interval '1 second'
                 ELSE down_at END,
  version = version + 1
FROM free WHERE org_id = free_org AND id = free_id)sql";

const std::string mine_sql = R"sql(
SELECT )sql" BELAY_HEARTBEAT_COLUMNS R"sql( FROM heartbeat h
LEFT JOIN unnest($2::bigint[], $3::bigint[]) AS k(known_id, known_version)
  ON k.known_id = h.id
WHERE h.owner = $1 AND (k.known_id IS NULL OR k.known_version <> h.version
                        OR h.pending <> ''))sql";

const std::string gone_sql = R"sql(
SELECT k.known_id FROM unnest($2::bigint[]) AS k(known_id)
LEFT JOIN heartbeat h ON h.id = k.known_id AND h.owner = $1 WHERE h.id IS NULL)sql";

const std::string list_sql = R"sql(
SELECT )sql" BELAY_HEARTBEAT_COLUMNS R"sql(
FROM heartbeat WHERE org_id = $1 ORDER BY name)sql";

const char* kind_name(ping_kind k) {
  switch (k) {
  case ping_kind::start:
    return "start";
  case ping_kind::fail:
    return "fail";
  default:
    return "success";
  }
}

std::vector<heartbeat_record> write_round(connection& c,
                                          const std::vector<heartbeat_ping>& round) {
  std::vector<int64_t> orgs, ids, ats;
  std::string kinds = "{";
  for (auto& p : round) {
    orgs.push_back(p.org_id);
    ids.push_back(p.id);
    ats.push_back(p.at);
    if (kinds.size() > 1)
      kinds += ",";
    kinds += kind_name(p.kind);
  }
  kinds += "}";
  return read_all(c.query(pings_sql, bigint_array(orgs), bigint_array(ids), kinds,
                          bigint_array(ats)));
}

} // namespace

std::vector<std::optional<heartbeat_record>>
record_pings(connection& c, const std::vector<heartbeat_ping>& pings) {
  struct last_ping {
    size_t round, item;
    ping_kind kind;
  };
  std::map<std::pair<int64_t, int64_t>, last_ping> last;
  std::vector<std::vector<heartbeat_ping>> rounds;
  std::vector<std::pair<size_t, size_t>> where;
  where.reserve(pings.size());
  for (auto& p : pings) {
    auto key = std::make_pair(p.org_id, p.id);
    auto it = last.find(key);
    if (it != last.end() && it->second.kind == p.kind) {
      auto& merged = rounds[it->second.round][it->second.item];
      merged.at = std::max(merged.at, p.at);
      where.emplace_back(it->second.round, it->second.item);
      continue;
    }
    size_t round = it == last.end() ? 0 : it->second.round + 1;
    if (rounds.size() <= round)
      rounds.resize(round + 1);
    rounds[round].push_back(p);
    last[key] = {round, rounds[round].size() - 1, p.kind};
    where.emplace_back(round, rounds[round].size() - 1);
  }
  auto work = [&] {
    std::vector<std::map<std::pair<int64_t, int64_t>, heartbeat_record>> written(
        rounds.size());
    for (size_t r = 0; r < rounds.size(); ++r)
      for (auto& h : write_round(c, rounds[r]))
        written[r].emplace(std::make_pair(h.org_id, h.id), std::move(h));
    std::vector<std::optional<heartbeat_record>> out;
    out.reserve(pings.size());
    for (auto [r, item] : where) {
      auto& p = rounds[r][item];
      auto it = written[r].find({p.org_id, p.id});
      out.push_back(it == written[r].end() ? std::nullopt
                                           : std::optional<heartbeat_record>{it->second});
    }
    return out;
  };
  if (rounds.size() <= 1 || c.in_transaction())
    return work();
  return transaction(c, work);
}

heartbeat_changed change_heartbeat(connection& c, const heartbeat_change& change) {
  auto current = [&]() -> std::optional<heartbeat_record> {
    auto r = c.query(read_sql, change.org_id, change.id);
    if (r.rows() == 0)
      return std::nullopt;
    return read_heartbeat(r, 0);
  };
  std::optional<result> r;
  switch (change.step) {
  case heartbeat_step::late:
    r = c.query(late_sql, change.org_id, change.id, change.version, change.owner,
                change.at);
    break;
  case heartbeat_step::down:
    r = c.query(down_sql, change.org_id, change.id, change.version, change.owner,
                change.at);
    break;
  case heartbeat_step::settle:
    r = c.query(settle_sql, change.org_id, change.id, change.pending);
    break;
  case heartbeat_step::read:
    return {false, current()};
  }
  if (r->rows() == 1)
    return {true, read_heartbeat(*r, 0)};
  return {false, current()};
}

heartbeat_holdings sweep_heartbeats(connection& c, const heartbeat_sweep& sweep) {
  auto work = [&] {
    heartbeat_holdings out;
    c.query(take_sql, sweep.owner.node, sweep.now, sweep.owner.lease_until);
    out.held = read_all(c.query(mine_sql, sweep.owner.node, bigint_array(sweep.known_ids),
                                bigint_array(sweep.known_versions)));
    auto gone = c.query(gone_sql, sweep.owner.node, bigint_array(sweep.known_ids));
    for (int i = 0; i < gone.rows(); ++i)
      out.gone.push_back(gone.int64(i, 0));
    return out;
  };
  return c.in_transaction() ? work() : transaction(c, work);
}

std::vector<heartbeat_record> list_heartbeats(connection& c, int64_t org_id) {
  return read_all(c.query(list_sql, org_id));
}

std::optional<heartbeat_key> find_heartbeat(connection& c, const std::string& key_hash) {
  auto r =
      c.query("SELECT org_id, id, key_hash FROM heartbeat WHERE key_hash = $1", key_hash);
  if (r.rows() == 0)
    return std::nullopt;
  return heartbeat_key{r.int64(0, 0), r.int64(0, 1), r.str(0, 2)};
}

} // namespace belay::storage
