#include "storage/incidents.hpp"

#include "protocol/policy_json.hpp"
#include "storage/alerts.hpp"
#include "storage/answers.hpp"
#include "storage/audit.hpp"
#include "storage/columns.hpp"
#include "storage/db.hpp"
#include "storage/deliveries.hpp"
#include "storage/identities.hpp"
#include "storage/incident_rows.hpp"
#include "storage/statements.hpp"
#include "storage/test_hooks.hpp"

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
  auto& out = h.incident;
  int col = 0;
  BELAY_READ_COLUMNS(BELAY_INCIDENT_COLUMN_LIST)
  if (r.null(row, col))
    return h;
  h.ladder = shared_ladder(r.text(row, col), out.id);
  return h;
}

count_reader::count_reader(const result& r)
    : alerts_(r.column("alert_count")), firing_(r.column("firing_count")) {}

void count_reader::operator()(const result& r, int row, incident_record& out) const {
  out.alert_count = static_cast<int>(r.int64(row, alerts_));
  out.firing_count = static_cast<int>(r.int64(row, firing_));
}

namespace {

std::optional<held_incident> first(const result& r) {
  if (r.rows() == 0)
    return std::nullopt;
  return read_counted(r, 0, count_reader{r});
}

// The compare-and-set of an ack or resolve, cancelling the deliveries nobody has
// claimed yet in the same statement: $1 org, $2 the incident's id or dedup key
// ({{which}}), $3 now, $4 by whom, $5 through what. {{set}}, {{from}}, {{kind}} and
// {{alerts}} are the transition's (transition_fragments).
constexpr std::string_view transition_text = R"sql(
WITH cas AS (
  UPDATE incident SET {{set}}, version = version + 1
  WHERE org_id = $1 AND {{which}} AND status IN {{from}}
  RETURNING )sql" BELAY_INCIDENT_COLUMNS ", " BELAY_INCIDENT_COUNTS R"sql(
){{alerts}}, cancelled AS (
  UPDATE delivery d SET status = 'CANCELLED' FROM cas
  WHERE d.org_id = cas.org_id AND d.incident_id = cas.id AND d.status = 'PENDING'
    AND d.update_of IS NULL{{keeps}}
  RETURNING d.id
), updates AS ( -- one status update per contact that asked for them and was paged
  INSERT INTO delivery (org_id, incident_id, loop, step, channel, target, idempotency_key,
                        status, next_attempt_at, created_at, user_name, update_of)
  SELECT DISTINCT ON (d.channel, d.target) d.org_id, d.incident_id, d.loop, d.step,
         d.channel, d.target,
         d.incident_id || ':{{kind}}:' || d.channel || ':' || d.target, 'PENDING',
         belay_ts($3), belay_ts($3), d.user_name, '{{kind}}'
  FROM cas JOIN delivery d ON d.org_id = cas.org_id AND d.incident_id = cas.id
  WHERE d.status_updates AND d.attempts > 0 AND d.update_of IS NULL AND NOT cas.shadow
  ORDER BY d.channel, d.target, d.id DESC
  ON CONFLICT (idempotency_key) DO NOTHING
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT cas.org_id, cas.id, belay_ts($3), '{{kind}}',
         jsonb_build_object('by', $4::text, 'via', $5::text,
                            'cancelledDeliveries', (SELECT count(*) FROM cancelled))
  FROM cas
)
-- Delivered at commit to every node, so that the one holding the incident hears of it
-- at once (docs/architecture.md#ownership).
SELECT *, pg_notify('{{channel}}', cas.org_id || ' ' || cas.id) FROM cas)sql";

// What an ack or a resolve sets, the statuses it moves an incident from, and its name
// in the timeline and in the keys of the status updates it sends
// (docs/guarantees.md#on-call). A resolve resolves every alert still firing
// (docs/guarantees.md#alerts-and-grouping). An ack keeps the pages to requested
// responders, which go while the incident is acknowledged
// (docs/guarantees.md#working-an-incident); a resolve cancels them too.
struct transition_fragments {
  std::string_view set, from, kind, alerts, keeps;
};
constexpr transition_fragments ack_fragments{
    R"sql(status = 'ACKNOWLEDGED', acked_at = belay_ts($3), acked_by = $4,
      acked_via = $5, next_fire_at = NULL, held_until = NULL)sql",
    "('OPEN', 'EXHAUSTED')", "acknowledged", "", " AND NOT d.requested"};
constexpr transition_fragments resolve_fragments{
    R"sql(status = 'RESOLVED', resolved_at = belay_ts($3),
      resolved_by = NULLIF($4, ''), resolved_via = $5,
      resume_at = CASE WHEN snoozed_until IS NULL THEN next_fire_at END,
      next_fire_at = NULL, held_until = NULL, snoozed_until = NULL, firing_count = 0)sql",
    "('OPEN', 'ACKNOWLEDGED', 'EXHAUSTED')", "resolved",
    R"sql(, alerts AS (
  UPDATE alert a SET status = 'RESOLVED', resolved_at = belay_ts($3) FROM cas
  WHERE a.org_id = cas.org_id AND a.incident_id = cas.id AND a.status = 'FIRING'
))sql",
    ""};

std::string transition_statement(const transition_fragments& f, std::string_view which) {
  return fill(transition_text, {{"set", f.set},
                                {"which", which},
                                {"from", f.from},
                                {"kind", f.kind},
                                {"alerts", f.alerts},
                                {"keeps", f.keeps},
                                {"channel", incident_channel}});
}

struct transition_statements {
  std::string by_id, by_key;
};
const transition_statements ack_sql{
    transition_statement(ack_fragments, "id = $2::bigint"),
    transition_statement(ack_fragments, "dedup_key = $2")};
const transition_statements resolve_sql{
    transition_statement(resolve_fragments, "id = $2::bigint"),
    transition_statement(resolve_fragments, "dedup_key = $2")};

const std::string& transition_sql(transition kind, bool by_key) {
  auto& statements = kind == transition::ack ? ack_sql : resolve_sql;
  return by_key ? statements.by_key : statements.by_id;
}

const std::string latest_by_id_sql = R"sql(
SELECT )sql" BELAY_INCIDENT_COLUMNS ", " BELAY_INCIDENT_COUNTS R"sql( FROM incident
WHERE org_id = $1 AND id = $2::bigint)sql";
const std::string latest_by_key_sql = R"sql(
SELECT )sql" BELAY_INCIDENT_COLUMNS ", " BELAY_INCIDENT_COUNTS R"sql( FROM incident
WHERE org_id = $1 AND dedup_key = $2
ORDER BY (status <> 'RESOLVED') DESC, id DESC LIMIT 1)sql";

const std::string exhaust_sql = R"sql(
WITH cas AS (
  UPDATE incident SET status = 'EXHAUSTED', next_fire_at = NULL, version = version + 1
  WHERE org_id = $1 AND id = $2 AND status = 'OPEN' AND version = $3
  RETURNING )sql" BELAY_INCIDENT_COLUMNS ", " BELAY_INCIDENT_COUNTS R"sql(
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
// {{t}}: the incident asked about.
constexpr std::string_view adoptable_text = R"sql({{t}}.status <> 'RESOLVED'
    AND ({{t}}.owner IS NULL OR {{t}}.owner = $1
         OR ({{t}}.lease_expires_at < belay_ts($2)
             AND NOT EXISTS (SELECT 1 FROM node_lease n WHERE n.node = {{t}}.owner
                             AND n.expires_at >= belay_ts($2)))))sql";
constexpr std::string_view adopt_text = R"sql(
WITH page AS (
  SELECT x.org_id AS p_org, x.id AS p_id, coalesce(x.owner = $1, false) AS mine
  FROM incident x
  WHERE (x.org_id, x.id) > ($4::bigint, $5::bigint) AND {{x adoptable}}
  ORDER BY x.org_id, x.id LIMIT $6
), taken AS (
  UPDATE incident i SET owner = $1, lease_expires_at = belay_ts($3)
  FROM page WHERE NOT mine AND i.org_id = p_org AND i.id = p_id AND {{i adoptable}}
  RETURNING )sql" BELAY_INCIDENT_COLUMNS R"sql(
)
SELECT )sql" BELAY_INCIDENT_COLUMNS R"sql(
FROM incident JOIN page ON org_id = p_org AND id = p_id WHERE mine
UNION ALL SELECT * FROM taken)sql";
const std::string adopt_sql =
    fill(adopt_text, {{"x adoptable", fill(adoptable_text, {{"t", "x"}})},
                      {"i adoptable", fill(adoptable_text, {{"t", "i"}})}});

// The overdue incidents no live node holds (adopt_orphans): $1 node, $2 overdue before,
// $3 now, $4 the lease taken, $5 how many, $6 the ids to pass over. No index leads with
// next_fire_at (firing a step then updates its row in place): the sweep reads the
// unresolved incidents, 12 ms for 100,000 of them here. The live leases are joined, not
// looked up row by row with NOT EXISTS: that subplan's estimate (8 per row) made
// PostgreSQL compile the statement with JIT, 400 ms each pass.
const std::string orphans_sql = R"sql(
WITH orphan AS (
  SELECT i.org_id AS orphan_org, i.id AS orphan_id FROM incident i
  LEFT JOIN node_lease n ON n.node = i.owner AND n.expires_at >= belay_ts($3)
  LEFT JOIN unnest($6::bigint[]) AS passed(id) ON passed.id = i.id
  WHERE i.status <> 'RESOLVED' AND i.next_fire_at < belay_ts($2) AND passed.id IS NULL
    AND (i.owner IS NULL OR i.owner = $1
         OR (coalesce(i.lease_expires_at < belay_ts($3), true) AND n.node IS NULL))
  ORDER BY i.next_fire_at LIMIT $5
  FOR UPDATE OF i SKIP LOCKED
)
UPDATE incident SET owner = $1, lease_expires_at = belay_ts($4)
FROM orphan WHERE org_id = orphan_org AND id = orphan_id
RETURNING )sql" BELAY_INCIDENT_COLUMNS;

// xmax is 0 only in a row this statement inserted.
const std::string renew_sql = R"sql(
INSERT INTO node_lease (node, expires_at) VALUES ($1, belay_ts($2))
ON CONFLICT (node) DO UPDATE SET expires_at = EXCLUDED.expires_at
RETURNING xmax = 0)sql";

const std::string lapsed_sql = R"sql(
DELETE FROM node_lease WHERE node <> $1 AND expires_at < belay_ts($2) RETURNING node)sql";

// No index leads with owner: this scan runs only when a node's lease has lapsed.
const std::string take_over_sql = R"sql(
UPDATE incident SET owner = $1, lease_expires_at = belay_ts($3)
WHERE status <> 'RESOLVED' AND owner = $2
RETURNING )sql" BELAY_INCIDENT_COLUMNS;

// The incidents of `keys`, through the primary key (org_id, id): $1 orgs, $2 ids.
const std::string current_among_sql = R"sql(
SELECT )sql" BELAY_INCIDENT_COLUMNS R"sql( FROM incident
WHERE (org_id, id) IN (SELECT * FROM unnest($1::bigint[], $2::bigint[])))sql";
const std::string owned_elsewhere_sql = R"sql(
SELECT id FROM incident
WHERE (org_id, id) IN (SELECT * FROM unnest($1::bigint[], $2::bigint[]))
  AND owner <> $3 AND status <> 'RESOLVED')sql";

// The orgs and the ids of `keys` as two bigint[] parameters: {1,2,3}.
std::pair<std::string, std::string> key_arrays(const incident_keys& keys) {
  std::vector<int64_t> orgs, ids;
  for (auto& [org, id] : keys) {
    orgs.push_back(org);
    ids.push_back(id);
  }
  return {bigint_array(orgs), bigint_array(ids)};
}

const std::string list_sql = R"sql(
SELECT )sql" BELAY_INCIDENT_COLUMNS ", " BELAY_INCIDENT_COUNTS R"sql( FROM incident
WHERE org_id = $1 AND ($2 = '' OR status = $2) AND ($3::bigint = 0 OR id < $3::bigint)
  AND ($5 = '' OR priority = $5)
ORDER BY id DESC LIMIT $4)sql";

// clang-format off
#define BELAY_TIMELINE_COLUMN_LIST(first, next)                                          \
  first(at, "belay_us(at)")                                                              \
  next(kind, "kind")                                                                     \
  next(detail_json, "detail::text")
// clang-format on

// An incident's timeline: all of it, or a page after entry $3, at most $4.
const std::string timeline_sql = R"sql(
SELECT )sql" BELAY_SELECT_LIST(BELAY_TIMELINE_COLUMN_LIST) R"sql( FROM timeline
WHERE org_id = $1 AND incident_id = $2 ORDER BY seq)sql";
const std::string timeline_page_sql = R"sql(
SELECT )sql" BELAY_SELECT_LIST(BELAY_TIMELINE_COLUMN_LIST) R"sql(, seq FROM timeline
WHERE org_id = $1 AND incident_id = $2 AND seq > $3 ORDER BY seq LIMIT $4)sql";

constexpr auto read_timeline_entry = BELAY_ROW_READER(BELAY_TIMELINE_COLUMN_LIST);

} // namespace

namespace {

transition_reply transit(connection& c, const transition_command& cmd, micros now);

// $1 org, $2 incident, $3 the user who acknowledged, $4 now.
const std::string responder_acknowledged_sql = R"sql(
WITH r AS (
  UPDATE incident_responder SET state = 'acknowledged', acknowledged_at = belay_ts($4)
  WHERE org_id = $1 AND incident_id = $2::bigint AND user_name = $3
    AND state = 'requested'
  RETURNING org_id, incident_id, user_name
)
INSERT INTO timeline (org_id, incident_id, at, kind, detail)
SELECT org_id, incident_id, belay_ts($4), 'responder_acknowledged',
       jsonb_build_object('user', user_name)
FROM r)sql";

// The audit log's row of a person's acknowledge or resolve.
void audit_transition(connection& c, const transition_command& cmd,
                      const incident_record& after, micros now) {
  protocol::audit_entry e;
  e.at = now;
  e.org_id = cmd.org_id;
  e.actor = cmd.by;
  e.via = cmd.via;
  e.source_ip = cmd.source_ip;
  e.action = cmd.kind == transition::ack ? "incident.ack" : "incident.resolve";
  e.object_kind = "incident";
  e.object_name = std::to_string(after.id);
  e.changes_json = R"({"status":")" + after.status + R"("})";
  append_audit(c, std::move(e));
}

} // namespace

transition_reply apply_transition(connection& c, const transition_command& cmd,
                                  micros now) {
  if (!cmd.audited)
    return transit(c, cmd, now);
  auto work = [&] {
    auto r = transit(c, cmd, now);
    if (r.code == reply_code::ok)
      audit_transition(c, cmd, r.incident, now);
    // A requested responder who acknowledges, the incident acknowledged already or not.
    if (cmd.kind == transition::ack && !cmd.by.empty() &&
        (r.code == reply_code::ok || r.code == reply_code::unchanged))
      c.query(responder_acknowledged_sql, cmd.org_id, std::to_string(r.incident.id),
              cmd.by, now);
    return r;
  };
  return c.in_transaction() ? work() : transaction(c, work);
}

namespace {

transition_reply transit(connection& c, const transition_command& cmd, micros now) {
  if (cmd.alert_key)
    if (auto r = apply_alert_transition(c, cmd, now))
      return *r;
  bool by_key = cmd.incident_id == 0;
  std::string which = by_key ? cmd.dedup_key : std::to_string(cmd.incident_id);
  auto& sql = transition_sql(cmd.kind, by_key);
  auto changed =
      first(c.query(cmd.kind == transition::resolve
                        ? test_hooks::planted(test_hooks::resolve_keeps_firing_count, sql,
                                              {{", firing_count = 0", ""}})
                        : sql,
                    cmd.org_id, which, now, cmd.by, cmd.via));
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

} // namespace

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
                   sweep.owner.lease_until, sweep.limit, bigint_array(sweep.held));
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

std::vector<held_incident> current_among(connection& c, const incident_keys& keys) {
  auto [orgs, ids] = key_arrays(keys);
  auto r = c.query(current_among_sql, orgs, ids);
  std::vector<held_incident> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(read_held(r, i));
  return out;
}

incident_page list_incidents(connection& c, int64_t org_id, const std::string& status,
                             int limit, int64_t after_id, const std::string& priority) {
  auto r = c.query(list_sql, org_id, status, after_id, limit + 1, priority);
  incident_page page;
  count_reader counts{r};
  for (int i = 0; i < r.rows() && i < limit; ++i)
    page.incidents.push_back(read_counted(r, i, counts).incident);
  if (r.rows() > limit)
    page.next_after = page.incidents.back().id;
  return page;
}

std::vector<timeline_entry> load_timeline(connection& c, int64_t org_id, int64_t id) {
  return read_rows<timeline_entry>(c.query(timeline_sql, org_id, id),
                                   read_timeline_entry);
}

timeline_page load_timeline(connection& c, int64_t org_id, int64_t id, int64_t after_seq,
                            int limit) {
  auto r = c.query(timeline_page_sql, org_id, id, after_seq, limit + 1);
  timeline_page page;
  page.entries = read_rows<timeline_entry>(r, read_timeline_entry, limit);
  if (r.rows() > limit)
    page.next_after = r.int64(limit - 1, r.column("seq"));
  return page;
}

// One statement: the foreign keys (dead letter → delivery → incident, timeline →
// incident) are checked at its end, when every row of the batch is gone. Bundles have
// no foreign keys; they go with their incidents here all the same.
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
), alerts AS (
  DELETE FROM alert a USING doomed
  WHERE a.org_id = doomed.org_id AND a.incident_id = doomed.id
), bundled AS (
  DELETE FROM bundle_incident bi USING doomed
  WHERE bi.org_id = doomed.org_id AND bi.incident_id = doomed.id
  RETURNING bi.org_id, bi.bundle_id
), bundles AS (
  -- A bundle goes with the last incident it spoke of. Every part of this statement sees
  -- the rows as they were before it, so "the last" is: no incident of it outside doomed.
  DELETE FROM bundle b USING (SELECT DISTINCT org_id, bundle_id FROM bundled) x
  WHERE b.org_id = x.org_id AND b.id = x.bundle_id
    AND NOT EXISTS (SELECT 1 FROM bundle_incident bi
                    WHERE bi.org_id = b.org_id AND bi.bundle_id = b.id
                      AND NOT EXISTS (SELECT 1 FROM doomed d
                                      WHERE d.org_id = bi.org_id AND d.id = bi.incident_id))
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

// How long a trigger mark is kept once written: far longer than any read-back waits.
constexpr micros trigger_mark_lifetime = 600'000'000;
// How long an answered Twilio message is remembered (0025_inbound_messages.sql).
constexpr micros inbound_message_lifetime = 365LL * 86'400'000'000LL;

std::vector<held_incident> sweep_orphans(connection& c, const orphan_sweep& sweep) {
  prune_trigger_marks(c, sweep.now - trigger_mark_lifetime);
  forget_inbound_messages(c, sweep.now - inbound_message_lifetime);
  cancel_removed_channel_deliveries(c, sweep.now, sweep.limit, sweep.now);
  sweep_retention(c, sweep);
  if (sweep.audit_before != 0)
    prune_audit(c, sweep.audit_before, sweep.retention_batch);
  forget_expired_sign_ins(c, sweep.now);
  return adopt_orphans(c, sweep);
}

std::vector<named_statement> incident_statements() {
  return {{"transition_ack_by_id", transition_sql(transition::ack, false)},
          {"transition_ack_by_key", transition_sql(transition::ack, true)},
          {"transition_resolve_by_id", transition_sql(transition::resolve, false)},
          {"transition_resolve_by_key", transition_sql(transition::resolve, true)},
          {"adopt_page", adopt_sql}};
}

} // namespace belay::storage
