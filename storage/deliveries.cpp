#include "storage/deliveries.hpp"

#include "storage/audit.hpp"
#include "storage/batch.hpp"
#include "storage/channel_rows.hpp"
#include "storage/claims.hpp"
#include "storage/columns.hpp"
#include "storage/sealed.hpp"
#include "storage/statements.hpp"
#include "storage/test_hooks.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace belay::storage {

namespace {

// Every column of a delivery, each qualified with `d` (storage/columns.hpp).
// clang-format off
#define BELAY_DELIVERY_COLUMNS_OF(d, first, next)                                        \
  first(org_id, d "org_id")                                                              \
  next(id, d "id")                                                                       \
  next(incident_id, d "incident_id")                                                     \
  next(loop, d "loop")                                                                   \
  next(step, d "step")                                                                   \
  next(channel, d "channel")                                                             \
  next(target, d "target")                                                               \
  next(idempotency_key, d "idempotency_key")                                             \
  next(status, d "status")                                                               \
  next(attempts, d "attempts")                                                           \
  next(next_attempt_at, "belay_us(" d "next_attempt_at)")                                \
  next(last_error, d "last_error")                                                       \
  next(ambiguous, d "ambiguous")                                                         \
  next(failover_from, d "failover_from")                                                 \
  next(sent_at, "belay_us(" d "sent_at)")                                                \
  next(created_at, "belay_us(" d "created_at)")                                          \
  next(user, "coalesce(" d "user_name, '')")                                             \
  next(update_of, "coalesce(" d "update_of, '')")                                        \
  next(held_by, "coalesce(" d "held_by, '')")                                            \
  next(bundle_id, d "bundle_id")
// clang-format on
#define BELAY_DELIVERY_COLUMN_LIST(first, next) BELAY_DELIVERY_COLUMNS_OF("", first, next)

constexpr auto read_delivery = BELAY_ROW_READER(BELAY_DELIVERY_COLUMN_LIST);

// A maintenance window covering the delivery's incident
// (docs/guarantees.md#maintenance-windows): the row is neither claimed nor cancelled, it
// stays PENDING until the window is over. One probe of a small table per due row. A
// fragment of two statements (their golden files show them whole); a macro, since a raw
// string cannot span the lines of one.
#define BELAY_IN_MAINTENANCE(at)                                                         \
  "EXISTS (SELECT 1 FROM maintenance w WHERE w.org_id = i.org_id AND w.end_at > "        \
  "belay_ts(" at ") AND w.start_at <= belay_ts(" at ") AND (w.policy = i.policy OR "     \
  "w.integration = i.integration))"

// Whether a page is still to be sent (`d` the delivery, `status` its incident's): while
// the incident is OPEN or EXHAUSTED; a replay, a status update at any time; a responder's
// page (docs/guarantees.md#working-an-incident) while the incident is acknowledged too.
#define BELAY_LIVE(d, status)                                                            \
  "(" status " IN ('OPEN', 'EXHAUSTED') OR " d "replay_of IS NOT NULL OR " d             \
  "update_of IS NOT NULL OR (" d "requested AND " status " = 'ACKNOWLEDGED'))"

// The claim's rows: the delivery is `d` there, and `due` holds what the page says of the
// incident.
#define BELAY_CLAIMED_DELIVERY_COLUMN_LIST(first, next)                                  \
  BELAY_DELIVERY_COLUMNS_OF("d.", first, next)
// clang-format off
#define BELAY_CLAIMED_INCIDENT_COLUMN_LIST(first, next)                                  \
  first(dedup_key, "due.dedup_key")                                                      \
  next(title, "due.title")                                                               \
  next(severity, "due.severity")                                                         \
  next(status, "due.status")                                                             \
  next(acked_by, "coalesce(due.acked_by, '')")                                           \
  next(acked_via, "coalesce(due.acked_via, '')")                                         \
  next(resolved_by, "coalesce(due.resolved_by, '')")                                     \
  next(resolved_via, "coalesce(due.resolved_via, '')")
// clang-format on

const std::string claim_sql = R"sql(
WITH due AS (
  SELECT d.org_id, d.id, i.dedup_key, i.title, i.severity, i.status, i.acked_by, i.acked_via,
         i.resolved_by, i.resolved_via,
         )sql" BELAY_LIVE("d.", "i.status") R"sql( AS live
  FROM delivery d
  -- The incident by its primary key, once per due row: OFFSET 0 keeps the subquery apart.
  -- Joined directly, the planner turned d.org_id = $1 into i.org_id = $1 and, on young
  -- statistics, scanned all the org's incidents for every due row (auto_explain: 64 x
  -- 1,054 rows, 66 ms for one claim).
  CROSS JOIN LATERAL (
    SELECT i.org_id, i.policy, i.integration, i.dedup_key, i.title, i.severity, i.status,
           i.acked_by, i.acked_via, i.resolved_by, i.resolved_via
    FROM incident i WHERE i.org_id = d.org_id AND i.id = d.incident_id OFFSET 0
  ) i
  WHERE d.org_id = $1 AND d.channel = $2 AND d.status = 'PENDING'
    AND d.next_attempt_at <= belay_ts($3) AND NOT )sql" BELAY_IN_MAINTENANCE("$3") R"sql(
  -- Exactly delivery_due's order: the index scan stops after $6 rows. With ", d.id"
  -- added, a backlog of 5,000 pending rows was read and sorted whole on every claim.
  ORDER BY d.next_attempt_at
  LIMIT $6
  FOR UPDATE OF d SKIP LOCKED
)
UPDATE delivery d
SET status = CASE WHEN due.live THEN 'CLAIMED' ELSE 'CANCELLED' END,
    claimed_by = CASE WHEN due.live THEN $4 END,
    claim_expires_at = CASE WHEN due.live THEN belay_ts($5) END,
    attempts = d.attempts + CASE WHEN due.live THEN 1 ELSE 0 END
FROM due
WHERE d.org_id = due.org_id AND d.id = due.id
RETURNING )sql" BELAY_SELECT_LIST(BELAY_CLAIMED_DELIVERY_COLUMN_LIST) R"sql(,
          )sql" BELAY_SELECT_LIST(BELAY_CLAIMED_INCIDENT_COLUMN_LIST) R"sql(,
          coalesce(d.message, ''))sql";

// A claim's row: the delivery, then what its page says of the incident.
claimed_delivery read_claim(const result& r, int row) {
  claimed_delivery claim;
  int col = 0;
  {
    auto& out = claim.delivery;
    BELAY_READ_COLUMNS(BELAY_CLAIMED_DELIVERY_COLUMN_LIST)
  }
  auto& out = claim.incident;
  BELAY_READ_COLUMNS(BELAY_CLAIMED_INCIDENT_COLUMN_LIST)
  out.org_id = claim.delivery.org_id;
  out.id = claim.delivery.incident_id;
  out.loop = claim.delivery.loop;
  out.current_step = claim.delivery.step;
  claim.message = r.str(row, col);
  return claim;
}

// Rows a contact claim (storage/contacts.cpp) took, read as claim_sql returns them.
const std::string claimed_sql = R"sql(
SELECT )sql" BELAY_SELECT_LIST(BELAY_CLAIMED_DELIVERY_COLUMN_LIST) R"sql(,
       )sql" BELAY_SELECT_LIST(BELAY_CLAIMED_INCIDENT_COLUMN_LIST) R"sql(,
       coalesce(d.message, '')
FROM delivery d JOIN incident due ON due.org_id = d.org_id AND due.id = d.incident_id
WHERE d.org_id = $1 AND d.id = ANY ($2::bigint[])
ORDER BY d.next_attempt_at, d.id)sql";

#define BELAY_RECHECK_COLUMN_LIST(first, next)                                           \
  first(org_id, "org_id") next(delivery_id, "id") next(live, "live")

// $1: one JSON object per claim (org_id, id, attempts), $2 the node, $3 now, $4 the
// renewed lease. A claim whose incident a maintenance window covers by now goes back to
// PENDING, unsent, and is left out of the answer (the channel drops it as a lost claim).
const std::string recheck_sql = R"sql(
WITH c AS (
  SELECT * FROM json_to_recordset($1::json) AS c(org_id bigint, id bigint, attempts int)
), held AS (
  SELECT d.org_id, d.id, )sql" BELAY_LIVE("d.", "i.status") R"sql( AS live,
         )sql" BELAY_IN_MAINTENANCE("$3") R"sql( AS paused
  FROM c JOIN delivery d ON d.org_id = c.org_id AND d.id = c.id
         JOIN incident i ON i.org_id = d.org_id AND i.id = d.incident_id
  WHERE d.status = 'CLAIMED' AND d.claimed_by = $2 AND d.attempts = c.attempts
  ORDER BY d.org_id, d.id
  FOR UPDATE OF d
), upd AS (
  UPDATE delivery d
  SET status = CASE WHEN held.paused THEN 'PENDING'
                    WHEN held.live THEN 'CLAIMED' ELSE 'CANCELLED' END,
      claimed_by = CASE WHEN held.live AND NOT held.paused THEN d.claimed_by END,
      claim_expires_at = CASE WHEN held.live AND NOT held.paused THEN belay_ts($4) END,
      attempts = d.attempts - CASE WHEN held.live AND NOT held.paused THEN 0 ELSE 1 END
  FROM held WHERE d.org_id = held.org_id AND d.id = held.id
  RETURNING d.org_id, d.id, held.live AND NOT held.paused AS live, held.paused
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT d.org_id, d.incident_id, belay_ts($3), 'delivery_cancelled',
         jsonb_build_object('deliveryId', d.id, 'channel', d.channel, 'target', d.target,
                            'reason', 'settled before it was sent')
  FROM upd JOIN delivery d ON d.org_id = upd.org_id AND d.id = upd.id
  WHERE NOT upd.live AND NOT upd.paused
)
SELECT )sql" BELAY_SELECT_LIST(BELAY_RECHECK_COLUMN_LIST) R"sql(
FROM upd WHERE NOT paused)sql";

// The same check, read only: which of the claims ($1) are still this node's ($2) with
// their incident open, no maintenance window over it by $3 and a lease good past $4.
// Those need no write, and a transaction that writes nothing commits without flushing
// the WAL: the usual re-check costs a read by key, not a commit (bench/JOURNAL.md,
// 6 December). The others (a cancel, a pause, a lease to renew) go to recheck_sql.
const std::string recheck_read_sql = R"sql(
SELECT d.id,
       )sql" BELAY_LIVE("d.", "i.status") R"sql(
       AND NOT )sql" BELAY_IN_MAINTENANCE("$3") R"sql(
       AND d.claim_expires_at > belay_ts($4) AS unchanged
FROM json_to_recordset($1::json) AS c(org_id bigint, id bigint, attempts int)
-- Each row by its key (OFFSET 0 keeps the subquery apart): joined as a whole, the planner
-- hashed every CLAIMED row of the table for a few claims (0.93 against 0.27 ms with 300
-- claimed, EXPLAIN ANALYZE).
CROSS JOIN LATERAL (
  SELECT * FROM delivery d WHERE d.org_id = c.org_id AND d.id = c.id OFFSET 0
) d
JOIN incident i ON i.org_id = d.org_id AND i.id = d.incident_id
WHERE d.status = 'CLAIMED' AND d.claimed_by = $2 AND d.attempts = c.attempts)sql";

// What an outcome's row says, after its key (rows_by_id).
// clang-format off
#define BELAY_OUTCOME_COLUMN_LIST(first, next)                                           \
  first(status, "upd.status")                                                            \
  next(next_attempt_at, "belay_us(upd.next_attempt_at)")                                 \
  next(dead_letter_id, "dead.id")                                                        \
  next(failover_delivery_id, "failover.id")
// clang-format on

// $1: one JSON object per outcome (see outcome_json). Each row is settled only while its
// claim is still this node's and still on the same attempt.
const std::string outcome_sql = R"sql(
WITH o AS (
  SELECT * FROM json_to_recordset($1::json) AS o(org_id bigint, id bigint, node text,
      attempts int, status text, next_at bigint, error text, ambiguous boolean, at bigint,
      failover_to text)
), held AS (
  SELECT d.org_id, d.id, i.status AS incident_status, d.replay_of, d.update_of,
         d.requested, o.status AS wanted,
         o.next_at, o.error, o.ambiguous, o.at, o.failover_to
  -- Each row by its key, locked in key order: joined as a whole, the planner hashed
  -- every CLAIMED row of the table for a handful of outcomes (recheck_read_sql).
  FROM (SELECT * FROM o ORDER BY org_id, id) o
  CROSS JOIN LATERAL (
    SELECT d.org_id, d.id, d.incident_id, d.replay_of, d.update_of, d.requested
    FROM delivery d
    WHERE d.org_id = o.org_id AND d.id = o.id AND d.status = 'CLAIMED'
      AND d.claimed_by = o.node AND d.attempts = o.attempts
    FOR UPDATE
  ) d
  JOIN incident i ON i.org_id = d.org_id AND i.id = d.incident_id
), upd AS (
  UPDATE delivery d SET
    status = CASE WHEN held.wanted = 'PENDING'
                       AND NOT )sql" BELAY_LIVE("held.", "held.incident_status") R"sql(
                  THEN 'CANCELLED' ELSE held.wanted END,
    next_attempt_at = CASE WHEN held.wanted = 'PENDING' THEN belay_ts(held.next_at) END,
    last_error = held.error, ambiguous = d.ambiguous OR held.ambiguous,
    sent_at = CASE WHEN held.wanted = 'SENT' THEN belay_ts(held.at) END,
    claimed_by = NULL, claim_expires_at = NULL
  FROM held WHERE d.org_id = held.org_id AND d.id = held.id
  RETURNING d.*, held.at AS settled_at, held.failover_to AS failover_channel,
            held.ambiguous AS this_ambiguous, held.incident_status
), dead AS (
  INSERT INTO dead_letter (org_id, delivery_id, incident_id, channel, target, reason,
                           attempts, failed_at)
  SELECT org_id, id, incident_id, channel, target, last_error, attempts,
         belay_ts(settled_at)
  FROM upd WHERE status = 'DEAD'
  RETURNING delivery_id, id
), failover AS (
  INSERT INTO delivery (org_id, incident_id, loop, step, channel, target, idempotency_key,
                        status, next_attempt_at, failover_from, created_at, user_name,
                        status_updates, update_of, requested, message)
  SELECT org_id, incident_id, loop, step, failover_channel, target,
         belay_delivery_key(incident_id, loop, step, failover_channel, target) ||
           -- a ladder begun again after maintenance (storage/steps.cpp) keeps its round
           coalesce(substring(idempotency_key from ':r[0-9]+$'), '') ||
           coalesce(':' || update_of, ''),
         'PENDING', belay_ts(settled_at), id, belay_ts(settled_at), user_name,
         status_updates, update_of, requested, message
  -- No failover once the incident is settled: nobody would ever send it.
  FROM upd WHERE status = 'DEAD' AND failover_channel <> ''
             AND )sql" BELAY_LIVE("", "incident_status") R"sql(
  ON CONFLICT (idempotency_key) DO NOTHING
  RETURNING failover_from, id
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT org_id, incident_id, belay_ts(settled_at),
         CASE status WHEN 'SENT' THEN 'delivery_sent' WHEN 'DEAD' THEN 'dead_lettered'
                     WHEN 'CANCELLED' THEN 'delivery_cancelled' ELSE 'delivery_failed' END,
         jsonb_build_object('deliveryId', id, 'channel', channel, 'target', target,
                            'attempt', attempts, 'error', nullif(last_error, ''),
                            'ambiguous', this_ambiguous,
                            'failoverTo', CASE WHEN status = 'DEAD'
                                               THEN nullif(failover_channel, '') END)
  FROM upd ORDER BY id
)
SELECT upd.org_id, upd.id, )sql" BELAY_SELECT_LIST(BELAY_OUTCOME_COLUMN_LIST) R"sql(
FROM upd LEFT JOIN dead ON dead.delivery_id = upd.id
         LEFT JOIN failover ON failover.failover_from = upd.id)sql";

const std::string replay_sql = R"sql(
WITH dl AS (
  UPDATE dead_letter SET replayed_at = belay_ts($3)
  WHERE org_id = $1 AND id = $2 AND replayed_at IS NULL
  RETURNING org_id, id, delivery_id
), fresh AS (
  INSERT INTO delivery (org_id, incident_id, loop, step, channel, target, idempotency_key,
                        status, next_attempt_at, replay_of, created_at, user_name,
                        status_updates, update_of, requested, message)
  SELECT d.org_id, d.incident_id, d.loop, d.step, d.channel, d.target,
         d.idempotency_key || ':replay' || dl.id, 'PENDING', belay_ts($3), d.id, belay_ts($3),
         d.user_name, d.status_updates, d.update_of, d.requested, d.message
  FROM dl JOIN delivery d ON d.org_id = dl.org_id AND d.id = dl.delivery_id
  RETURNING org_id, id, incident_id, channel, target
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT org_id, incident_id, belay_ts($3), 'delivery_replayed',
         jsonb_build_object('deliveryId', id, 'channel', channel, 'target', target)
  FROM fresh
)
SELECT id, channel FROM fresh)sql";

const std::string channels_sql =
    "SELECT " BELAY_CHANNEL_COLUMNS " FROM channel ORDER BY org_id, name";

// After a claim whose reply was lost: $1 org, $2 channel, $3 node, $4 now, $5 the
// claims to keep.
const std::string release_unheld_sql = R"sql(
UPDATE delivery SET status = 'PENDING', claimed_by = NULL, claim_expires_at = NULL,
  attempts = greatest(attempts - 1, 0), next_attempt_at = belay_ts($4)
WHERE org_id = $1 AND channel = $2 AND status = 'CLAIMED' AND claimed_by = $3
  AND NOT (id = ANY($5::bigint[])))sql";

const std::string release_expired_sql = R"sql(
UPDATE delivery SET status = 'PENDING', claimed_by = NULL, claim_expires_at = NULL,
  next_attempt_at = belay_ts($1)
WHERE status = 'CLAIMED' AND claim_expires_at <= belay_ts($1)
RETURNING org_id, channel)sql";

const std::string release_node_sql = R"sql(
UPDATE delivery SET status = 'PENDING', claimed_by = NULL, claim_expires_at = NULL,
  next_attempt_at = belay_ts($1)
WHERE status = 'CLAIMED' AND claimed_by = $2
RETURNING org_id, channel)sql";

// An incident's deliveries: all of them, or a page after delivery $3, at most $4.
const std::string deliveries_sql = R"sql(
SELECT )sql" BELAY_SELECT_LIST(BELAY_DELIVERY_COLUMN_LIST) R"sql( FROM delivery
WHERE org_id = $1 AND incident_id = $2 ORDER BY id)sql";
const std::string deliveries_page_sql = R"sql(
SELECT )sql" BELAY_SELECT_LIST(BELAY_DELIVERY_COLUMN_LIST) R"sql( FROM delivery
WHERE org_id = $1 AND incident_id = $2 AND id > $3 ORDER BY id LIMIT $4)sql";

// clang-format off
#define BELAY_DEAD_LETTER_COLUMN_LIST(first, next)                                       \
  first(id, "id")                                                                        \
  next(delivery_id, "delivery_id")                                                       \
  next(incident_id, "incident_id")                                                       \
  next(channel, "channel")                                                               \
  next(target, "target")                                                                 \
  next(reason, "reason")                                                                 \
  next(failed_at, "belay_us(failed_at)")
// clang-format on
constexpr auto read_dead_letter = BELAY_ROW_READER(BELAY_DEAD_LETTER_COLUMN_LIST);

// An org's dead letters, newest first: at most $2, or a page before $2 (0: from the
// newest), at most $3.
const std::string dead_letters_sql = R"sql(
SELECT )sql" BELAY_SELECT_LIST(BELAY_DEAD_LETTER_COLUMN_LIST) R"sql( FROM dead_letter
WHERE org_id = $1 ORDER BY id DESC LIMIT $2)sql";
const std::string dead_letters_page_sql = R"sql(
SELECT )sql" BELAY_SELECT_LIST(BELAY_DEAD_LETTER_COLUMN_LIST) R"sql( FROM dead_letter
WHERE org_id = $1 AND ($2::bigint = 0 OR id < $2::bigint) ORDER BY id DESC LIMIT $3)sql";

const std::string dead_letter_exists_sql =
    "SELECT 1 FROM dead_letter WHERE org_id = $1 AND id = $2";

} // namespace

// The one place channel secrets are opened: once per channel load, never per page
// (docs/guarantees.md#no-key-at-rest-in-clear).
std::vector<channel_config> read_channels(const result& r) {
  auto channels =
      read_rows<channel_config>(r, BELAY_ROW_READER(BELAY_CHANNEL_COLUMN_LIST));
  const auto& keys = process_keyring();
  for (auto& ch : channels) {
    ch.url = open(keys, ch.url);
    ch.secret = open(keys, ch.secret);
    ch.signing_secret = open(keys, ch.signing_secret);
  }
  return channels;
}

std::vector<channel_config> load_channels(connection& c) {
  return read_channels(c.exec(channels_sql));
}

void release_unheld_claims(connection& c, const claim_request& req) {
  if (req.release_unheld)
    c.query(release_unheld_sql, req.org_id, req.channel, req.node, req.now,
            bigint_array(req.held));
}

std::vector<claimed_delivery> claim_due(connection& c, const claim_request& req) {
  release_unheld_claims(c, req);
  auto r = c.query(claim_sql, req.org_id, req.channel, req.now, req.node, req.lease_until,
                   req.limit);
  std::vector<claimed_delivery> out;
  out.reserve(r.rows());
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(read_claim(r, i));
  return out;
}

std::vector<claimed_delivery> load_claimed(connection& c, int64_t org_id,
                                           const std::vector<int64_t>& ids) {
  std::vector<claimed_delivery> out;
  if (ids.empty())
    return out;
  auto r = c.query(claimed_sql, org_id, bigint_array(ids));
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(read_claim(r, i));
  return out;
}

namespace {

std::string claims_json(const std::vector<recheck_request::claim>& claims) {
  return json_rows(claims,
                   [](protocol::json_writer& w, const recheck_request::claim& cl) {
                     w.StartObject();
                     w.Key("org_id");
                     w.Int64(cl.org_id);
                     w.Key("id");
                     w.Int64(cl.delivery_id);
                     w.Key("attempts");
                     w.Int(cl.attempts);
                     w.EndObject();
                   });
}

} // namespace

std::vector<recheck_result> recheck_claims(connection& c, const recheck_request& req) {
  // A lease with less than half of it left is renewed, which is a write.
  const micros renew_before = req.now + (req.lease_until - req.now) / 2;
  auto read =
      c.query(recheck_read_sql, claims_json(req.claims), req.node, req.now, renew_before);
  std::map<int64_t, bool> unchanged;
  for (int i = 0; i < read.rows(); ++i)
    unchanged[read.int64(i, 0)] = read.boolean(i, 1);
  std::vector<recheck_result> out;
  recheck_request rest{req.node, req.now, req.lease_until, {}};
  for (auto& cl : req.claims) {
    auto it = unchanged.find(cl.delivery_id);
    if (it == unchanged.end())
      continue; // no longer this node's claim
    if (it->second)
      out.push_back({cl.org_id, cl.delivery_id, true});
    else
      rest.claims.push_back(cl);
  }
  if (rest.claims.empty())
    return out;
  auto r = c.query(recheck_sql, claims_json(rest.claims), rest.node, rest.now,
                   rest.lease_until);
  for (auto& written :
       read_rows<recheck_result>(r, BELAY_ROW_READER(BELAY_RECHECK_COLUMN_LIST)))
    out.push_back(written);
  return out;
}

namespace {

std::vector<std::pair<int64_t, std::string>> released(const result& r) {
  std::vector<std::pair<int64_t, std::string>> out;
  for (int i = 0; i < r.rows(); ++i)
    out.emplace_back(r.int64(i, 0), r.str(i, 1));
  return out;
}

} // namespace

std::vector<std::pair<int64_t, std::string>> release_expired_claims(connection& c,
                                                                    micros now) {
  return released(
      c.query(test_hooks::planted(test_hooks::keep_lapsed_claims, release_expired_sql,
                                  {{"AND claim_expires_at <= belay_ts($1)",
                                    "AND claim_expires_at <= belay_ts($1) AND "
                                    "false"}}),
              now));
}

std::vector<std::pair<int64_t, std::string>>
release_claims_of(connection& c, const std::string& node, micros now) {
  return released(c.query(release_node_sql, now, node));
}

// $1 now, $2 at most so many, $3 only those due by then. The reason goes in last_error
// and on the timeline, as the other cancellations record theirs.
const std::string removed_channel_sql = R"sql(
WITH gone AS (
  SELECT p.org_id, p.id,
         CASE WHEN o.disabled_at IS NOT NULL THEN 'org disabled'
              ELSE 'channel removed' END AS reason
  FROM delivery p JOIN org o ON o.id = p.org_id
  WHERE p.status = 'PENDING' AND p.next_attempt_at <= belay_ts($3)
    AND (o.disabled_at IS NOT NULL
         OR NOT EXISTS (SELECT 1 FROM channel ch
                        WHERE ch.org_id = p.org_id AND ch.name = p.channel))
  LIMIT $2 FOR UPDATE OF p SKIP LOCKED
), cancelled AS (
  UPDATE delivery d
  SET status = 'CANCELLED', held_by = NULL, next_attempt_at = NULL,
      last_error = gone.reason
  FROM gone WHERE d.org_id = gone.org_id AND d.id = gone.id
  RETURNING d.org_id, d.id, d.incident_id, d.channel, d.target, gone.reason
)
INSERT INTO timeline (org_id, incident_id, at, kind, detail)
SELECT org_id, incident_id, belay_ts($1), 'delivery_cancelled',
       jsonb_build_object('deliveryId', id, 'channel', channel, 'target', target,
                          'reason', reason)
FROM cancelled RETURNING 1)sql";

size_t cancel_removed_channel_deliveries(connection& c, micros now, int limit,
                                         micros due_by) {
  return static_cast<size_t>(c.query(removed_channel_sql, now, limit, due_by).rows());
}

micros retry_delay(const channel_config& ch, int failed_attempts) {
  double delay = ch.retry_base_seconds * std::pow(2.0, std::max(0, failed_attempts - 1));
  return static_cast<micros>(std::llround(std::min(delay, ch.retry_cap_seconds) * 1e6));
}

outcome_event outcome_of(const claimed_delivery& cd, const channel_config& ch,
                         const std::string& node, const attempt_result& res, micros now) {
  auto& d = cd.delivery;
  outcome_event e;
  e.org_id = d.org_id;
  e.delivery_id = d.id;
  e.node = node;
  e.attempts = d.attempts;
  e.status = res.sent                                         ? "SENT"
             : res.permanent || d.attempts >= ch.max_attempts ? "DEAD"
                                                              : "PENDING";
  e.next_attempt_at = now + retry_delay(ch, d.attempts);
  e.error = res.sent ? std::string{} : res.error;
  e.ambiguous = res.ambiguous;
  e.at = now;
  e.failover_to = e.status == "DEAD" ? ch.failover_to : std::string{};
  return e;
}

namespace {

// One outcome's row of $1.
void outcome_json(protocol::json_writer& w, const outcome_event& e) {
  w.StartObject();
  w.Key("org_id");
  w.Int64(e.org_id);
  w.Key("id");
  w.Int64(e.delivery_id);
  w.Key("node");
  protocol::write_string(w, e.node);
  w.Key("attempts");
  w.Int(e.attempts);
  w.Key("status");
  protocol::write_string(w, e.status);
  w.Key("next_at");
  w.Int64(e.next_attempt_at);
  w.Key("error");
  protocol::write_string(w, e.error);
  w.Key("ambiguous");
  w.Bool(e.ambiguous);
  w.Key("at");
  w.Int64(e.at);
  w.Key("failover_to");
  protocol::write_string(w, e.failover_to);
  w.EndObject();
}

} // namespace

std::vector<recorded_outcome> record_outcomes(connection& c,
                                              const std::vector<outcome_event>& events) {
  auto r = c.query(test_hooks::planted(test_hooks::dead_letter_every_outcome, outcome_sql,
                                       {{"FROM upd WHERE status = 'DEAD'\n  RETURNING",
                                         "FROM upd\n  RETURNING"}}),
                   json_rows(events, outcome_json));
  auto row_of = rows_by_id(r);
  std::vector<recorded_outcome> recorded(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    auto found = row_of.find({events[i].org_id, events[i].delivery_id});
    if (found == row_of.end())
      continue; // the claim lapsed and was taken over: its new holder records instead
    auto row = found->second;
    auto& out = recorded[i];
    int col = 2; // after the key
    BELAY_READ_COLUMNS(BELAY_OUTCOME_COLUMN_LIST)
  }
  return recorded;
}

std::vector<delivery_record> load_deliveries(connection& c, int64_t org_id,
                                             int64_t incident_id) {
  return read_rows<delivery_record>(c.query(deliveries_sql, org_id, incident_id),
                                    read_delivery);
}

std::vector<dead_letter_record> list_dead_letters(connection& c, int64_t org_id,
                                                  int limit) {
  return read_rows<dead_letter_record>(c.query(dead_letters_sql, org_id, limit),
                                       read_dead_letter);
}

delivery_page load_deliveries(connection& c, int64_t org_id, int64_t incident_id,
                              int64_t after_id, int limit) {
  auto r = c.query(deliveries_page_sql, org_id, incident_id, after_id, limit + 1);
  delivery_page page;
  page.deliveries = read_rows<delivery_record>(r, read_delivery, limit);
  if (r.rows() > limit)
    page.next_after = page.deliveries.back().id;
  return page;
}

dead_letter_page list_dead_letters(connection& c, int64_t org_id, int64_t before_id,
                                   int limit) {
  auto r = c.query(dead_letters_page_sql, org_id, before_id, limit + 1);
  dead_letter_page page;
  page.dead_letters = read_rows<dead_letter_record>(r, read_dead_letter, limit);
  if (r.rows() > limit)
    page.next_before = page.dead_letters.back().id;
  return page;
}

replay_result replay_dead_letter(connection& c, int64_t org_id, int64_t dead_letter_id,
                                 micros now, const attribution& who) {
  auto work = [&]() -> replay_result {
    auto r = c.query(replay_sql, org_id, dead_letter_id, now);
    if (r.rows() == 1) {
      replay_result out{reply_code::ok, r.int64(0, 0), r.str(0, 1)};
      if (!who.actor.empty())
        append_audit(
            c, audit_row(who, now, org_id, "dead_letter.replay", "dead letter",
                         std::to_string(dead_letter_id),
                         R"({"deliveryId":)" + std::to_string(out.delivery_id) + "}"));
      return out;
    }
    auto exists = c.query(dead_letter_exists_sql, org_id, dead_letter_id);
    return {exists.rows() ? reply_code::conflict : reply_code::not_found, 0, {}};
  };
  return audited(c, who, work);
}

std::vector<named_statement> delivery_statements() {
  return {{"delivery_claim", claim_sql},
          {"delivery_claimed", claimed_sql},
          {"delivery_recheck_read", recheck_read_sql},
          {"delivery_recheck", recheck_sql}};
}

} // namespace belay::storage
