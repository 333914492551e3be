// Trigger events, written in batches: one statement for every event a storage worker
// collected, instead of one statement each. The events of one key become one row, so
// ON CONFLICT never meets the same row twice in a statement.

#include "protocol/evidence.hpp"
#include "storage/alerts.hpp"
#include "storage/batch.hpp"
#include "storage/incident_rows.hpp"
#include "storage/merges.hpp"
#include "storage/statements.hpp"

#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace belay::storage {

namespace {

// How many payloads an incident keeps as evidence.
constexpr int evidence_kept = 5;

// $1: one JSON object per key (see group_json); the statement answers one row per key
// whose policy exists. Its timeline gets one entry per event, numbered like the
// events: the first creates the incident if none is open, every other is a duplicate.
// It comes in two forms, full and light, chained from the fragments below
// (upsert_variants).
constexpr std::string_view input_sql = R"sql(
WITH g AS (
  SELECT * FROM json_to_recordset($1::json) AS g(org_id bigint, dedup_key text,
      title text, severity text, policy text, shadow boolean, ats bigint[],
      evidence jsonb, details jsonb, owner text, lease_until bigint, integration text)
)
)sql";

// The reopen window (docs/guarantees.md#maintenance-windows): a key with no open incident
// whose last incident was resolved less than its policy's reopenSeconds before the key's
// first event reopens that incident (`reopen`) instead of inserting one; its ladder goes
// on from the step after the last one that fired, due when it would have been (resume_at)
// or at once. Only keys of a policy with a window probe for it (one index probe each);
// the INSERT leaves reopened keys alone, so the partial unique index still arbitrates
// every other write (G1): a reopen racing another node's write of the key waits on the
// row, and finds it OPEN or inserts nothing.
constexpr std::string_view reopen_sql =
    R"sql(, recent AS ( -- the r_ prefix keeps these apart
  SELECT g.org_id AS r_org, last.id AS r_id, g.ats AS r_ats, g.evidence AS r_evidence,
         g.shadow AS r_shadow, g.owner AS r_owner, g.lease_until AS r_lease
  FROM g JOIN policy p ON p.org_id = g.org_id AND p.name = g.policy
  CROSS JOIN LATERAL (
    SELECT x.id, x.policy, x.resolved_at, x.merged_into FROM incident x
    WHERE x.org_id = g.org_id AND x.dedup_key = g.dedup_key AND x.status = 'RESOLVED'
    ORDER BY x.id DESC LIMIT 1) last
  WHERE (p.definition->>'reopenSeconds')::float8 > 0 AND last.policy = g.policy
    AND last.merged_into IS NULL -- a merged incident lives on in the one it went into
    AND last.resolved_at > belay_ts(g.ats[1] -
          ((p.definition->>'reopenSeconds')::float8 * 1000000)::bigint)
    AND NOT EXISTS (SELECT 1 FROM incident o WHERE o.org_id = g.org_id
                    AND o.dedup_key = g.dedup_key AND o.status <> 'RESOLVED')
), reopen AS (
  UPDATE incident i SET status = 'OPEN', reopen_count = i.reopen_count + 1,
    next_fire_at = greatest(i.resume_at, belay_ts(r_ats[1])), resume_at = NULL,
    acked_at = NULL, acked_by = NULL, acked_via = NULL,
    resolved_at = NULL, resolved_by = NULL, resolved_via = NULL, firing_count = 1,
    event_count = i.event_count + cardinality(r_ats),
    last_seen_at = belay_ts(r_ats[cardinality(r_ats)]),
    evidence = belay_keep_last(i.evidence || r_evidence, 5),
    shadow = i.shadow AND r_shadow, owner = r_owner, lease_expires_at = belay_ts(r_lease),
    version = i.version + 1
  FROM recent WHERE i.org_id = r_org AND i.id = r_id AND i.status = 'RESOLVED'
  RETURNING )sql" BELAY_INCIDENT_COLUMNS_BUT_LADDER R"sql(,
    ladder::text, true AS inserted, true AS reopened
)
)sql";

// The probes find nothing for the keys of an org with no maintenance window yet to end
// and no policy with a reopen window: nearly every batch. The light statement skips
// them (they were a tenth of the statement's time at ten keys a batch, bench/README.md)
// and writes nothing at all when `needs` finds such an org: the full statement runs then.
// Both see the same windows and policies as of their snapshot, so a window or policy
// committed meanwhile is as late for one as for the other.
constexpr std::string_view needs_sql = R"sql(, needs AS (
  SELECT 1 FROM (SELECT org_id, min(ats[1]) AS first_at FROM g GROUP BY org_id) o
  WHERE EXISTS (SELECT 1 FROM maintenance w WHERE w.org_id = o.org_id
                AND w.end_at > belay_ts(o.first_at))
     OR EXISTS (SELECT 1 FROM policy p WHERE p.org_id = o.org_id
                AND p.definition ? 'reopenSeconds')
)
)sql";

constexpr std::string_view insert_head_sql = R"sql(, up AS (
  INSERT INTO incident AS i (org_id, dedup_key, title, severity, status, policy, ladder,
      shadow, next_fire_at, created_at, last_seen_at, event_count, evidence, details,
      owner, lease_expires_at, integration, held_until)
  SELECT g.org_id, g.dedup_key, g.title, g.severity, 'OPEN', p.name, p.definition,
      g.shadow,
      coalesce(m.until,
               belay_ts(g.ats[1] + (coalesce((p.definition->'steps'->0->>'delaySeconds')
                                                 ::float8, 0) * 1000000)::bigint)),
      belay_ts(g.ats[1]), belay_ts(g.ats[cardinality(g.ats)]), cardinality(g.ats),
      g.evidence, g.details, g.owner, belay_ts(g.lease_until), nullif(g.integration, ''),
      m.until
  FROM g JOIN policy p ON p.org_id = g.org_id AND p.name = g.policy
)sql";

// Maintenance (docs/guarantees.md#maintenance-windows): an incident opened while a window
// covers its policy or integration starts held (held_until, the window's end) and its
// ladder waits for it.
constexpr std::string_view insert_probing_sql = R"sql(
  CROSS JOIN LATERAL (
    SELECT max(w.end_at) AS until FROM maintenance w
    WHERE w.org_id = g.org_id AND w.end_at > belay_ts(g.ats[1])
      AND w.start_at <= belay_ts(g.ats[1])
      AND (w.policy = g.policy OR w.integration = g.integration)) m
  WHERE NOT EXISTS (SELECT 1 FROM reopen r WHERE r.org_id = g.org_id
                    AND r.dedup_key = g.dedup_key)
)sql";
constexpr std::string_view insert_light_sql = R"sql(
  CROSS JOIN (SELECT NULL::timestamptz AS until) m
  WHERE NOT EXISTS (SELECT 1 FROM needs)
)sql";

// Shadow never hides a live page (docs/guarantees.md#shadow-never-hides-a-live-page): a
// live event for a key that a shadow incident holds makes the incident live (shadow =
// i.shadow AND EXCLUDED.shadow), and the row trigger incident_goes_live (migration 0021)
// sends the shadowed pages of its last fired step after all; its next steps page as any
// other's.
constexpr std::string_view insert_tail_sql = R"sql(
  ORDER BY g.org_id, g.dedup_key
  ON CONFLICT (org_id, dedup_key) WHERE status <> 'RESOLVED' DO UPDATE SET
    event_count = i.event_count + EXCLUDED.event_count,
    last_seen_at = EXCLUDED.last_seen_at,
    evidence = belay_keep_last(i.evidence || EXCLUDED.evidence, 5),
    shadow = i.shadow AND EXCLUDED.shadow
  RETURNING )sql" BELAY_INCIDENT_COLUMNS_BUT_LADDER R"sql(,
    CASE WHEN xmax = 0 THEN ladder::text END, (xmax = 0) AS inserted, false AS reopened
)
)sql";

constexpr std::string_view note_sql = R"sql(, note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT w.org_id, w.id, belay_ts(e.at),
         CASE WHEN w.inserted AND e.k = 1
              THEN CASE WHEN w.reopened THEN 'reopened' ELSE 'created' END
              ELSE 'duplicate' END,
         jsonb_build_object('eventCount', w.event_count - cardinality(g.ats) + e.k)
           || CASE WHEN w.reopened AND e.k = 1
                   THEN jsonb_build_object('reopenCount', w.reopen_count)
                   ELSE '{}'::jsonb END
  FROM written w JOIN g USING (org_id, dedup_key),
       unnest(g.ats) WITH ORDINALITY AS e(at, k)
  ORDER BY w.id, e.k
)
)sql";

// The duplicate statement (migration 0022): for a batch whose keys all have an open
// incident, as far as the writer's hints know, a plain UPDATE does what the upsert's
// ON CONFLICT branch would, without the insert, the ladder and the probes that only a
// new or reopened incident needs. A key it cannot update as the upsert would (no open
// incident, an unknown policy, a live event for a shadow incident, which must go live
// through the upsert) makes belay_all_updated raise, and nothing commits. The keys are
// locked in the upsert's order, so that two writers of the same keys wait rather than
// deadlock.
constexpr std::string_view duplicate_sql = R"sql(, up AS (
  UPDATE incident i SET event_count = i.event_count + cardinality(d.d_ats),
    last_seen_at = belay_ts(d.d_ats[cardinality(d.d_ats)]),
    evidence = belay_keep_last(i.evidence || d.d_evidence, 5)
  FROM (SELECT g.org_id AS d_org, g.dedup_key AS d_key, g.ats AS d_ats,
               g.evidence AS d_evidence, g.shadow AS d_shadow
        FROM g WHERE EXISTS (SELECT 1 FROM policy p
                             WHERE p.org_id = g.org_id AND p.name = g.policy)
        ORDER BY g.org_id, g.dedup_key) d
  WHERE i.org_id = d.d_org AND i.dedup_key = d.d_key AND i.status <> 'RESOLVED'
    AND (d.d_shadow OR NOT i.shadow)
  RETURNING )sql" BELAY_INCIDENT_COLUMNS_BUT_LADDER R"sql(,
    NULL::text, false AS inserted, false AS reopened
)
)sql";

// The rows the statement wrote: the light statement reopens nothing.
constexpr std::string_view written_or_reopened_sql =
    ", written AS (SELECT * FROM up UNION ALL SELECT * FROM reopen)";
constexpr std::string_view written_sql = ", written AS (SELECT * FROM up)";

// The statement's mark (trigger_mark): the first statement of a batch inserts it ($2 id,
// $3 at) and deletes the writer's previous one ($4); a second statement, for the events
// that named another policy, appends to it. A plain INSERT, so that a fence written by a
// read-back makes the statement fail rather than commit unseen.
constexpr std::string_view insert_mark_text = R"sql(, mark AS (
  INSERT INTO trigger_mark (id, at, touched, created)
  SELECT $2::bigint, belay_ts($3::bigint), coalesce(array_agg(id), '{}'),
         coalesce(array_agg(id) FILTER (WHERE inserted), '{}') FROM written{{having}}
), pruned AS (
  DELETE FROM trigger_mark WHERE id = $4::bigint
)
)sql";
const std::string insert_mark_sql = fill(insert_mark_text, {{"having", ""}});
// The light statement's mark is written only when it wrote something: when it leaves
// the batch to the full statement, that one inserts the mark.
const std::string insert_mark_if_written_sql =
    fill(insert_mark_text, {{"having", " HAVING count(*) > 0"}});
constexpr std::string_view append_mark_sql = R"sql(, mark AS (
  UPDATE trigger_mark m SET touched = m.touched || a.touched,
                            created = m.created || a.created
  FROM (SELECT coalesce(array_agg(id), '{}') AS touched,
               coalesce(array_agg(id) FILTER (WHERE inserted), '{}') AS created
        FROM written) a
  WHERE m.id = $2::bigint
)
)sql";

// What the statement answers: a row for each key written.
constexpr std::string_view answer_sql = "SELECT * FROM written";
// The duplicate statement's answer, unless it could not update every key.
constexpr std::string_view answer_if_all_updated_sql = R"sql(SELECT * FROM written
WHERE belay_all_updated((SELECT count(*) FROM written), (SELECT count(*) FROM g)))sql";

enum class mark_write { none, insert, append };

// The upsert's variants, each as the fragments it chains, in order: full or light,
// writing no mark (in a caller's transaction), inserting the batch's mark (its first
// statement) or appending to it (a second one, for the events that named another
// policy). Each is checked in whole as tests/storage/golden/<name>.sql.
struct upsert_variant {
  const char* name;
  bool light;
  mark_write mark;
  std::string sql;
};

const upsert_variant upsert_variants[] = {
    {"trigger_full", false, mark_write::none,
     chain({input_sql, reopen_sql, insert_head_sql, insert_probing_sql, insert_tail_sql,
            written_or_reopened_sql, note_sql, answer_sql})},
    {"trigger_full_insert_mark", false, mark_write::insert,
     chain({input_sql, reopen_sql, insert_head_sql, insert_probing_sql, insert_tail_sql,
            written_or_reopened_sql, note_sql, insert_mark_sql, answer_sql})},
    {"trigger_full_append_mark", false, mark_write::append,
     chain({input_sql, reopen_sql, insert_head_sql, insert_probing_sql, insert_tail_sql,
            written_or_reopened_sql, note_sql, append_mark_sql, answer_sql})},
    {"trigger_light", true, mark_write::none,
     chain({input_sql, needs_sql, insert_head_sql, insert_light_sql, insert_tail_sql,
            written_sql, note_sql, answer_sql})},
    {"trigger_light_insert_mark", true, mark_write::insert,
     chain({input_sql, needs_sql, insert_head_sql, insert_light_sql, insert_tail_sql,
            written_sql, note_sql, insert_mark_if_written_sql, answer_sql})},
    {"trigger_light_append_mark", true, mark_write::append,
     chain({input_sql, needs_sql, insert_head_sql, insert_light_sql, insert_tail_sql,
            written_sql, note_sql, append_mark_sql, answer_sql})},
};

const std::string& upsert_statement(bool light, mark_write mark) {
  for (auto& v : upsert_variants)
    if (v.light == light && v.mark == mark)
      return v.sql;
  throw std::logic_error("no trigger statement for that variant");
}

// The duplicate statement writes a batch's only statement, and so its mark.
const std::string duplicate_statement =
    chain({input_sql, duplicate_sql, written_sql, note_sql, insert_mark_sql,
           answer_if_all_updated_sql});

// belay_all_updated's error: the batch is written again by the upsert.
constexpr const char* not_all_updated = "BLY01";
constexpr const char* deadlock_detected = "40P01";

// How many open keys a writer's hints remember; past it they start again.
constexpr size_t open_keys_kept = 16'384;

uint64_t open_key_hash(int64_t org_id, const std::string& dedup_key) {
  auto h = std::hash<std::string>{}(dedup_key);
  return h ^
         (static_cast<uint64_t>(org_id) * 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

// How long an org whose batch needed the probes goes straight to them.
constexpr micros probe_hint_lasts = 60'000'000;

// Fences a mark: inserted only where the batch's own never committed. Waits for a
// transaction that holds the key uncommitted (the batch, still in flight), at most
// lock_timeout.
const std::string fence_sql = R"sql(
INSERT INTO trigger_mark (id, at) VALUES ($1::bigint, belay_ts($2::bigint))
ON CONFLICT (id) DO NOTHING RETURNING id)sql";

// The incidents a committed batch wrote, and whether it created each: $1 the mark, $2
// the orgs of its events (the primary key leads with org_id). The mark does not say
// which it reopened: those read as created.
const std::string marked_sql = R"sql(
SELECT )sql" BELAY_INCIDENT_COLUMNS R"sql(,
       id = ANY((SELECT created FROM trigger_mark WHERE id = $1::bigint)::bigint[])
         AS inserted,
       false AS reopened
FROM incident WHERE org_id = ANY($2::bigint[])
  AND id = ANY((SELECT touched FROM trigger_mark WHERE id = $1::bigint)::bigint[]))sql";

const std::string prune_sql = R"sql(
DELETE FROM trigger_mark WHERE at < belay_ts($1::bigint))sql";

// The events of one key within one statement, in arrival order.
struct key_group {
  std::vector<size_t> events; // indexes into the caller's events
};

using group_key = std::pair<int64_t, std::string>; // org, dedup key

void write_raw(protocol::json_writer& w, const std::string& json) {
  w.RawValue(json.c_str(), json.size(), rapidjson::kObjectType);
}

// One key's row of $1 (write_trigger_row).
void group_json(protocol::json_writer& w, const std::vector<trigger_event>& events,
                const key_group& g) {
  w.StartObject();
  write_trigger_row(w, events, g.events);
  w.EndObject();
}

// Splits `pending` into this statement's groups and the events left for the next: an
// event whose policy differs from its key's first event in this statement waits, with
// every later event of its key, so each key's events keep their order.
std::vector<key_group> take_groups(const std::vector<trigger_event>& events,
                                   std::vector<size_t>& pending) {
  std::vector<key_group> groups;
  std::map<group_key, size_t> group_of;
  std::set<group_key> deferred;
  std::vector<size_t> later;
  for (auto i : pending) {
    auto& cmd = events[i].cmd;
    group_key key{cmd.org_id, cmd.dedup_key};
    if (deferred.count(key)) {
      later.push_back(i);
      continue;
    }
    auto it = group_of.find(key);
    if (it == group_of.end()) {
      group_of.emplace(key, groups.size());
      groups.push_back({{i}});
    } else if (events[groups[it->second].events.front()].cmd.policy != cmd.policy) {
      deferred.insert(key);
      later.push_back(i);
    } else {
      groups[it->second].events.push_back(i);
    }
  }
  pending = std::move(later);
  return groups;
}

// The incident row written for each key, and whether the write created (or reopened)
// it.
struct written_row {
  held_incident held;
  bool inserted = false;
  bool reopened = false;
};
using written_rows = std::map<group_key, written_row>;

written_rows rows_by_key(const result& r) {
  written_rows out;
  auto inserted = r.column("inserted");
  auto reopened = r.column("reopened");
  for (int row = 0; row < r.rows(); ++row) {
    written_row w{read_held(r, row), r.boolean(row, inserted), r.boolean(row, reopened)};
    group_key key{w.held.incident.org_id, w.held.incident.dedup_key};
    out.emplace(std::move(key), std::move(w));
  }
  return out;
}

// Fills in the result of each event of `groups` from the rows written for their keys:
// the first event of a key may have created its incident, the others are duplicates.
void answer_groups(const std::vector<trigger_event>& events,
                   const std::vector<key_group>& groups, const written_rows& rows,
                   std::vector<upsert_result>& out) {
  for (auto& g : groups) {
    auto& cmd = events[g.events.front()].cmd;
    auto found = rows.find({cmd.org_id, cmd.dedup_key});
    if (found == rows.end()) { // no such policy: nothing was written for this key
      for (auto i : g.events)
        out[i].code = reply_code::unknown_policy;
      continue;
    }
    auto& [held, inserted, reopened] = found->second;
    auto total = held.incident.event_count;
    auto n = static_cast<int64_t>(g.events.size());
    for (int64_t k = 0; k < n; ++k) {
      auto& res = out[g.events[k]];
      res.code = reply_code::ok;
      res.created = inserted && k == 0;
      res.reopened = reopened && k == 0;
      res.held.incident = held.incident;
      res.held.incident.event_count = total - n + k + 1;
      res.held.incident.last_seen_at = events[g.events[k]].at;
      if (res.created)
        res.held.ladder = held.ladder;
    }
  }
}

// The statements that write `events`, each a set of key groups (take_groups).
std::vector<std::vector<key_group>>
statements_of(const std::vector<trigger_event>& events) {
  std::vector<std::vector<key_group>> statements;
  std::vector<size_t> pending(events.size());
  for (size_t i = 0; i < events.size(); ++i)
    pending[i] = i;
  while (!pending.empty())
    statements.push_back(take_groups(events, pending));
  return statements;
}

// Writes `groups` and fills in the result of each of their events: by the light
// statement when it takes them all (a key it did not write named no policy), else, and
// when `hints` say so, by the full one.
void upsert_groups(connection& c, const std::vector<trigger_event>& events,
                   const std::vector<key_group>& groups, std::vector<upsert_result>& out,
                   mark_write write, const trigger_mark& mark, trigger_hints* hints) {
  auto rows =
      json_rows(groups, [&](auto& w, const key_group& g) { group_json(w, events, g); });
  // Every part of either statement reaches its rows by key (the open key's unique index,
  // the policy's, the resolved key's, maintenance by org): its plan keeps.
  auto run = [&](bool light) {
    auto& sql = upsert_statement(light, write);
    return rows_by_key(write == mark_write::none ? c.query_by_key(sql, rows)
                       : write == mark_write::insert
                           ? c.query_by_key(sql, rows, mark.id, mark.at, mark.previous)
                           : c.query_by_key(sql, rows, mark.id));
  };
  std::set<int64_t> orgs;
  for (auto& g : groups)
    orgs.insert(events[g.events.front()].cmd.org_id);
  auto at = events[groups.front().events.front()].at;
  if (!hints || !hints->probes_needed(orgs, at)) {
    auto written = run(true);
    if (!written.empty())
      return answer_groups(events, groups, written, out);
  }
  auto written = run(false);
  if (hints && !written.empty()) // else no key named a policy: nothing to learn
    hints->need_probes(orgs, at + probe_hint_lasts);
  answer_groups(events, groups, written, out);
}

// Writes `groups` by the duplicate statement when `hints` know every key open, and
// fills in their results; false when it wrote nothing (the upsert must). Only for a
// batch's one statement outside a transaction: its error must abort nothing else.
bool update_duplicates(connection& c, const std::vector<trigger_event>& events,
                       const std::vector<key_group>& groups,
                       std::vector<upsert_result>& out, const trigger_mark& mark,
                       trigger_hints& hints) {
  auto key_of = [&](const key_group& g) -> const trigger_command& {
    return events[g.events.front()].cmd;
  };
  for (auto& g : groups)
    if (!hints.open(key_of(g).org_id, key_of(g).dedup_key))
      return false;
  auto rows =
      json_rows(groups, [&](auto& w, const key_group& g) { group_json(w, events, g); });
  try {
    auto written = rows_by_key(
        c.query_by_key(duplicate_statement, rows, mark.id, mark.at, mark.previous));
    ++hints.duplicate_statements;
    answer_groups(events, groups, written, out);
    return true;
  } catch (const db_error& e) {
    if (e.sqlstate != not_all_updated && e.sqlstate != deadlock_detected)
      throw;
    ++hints.duplicate_misses;
    for (auto& g : groups) // the upsert learns them again
      hints.forget_open(key_of(g).org_id, key_of(g).dedup_key);
    return false;
  }
}

std::vector<upsert_result> upsert_ungrouped(connection& c,
                                            const std::vector<trigger_event>& events,
                                            const trigger_mark* mark,
                                            trigger_hints* hints) {
  auto statements = statements_of(events);
  std::vector<upsert_result> out(events.size());
  if (hints && mark && statements.size() == 1 && !c.in_transaction() &&
      update_duplicates(c, events, statements.front(), out, *mark, *hints))
    return out;
  auto run = [&] {
    for (size_t s = 0; s < statements.size(); ++s) {
      auto write = !mark    ? mark_write::none
                   : s == 0 ? mark_write::insert
                            : mark_write::append;
      upsert_groups(c, events, statements[s], out, write, mark ? *mark : trigger_mark{},
                    hints);
    }
  };
  // One statement is atomic on its own, and saves the round trips of BEGIN and COMMIT.
  if (statements.size() > 1 && !c.in_transaction())
    transaction(c, run);
  else
    run();
  // A key is remembered once it has a duplicate: a stream of new keys (a storm, distinct
  // alerts) would fill the hints with keys that may never come again.
  if (hints)
    for (size_t i = 0; i < events.size(); ++i)
      if (out[i].code == reply_code::ok && !out[i].created)
        hints->saw_open(events[i].cmd.org_id, events[i].cmd.dedup_key);
  return out;
}

// A batch with events of integrations that group (storage/alerts.hpp): the others are
// written as without them, then the grouped ones, in one transaction, under one mark.
std::vector<upsert_result> upsert(connection& c, const std::vector<trigger_event>& events,
                                  const trigger_mark* mark, trigger_hints* hints) {
  std::vector<size_t> grouped, ungrouped;
  for (size_t i = 0; i < events.size(); ++i)
    (events[i].cmd.alert_key.empty() ? ungrouped : grouped).push_back(i);
  if (grouped.empty())
    return upsert_ungrouped(c, events, mark, hints);
  std::vector<upsert_result> out(events.size());
  auto run = [&] {
    if (!ungrouped.empty()) {
      std::vector<trigger_event> plain;
      plain.reserve(ungrouped.size());
      for (auto i : ungrouped)
        plain.push_back(events[i]);
      auto written = upsert_ungrouped(c, plain, mark, hints);
      for (size_t k = 0; k < ungrouped.size(); ++k)
        out[ungrouped[k]] = std::move(written[k]);
    }
    auto writes = upsert_alerts(c, events, grouped, out);
    if (mark)
      mark_alert_writes(c, writes, *mark, ungrouped.empty());
  };
  if (c.in_transaction())
    run();
  else
    transaction(c, run);
  return out;
}

// "{1,2,3}": the orgs of `events`, as a bigint[] parameter.
std::string orgs_of(const std::vector<trigger_event>& events) {
  std::set<int64_t> orgs;
  for (auto& e : events)
    orgs.insert(e.cmd.org_id);
  return bigint_array(orgs);
}

} // namespace

void write_trigger_row(protocol::json_writer& w, const std::vector<trigger_event>& events,
                       const std::vector<size_t>& which) {
  auto& first = events[which.front()];
  auto& cmd = first.cmd;
  w.Key("org_id");
  w.Int64(cmd.org_id);
  w.Key("dedup_key");
  protocol::write_string(w, cmd.dedup_key);
  w.Key("title");
  protocol::write_string(w, cmd.title);
  w.Key("severity");
  protocol::write_string(w, cmd.severity);
  w.Key("policy");
  protocol::write_string(w, cmd.policy);
  w.Key("shadow");
  w.Bool(cmd.shadow);
  w.Key("ats");
  w.StartArray();
  for (auto i : which)
    w.Int64(events[i].at);
  w.EndArray();
  w.Key("evidence");
  w.StartArray();
  auto kept = std::min<size_t>(which.size(), evidence_kept);
  for (auto i = which.size() - kept; i < which.size(); ++i)
    protocol::write_evidence(w, events[which[i]].cmd.payload_json);
  w.EndArray();
  w.Key("details");
  write_raw(w, cmd.details_json);
  w.Key("owner");
  protocol::write_string(w, first.owner.node);
  w.Key("lease_until");
  w.Int64(first.owner.lease_until);
  w.Key("integration");
  protocol::write_string(w, cmd.integration);
}

// A merged incident's key joins the incident it went into (storage/merges.hpp).
std::vector<upsert_result> upsert_triggers(connection& c,
                                           const std::vector<trigger_event>& events) {
  return upsert(c, redirect_merged(c, events), nullptr, nullptr);
}

std::vector<upsert_result> upsert_triggers(connection& c,
                                           const std::vector<trigger_event>& events,
                                           const trigger_mark& mark,
                                           trigger_hints& hints) {
  return upsert(c, redirect_merged(c, events), &mark, &hints);
}

bool trigger_hints::probes_needed(const std::set<int64_t>& orgs, micros at) const {
  for (auto org : orgs)
    if (auto it = probes_until_.find(org); it != probes_until_.end() && it->second > at)
      return true;
  return false;
}

void trigger_hints::need_probes(const std::set<int64_t>& orgs, micros until) {
  for (auto org : orgs)
    probes_until_[org] = until;
}

bool trigger_hints::open(int64_t org_id, const std::string& dedup_key) const {
  return open_.count(open_key_hash(org_id, dedup_key)) > 0;
}

void trigger_hints::saw_open(int64_t org_id, const std::string& dedup_key) {
  auto h = open_key_hash(org_id, dedup_key);
  if (open_.size() >= open_keys_kept && !open_.count(h))
    open_.clear();
  open_.insert(h);
}

void trigger_hints::forget_open(int64_t org_id, const std::string& dedup_key) {
  open_.erase(open_key_hash(org_id, dedup_key));
}

std::optional<std::vector<upsert_result>>
read_back_triggers(connection& c, const std::vector<trigger_event>& sent,
                   const trigger_mark& mark) {
  auto events = redirect_merged(c, sent); // as the batch wrote them
  return transaction(c, [&]() -> std::optional<std::vector<upsert_result>> {
    // A batch still in flight holds the mark's key until it commits or aborts; a
    // connection lost without a word can hold it until TCP gives up on it.
    c.exec("SET LOCAL lock_timeout = '5s'");
    if (c.query(fence_sql, mark.id, mark.at).rows() == 1)
      return std::nullopt; // never committed, and now it never will
    auto rows = rows_by_key(c.query(marked_sql, mark.id, orgs_of(events)));
    // A key's incident was created by its first statement's write only.
    std::vector<upsert_result> out(events.size());
    for (auto& groups : statements_of(events)) {
      answer_groups(events, groups, rows, out);
      for (auto& g : groups) {
        auto& cmd = events[g.events.front()].cmd;
        if (auto it = rows.find({cmd.org_id, cmd.dedup_key}); it != rows.end())
          it->second.inserted = false;
      }
    }
    return out;
  });
}

void prune_trigger_marks(connection& c, micros before) {
  c.query(prune_sql, before);
}

std::vector<named_statement> trigger_statements() {
  std::vector<named_statement> out;
  for (auto& v : upsert_variants)
    out.push_back({v.name, v.sql});
  out.push_back({"trigger_duplicate", duplicate_statement});
  return out;
}

} // namespace belay::storage
