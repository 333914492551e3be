#include "storage/incidents.hpp"

#include "protocol/policy_json.hpp"
#include "storage/db.hpp"
#include "storage/incident_rows.hpp"
#include "storage/statements.hpp"

#include <mutex>
#include <unordered_map>

namespace belay::storage {

namespace {

// One parsed policy per distinct ladder text among the open incidents: storage workers
// share it, and it goes when its last incident does.
ladder_ptr shared_ladder(std::string_view text, int64_t incident_id) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::weak_ptr<const policy>> parsed;
  std::lock_guard lock{mutex};
  auto& slot = parsed[std::string{text}];
  if (auto ladder = slot.lock())
    return ladder;
  auto ladder = protocol::parse_policy(text);
  if (auto* err = std::get_if<protocol::error>(&ladder)) {
    parsed.erase(std::string{text});
    throw db_error("incident " + std::to_string(incident_id) +
                       " has an unreadable ladder: " + err->field + " " + err->message,
                   "");
  }
  auto shared = std::make_shared<const policy>(std::move(std::get<policy>(ladder)));
  slot = shared;
  if (parsed.size() > 64) // forget definitions no incident holds any more
    for (auto it = parsed.begin(); it != parsed.end();)
      it = it->second.expired() ? parsed.erase(it) : std::next(it);
  return shared;
}

} // namespace

held_incident read_held(const result& r, int row) {
  held_incident h;
  auto& i = h.incident;
  i.org_id = r.int64(row, 0);
  i.id = r.int64(row, 1);
  i.dedup_key = r.str(row, 2);
  i.title = r.str(row, 3);
  i.severity = r.str(row, 4);
  i.status = r.str(row, 5);
  i.policy = r.str(row, 6);
  i.current_step = static_cast<int>(r.int64(row, 7));
  i.loop = static_cast<int>(r.int64(row, 8));
  i.event_count = r.int64(row, 9);
  i.created_at = r.int64(row, 10);
  i.last_seen_at = r.int64(row, 11);
  i.next_fire_at = r.opt_int64(row, 12);
  i.acked_at = r.opt_int64(row, 13);
  i.acked_by = r.str(row, 14);
  i.resolved_at = r.opt_int64(row, 15);
  i.exhausted_at = r.opt_int64(row, 16);
  i.version = r.int64(row, 17);
  i.shadow = r.boolean(row, 18);
  i.acked_via = r.str(row, 19);
  i.resolved_by = r.str(row, 20);
  i.resolved_via = r.str(row, 21);
  i.reopen_count = static_cast<int>(r.int64(row, 22));
  i.integration = r.str(row, 23);
  i.held_until = r.opt_int64(row, 24);
  if (r.null(row, 25))
    return h;
  h.ladder = shared_ladder(r.text(row, 25), i.id);
  return h;
}

namespace {

std::optional<held_incident> first(const result& r) {
  if (r.rows() == 0)
    return std::nullopt;
  return read_held(r, 0);
}

// The compare-and-set of an ack or resolve, by id or by dedup key, cancelling the
// deliveries nobody has claimed yet in the same statement.
std::string transition_sql(transition kind, bool by_key) {
  std::string set, from;
  if (kind == transition::ack) {
    set = "status = 'ACKNOWLEDGED', acked_at = belay_ts($3), acked_by = $4, "
          "acked_via = $5, next_fire_at = NULL, held_until = NULL";
    from = "('OPEN', 'EXHAUSTED')";
  } else {
    set =
        "status = 'RESOLVED', resolved_at = belay_ts($3), resolved_by = NULLIF($4, ''), "
        "resolved_via = $5, resume_at = next_fire_at, next_fire_at = NULL, "
        "held_until = NULL";
    from = "('OPEN', 'ACKNOWLEDGED', 'EXHAUSTED')";
  }
  std::string which = by_key ? "dedup_key = $2" : "id = $2::bigint";
  std::string kind_name = kind == transition::ack ? "acknowledged" : "resolved";
  return "WITH cas AS (UPDATE incident SET " + set +
         ", version = version + 1 WHERE org_id = $1 AND " + which + " AND status IN " +
         from +
         " RETURNING " BELAY_INCIDENT_COLUMNS
         "), cancelled AS (UPDATE delivery d SET status = 'CANCELLED' FROM cas "
         "WHERE d.org_id = cas.org_id AND d.incident_id = cas.id AND d.status = "
         "'PENDING' AND d.update_of IS NULL "
         "RETURNING d.id), "
         // One status update per contact that asked for them and was paged (section 10).
         "updates AS (INSERT INTO delivery (org_id, incident_id, loop, step, channel, "
         "target, idempotency_key, status, next_attempt_at, created_at, user_name, "
         "update_of) SELECT DISTINCT ON (d.channel, d.target) d.org_id, d.incident_id, "
         "d.loop, d.step, d.channel, d.target, d.incident_id || ':" +
         kind_name +
         ":' || d.channel || ':' || d.target, 'PENDING', belay_ts($3), belay_ts($3), "
         "d.user_name, '" +
         kind_name +
         "' FROM cas JOIN delivery d ON d.org_id = cas.org_id AND d.incident_id = cas.id "
         "WHERE d.status_updates AND d.attempts > 0 AND d.update_of IS NULL AND NOT "
         "cas.shadow ORDER BY d.channel, d.target, d.id DESC "
         "ON CONFLICT (idempotency_key) DO NOTHING), note AS (INSERT INTO timeline "
         "(org_id, incident_id, at, kind, "
         "detail) SELECT cas.org_id, cas.id, belay_ts($3), '" +
         kind_name +
         "', jsonb_build_object('by', $4::text, 'via', $5::text, 'cancelledDeliveries', "
         "(SELECT count(*) FROM cancelled)) FROM cas) "
         // Delivered at commit to every node, so that the one holding the incident
         // hears of it at once (DESIGN.md section 9).
         "SELECT *, pg_notify('" +
         std::string{incident_channel} + "', cas.org_id || ' ' || cas.id) FROM cas";
}

const std::string latest_by_id_sql =
    "SELECT " BELAY_INCIDENT_COLUMNS
    " FROM incident WHERE org_id = $1 AND id = $2::bigint";
const std::string latest_by_key_sql =
    "SELECT " BELAY_INCIDENT_COLUMNS
    " FROM incident WHERE org_id = $1 AND dedup_key = $2 "
    "ORDER BY (status <> 'RESOLVED') DESC, id DESC LIMIT 1";

const std::string exhaust_sql = R"sql(
WITH cas AS (
  UPDATE incident SET status = 'EXHAUSTED', next_fire_at = NULL, version = version + 1
  WHERE org_id = $1 AND id = $2 AND status = 'OPEN' AND version = $3
  RETURNING )sql" BELAY_INCIDENT_COLUMNS R"sql(
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT cas.org_id, cas.id, belay_ts($4), 'exhausted', '{}'::jsonb FROM cas
)
SELECT * FROM cas)sql";

// A page of this node's incidents, unowned ones, and those whose own lease lapsed while
// their owner holds no node lease (renew_lease has just taken those of nodes whose leases
// lapsed): $1 node, $2 now, $3 the lease taken, after the key ($4, $5), at most $6. The
// UPDATE repeats the test, which a row changed meanwhile must still pass.
// Rows this node owns already are read, not rewritten: the node lease, renewed first in
// the same transaction, keeps them this node's however old their own leases. A restart
// with 1,000,000 open rewrote every row: 1.7 GB of WAL (bench/README.md).
std::string adoptable(const std::string& x) {
  return x + ".status <> 'RESOLVED' AND (" + x + ".owner IS NULL OR " + x +
         ".owner = $1 OR (" + x +
         ".lease_expires_at < belay_ts($2) AND NOT EXISTS (SELECT 1 FROM node_lease n "
         "WHERE n.node = " +
         x + ".owner AND n.expires_at >= belay_ts($2))))";
}
const std::string adopt_sql =
    "WITH page AS (SELECT x.org_id AS p_org, x.id AS p_id, coalesce(x.owner = $1, false) "
    "AS mine FROM incident x WHERE (x.org_id, x.id) > ($4::bigint, $5::bigint) AND " +
    adoptable("x") +
    " ORDER BY x.org_id, x.id LIMIT $6), "
    "taken AS (UPDATE incident i SET owner = $1, lease_expires_at = belay_ts($3) "
    "FROM page WHERE NOT mine AND i.org_id = p_org AND i.id = p_id AND " +
    adoptable("i") + " RETURNING " BELAY_INCIDENT_COLUMNS ") " +
    "SELECT " BELAY_INCIDENT_COLUMNS " FROM incident JOIN page ON org_id = p_org AND "
    "id = p_id WHERE mine UNION ALL SELECT * FROM taken";

// The overdue incidents no live node holds (adopt_orphans): $1 node, $2 overdue before,
// $3 now, $4 the lease taken, $5 how many. No index leads with next_fire_at (firing a
// step then updates its row in place): the sweep reads the unresolved incidents, 12 ms
// for 100,000 of them here. The live leases are joined, not looked up row by row with
// NOT EXISTS: that subplan's estimate (8 per row) made PostgreSQL compile the statement
// with JIT, 400 ms each pass.
const std::string orphans_sql = R"sql(
WITH orphan AS (
  SELECT i.org_id AS orphan_org, i.id AS orphan_id FROM incident i
  LEFT JOIN node_lease n ON n.node = i.owner AND n.expires_at >= belay_ts($3)
  WHERE i.status <> 'RESOLVED' AND i.next_fire_at < belay_ts($2)
    AND (i.owner IS NULL OR i.owner = $1
         OR (coalesce(i.lease_expires_at < belay_ts($3), true) AND n.node IS NULL))
  ORDER BY i.next_fire_at LIMIT $5
  FOR UPDATE OF i SKIP LOCKED
)
UPDATE incident SET owner = $1, lease_expires_at = belay_ts($4)
FROM orphan WHERE org_id = orphan_org AND id = orphan_id
RETURNING )sql" BELAY_INCIDENT_COLUMNS;

// xmax is 0 only in a row this statement inserted.
const std::string renew_sql =
    "INSERT INTO node_lease (node, expires_at) VALUES ($1, belay_ts($2)) "
    "ON CONFLICT (node) DO UPDATE SET expires_at = EXCLUDED.expires_at "
    "RETURNING xmax = 0";

const std::string lapsed_sql = "DELETE FROM node_lease WHERE node <> $1 AND expires_at < "
                               "belay_ts($2) RETURNING node";

// No index leads with owner: this scan runs only when a node's lease has lapsed.
const std::string take_over_sql =
    "UPDATE incident SET owner = $1, lease_expires_at = belay_ts($3) "
    "WHERE status <> 'RESOLVED' AND owner = $2 RETURNING " BELAY_INCIDENT_COLUMNS;

// The incidents of `keys`, through the primary key (org_id, id): $1 orgs, $2 ids.
#define BELAY_AMONG_KEYS                                                                 \
  "(org_id, id) IN (SELECT * FROM unnest($1::bigint[], $2::bigint[]))"

const std::string settled_among_sql =
    "SELECT " BELAY_INCIDENT_COLUMNS " FROM incident WHERE " BELAY_AMONG_KEYS
    " AND status IN ('ACKNOWLEDGED', 'RESOLVED')";

const std::string owned_elsewhere_sql = "SELECT id FROM incident WHERE " BELAY_AMONG_KEYS
                                        " AND owner <> $3 AND status <> 'RESOLVED'";

// The orgs and the ids of `keys` as two bigint[] parameters: {1,2,3}.
std::pair<std::string, std::string> key_arrays(const incident_keys& keys) {
  std::vector<int64_t> orgs, ids;
  for (auto& [org, id] : keys) {
    orgs.push_back(org);
    ids.push_back(id);
  }
  return {bigint_array(orgs), bigint_array(ids)};
}

const std::string list_sql =
    "SELECT " BELAY_INCIDENT_COLUMNS
    " FROM incident WHERE org_id = $1 AND ($2 = '' OR status = $2) "
    "AND ($3::bigint = 0 OR id < $3::bigint) "
    "ORDER BY id DESC LIMIT $4";

} // namespace

transition_reply apply_transition(connection& c, const transition_command& cmd,
                                  micros now) {
  bool by_key = cmd.incident_id == 0;
  std::string which = by_key ? cmd.dedup_key : std::to_string(cmd.incident_id);
  auto changed = first(
      c.query(transition_sql(cmd.kind, by_key), cmd.org_id, which, now, cmd.by, cmd.via));
  if (changed)
    return {reply_code::ok, changed->incident};
  auto current =
      first(c.query(by_key ? latest_by_key_sql : latest_by_id_sql, cmd.org_id, which));
  if (!current)
    return {reply_code::not_found, {}};
  auto& status = current->incident.status;
  bool unchanged = cmd.kind == transition::ack ? status == status_acknowledged
                                               : status == status_resolved;
  return {unchanged ? reply_code::unchanged : reply_code::conflict, current->incident};
}

std::optional<incident_record> exhaust(connection& c, const incident_record& expected,
                                       micros now) {
  if (auto h = first(
          c.query(exhaust_sql, expected.org_id, expected.id, expected.version, now)))
    return h->incident;
  return std::nullopt;
}

std::optional<held_incident> load_incident(connection& c, int64_t org_id, int64_t id) {
  return first(c.query(latest_by_id_sql, org_id, std::to_string(id)));
}

adopted adopt_unresolved(connection& c, const adoption_page& page) {
  return transaction(c, [&] {
    // Lapsed nodes' rows go with their incidents, so that such a node, back, knows.
    adopted out;
    out.held = renew_lease(c, page.owner, page.now).taken;
    auto r = c.query(adopt_sql, page.owner.node, page.now, page.owner.lease_until,
                     page.after_org, page.after_id, page.limit);
    out.more = r.rows() >= page.limit;
    out.held.reserve(out.held.size() + r.rows());
    for (int i = 0; i < r.rows(); ++i) {
      auto h = read_held(r, i);
      auto key = std::pair{h.incident.org_id, h.incident.id};
      if (key > std::pair{out.last_org, out.last_id})
        std::tie(out.last_org, out.last_id) = key;
      out.held.push_back(std::move(h));
    }
    return out;
  });
}

std::vector<held_incident> adopt_orphans(connection& c, const orphan_sweep& sweep) {
  auto r = c.query(orphans_sql, sweep.owner.node, sweep.overdue_before, sweep.now,
                   sweep.owner.lease_until, sweep.limit);
  std::vector<held_incident> out;
  out.reserve(r.rows());
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(read_held(r, i));
  return out;
}

lease_renewal renew_lease(connection& c, const ownership& owner, micros now) {
  auto work = [&] {
    lease_renewal out;
    out.lost = c.query(renew_sql, owner.node, owner.lease_until).boolean(0, 0);
    auto lapsed = c.query(lapsed_sql, owner.node, now);
    for (int n = 0; n < lapsed.rows(); ++n) {
      auto r = c.query(take_over_sql, owner.node, lapsed.str(n, 0), owner.lease_until);
      for (int i = 0; i < r.rows(); ++i)
        out.taken.push_back(read_held(r, i));
    }
    return out;
  };
  return c.in_transaction() ? work() : transaction(c, work);
}

std::vector<int64_t> owned_elsewhere(connection& c, const std::string& node,
                                     const incident_keys& keys) {
  auto [orgs, ids] = key_arrays(keys);
  auto r = c.query(owned_elsewhere_sql, orgs, ids, node);
  std::vector<int64_t> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(r.int64(i, 0));
  return out;
}

std::vector<held_incident> settled_among(connection& c, const incident_keys& keys) {
  auto [orgs, ids] = key_arrays(keys);
  auto r = c.query(settled_among_sql, orgs, ids);
  std::vector<held_incident> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(read_held(r, i));
  return out;
}

incident_page list_incidents(connection& c, int64_t org_id, const std::string& status,
                             int limit, int64_t after_id) {
  auto r = c.query(list_sql, org_id, status, after_id, limit + 1);
  incident_page page;
  for (int i = 0; i < r.rows() && i < limit; ++i)
    page.incidents.push_back(read_held(r, i).incident);
  if (r.rows() > limit)
    page.next_after = page.incidents.back().id;
  return page;
}

std::vector<timeline_entry> load_timeline(connection& c, int64_t org_id, int64_t id) {
  auto r = c.query("SELECT belay_us(at), kind, detail::text FROM timeline "
                   "WHERE org_id = $1 AND incident_id = $2 ORDER BY seq",
                   org_id, id);
  std::vector<timeline_entry> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back({r.int64(i, 0), r.str(i, 1), r.str(i, 2)});
  return out;
}

timeline_page load_timeline(connection& c, int64_t org_id, int64_t id, int64_t after_seq,
                            int limit) {
  auto r = c.query("SELECT belay_us(at), kind, detail::text, seq FROM timeline "
                   "WHERE org_id = $1 AND incident_id = $2 AND seq > $3 ORDER BY seq "
                   "LIMIT $4",
                   org_id, id, after_seq, limit + 1);
  timeline_page page;
  for (int i = 0; i < r.rows() && i < limit; ++i)
    page.entries.push_back({r.int64(i, 0), r.str(i, 1), r.str(i, 2)});
  if (r.rows() > limit)
    page.next_after = r.int64(limit - 1, 3);
  return page;
}

// One statement: the foreign keys (dead letter → delivery → incident, timeline →
// incident) are checked at its end, when every row of the batch is gone.
const std::string retention_sql = R"sql(
WITH doomed AS (
  SELECT org_id, id FROM incident
  WHERE status = 'RESOLVED' AND resolved_at < belay_ts($1::bigint)
  ORDER BY resolved_at LIMIT $2 FOR UPDATE SKIP LOCKED
), letters AS (
  DELETE FROM dead_letter d USING doomed
  WHERE d.org_id = doomed.org_id AND d.incident_id = doomed.id
), pages AS (
  DELETE FROM delivery d USING doomed
  WHERE d.org_id = doomed.org_id AND d.incident_id = doomed.id
), notes AS (
  DELETE FROM timeline t USING doomed
  WHERE t.org_id = doomed.org_id AND t.incident_id = doomed.id
)
DELETE FROM incident i USING doomed WHERE i.org_id = doomed.org_id AND i.id = doomed.id
RETURNING i.id)sql";

size_t delete_resolved_before(connection& c, micros resolved_before, int batch) {
  return static_cast<size_t>(c.query(retention_sql, resolved_before, batch).rows());
}

size_t sweep_retention(connection& c, const orphan_sweep& sweep) {
  if (sweep.resolved_before == 0)
    return 0;
  return delete_resolved_before(c, sweep.resolved_before, sweep.retention_batch);
}

std::vector<named_statement> incident_statements() {
  return {{"transition_ack_by_id", transition_sql(transition::ack, false)},
          {"transition_ack_by_key", transition_sql(transition::ack, true)},
          {"transition_resolve_by_id", transition_sql(transition::resolve, false)},
          {"transition_resolve_by_key", transition_sql(transition::resolve, true)},
          {"adopt_page", adopt_sql}};
}

} // namespace belay::storage
