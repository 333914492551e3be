#include "storage/alerts.hpp"

#include "storage/batch.hpp"
#include "storage/columns.hpp"
#include "storage/incident_rows.hpp"
#include "storage/test_hooks.hpp"

#include <map>

namespace belay::storage {

namespace {

// $1: one JSON object per alert key (alert_json), in the order of their first events.
constexpr std::string_view alert_input_sql = R"sql(
WITH g AS (
  SELECT * FROM json_to_recordset($1::json) AS g(org_id bigint, alert_key text,
      dedup_key text, title text, severity text, policy text, shadow boolean,
      ats bigint[], evidence jsonb, details jsonb, owner text, lease_until bigint,
      integration text, ord int)
)
)sql";

// The keys whose alert fires count on that alert's incident, whatever their group key
// says now: the alert and its incident count the events, and each event is a duplicate
// on the timeline. Alerts are locked in key order, incidents in id order, as every writer
// of them does. Answers a row per alert key it found.
constexpr std::string_view repeat_sql = R"sql(, hit AS (
  SELECT a.org_id AS h_org, a.id AS h_id FROM alert a JOIN g
    ON a.org_id = g.org_id AND a.key = g.alert_key AND a.status = 'FIRING'
  ORDER BY a.org_id, a.key FOR UPDATE OF a
), seen AS (
  UPDATE alert a SET event_count = a.event_count + cardinality(g.ats),
    last_seen_at = belay_ts(g.ats[cardinality(g.ats)])
  FROM hit, g
  WHERE a.org_id = h_org AND a.id = h_id AND g.org_id = a.org_id AND g.alert_key = a.key
  RETURNING a.org_id, a.incident_id, a.key AS alert_key, a.event_count, g.ats,
            g.evidence, g.shadow, g.ord
), per AS (
  SELECT s.org_id AS p_org, s.incident_id AS p_id,
         sum(cardinality(s.ats))::bigint AS p_events,
         max(s.ats[cardinality(s.ats)]) AS p_last, bool_and(s.shadow) AS p_shadow,
         (SELECT coalesce(jsonb_agg(x.e ORDER BY o.ord, x.n), '[]'::jsonb)
          FROM seen o CROSS JOIN LATERAL jsonb_array_elements(o.evidence)
               WITH ORDINALITY AS x(e, n)
          WHERE o.org_id = s.org_id AND o.incident_id = s.incident_id) AS p_evidence
  FROM seen s GROUP BY s.org_id, s.incident_id
), up AS (
  UPDATE incident i SET event_count = i.event_count + p_events,
    last_seen_at = greatest(i.last_seen_at, belay_ts(p_last)),
    evidence = belay_keep_last(i.evidence || p_evidence, 5),
    shadow = i.shadow AND p_shadow
  FROM (SELECT * FROM per ORDER BY p_org, p_id) p
  WHERE i.org_id = p_org AND i.id = p_id
  RETURNING )sql" BELAY_INCIDENT_COLUMNS_BUT_LADDER R"sql(, NULL::text AS ladder,
    )sql" BELAY_INCIDENT_COUNTS R"sql(
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT s.org_id, s.incident_id, belay_ts(e.at), 'duplicate',
         jsonb_build_object('alert', s.alert_key,
                            'eventCount', s.event_count - cardinality(s.ats) + e.k)
  FROM seen s, unnest(s.ats) WITH ORDINALITY AS e(at, k)
  ORDER BY s.incident_id, s.ord, e.k
)
SELECT up.*, s.alert_key, false AS opened FROM up
JOIN seen s ON s.org_id = up.org_id AND s.incident_id = up.id)sql";

// New alerts: those of one group key join its non-resolved incident or open one (the
// partial unique index on the dedup key arbitrates, G1), named by its first alert, with
// the highest severity of them all. The alert rows go in with a plain INSERT: a key
// another writer has just made fire fails the batch, and its events, written again one
// by one, find that alert (G1 for alerts). A resolved incident takes no alert (G2): the
// insert opens the next one. The first alert of an incident it opens is `created` on
// the timeline, every other `alert_added`, every further event a duplicate. Answers a
// row per alert key written.
constexpr std::string_view new_sql = R"sql(, firsts AS (
  SELECT DISTINCT ON (g.org_id, g.dedup_key) * FROM g
  ORDER BY g.org_id, g.dedup_key, g.ord
), sums AS (
  SELECT g.org_id AS s_org, g.dedup_key AS s_key, count(*)::int AS s_alerts,
         sum(cardinality(g.ats))::bigint AS s_events, min(g.ats[1]) AS s_first,
         max(g.ats[cardinality(g.ats)]) AS s_last, bool_and(g.shadow) AS s_shadow,
         (array_agg(g.severity ORDER BY belay_severity_rank(g.severity) DESC,
                    g.ord))[1] AS s_severity,
         belay_keep_last((SELECT coalesce(jsonb_agg(x.e ORDER BY o.ord, x.n), '[]')
                          FROM g o CROSS JOIN LATERAL jsonb_array_elements(o.evidence)
                               WITH ORDINALITY AS x(e, n)
                          WHERE o.org_id = g.org_id AND o.dedup_key = g.dedup_key),
                         5) AS s_evidence
  FROM g GROUP BY g.org_id, g.dedup_key
), up AS (
  INSERT INTO incident AS i (org_id, dedup_key, title, severity, status, policy, ladder,
      shadow, next_fire_at, created_at, last_seen_at, event_count, evidence, details,
      owner, lease_expires_at, integration, held_until, alert_count, firing_count)
  SELECT f.org_id, f.dedup_key, f.title, s_severity, 'OPEN', p.name, p.definition,
      s_shadow,
      coalesce(m.until,
               belay_ts(s_first + (coalesce((p.definition->'steps'->0->>'delaySeconds')
                                                ::float8, 0) * 1000000)::bigint)),
      belay_ts(s_first), belay_ts(s_last), s_events, s_evidence, f.details, f.owner,
      belay_ts(f.lease_until), nullif(f.integration, ''), m.until, s_alerts, s_alerts
  FROM firsts f JOIN sums ON s_org = f.org_id AND s_key = f.dedup_key
  JOIN policy p ON p.org_id = f.org_id AND p.name = f.policy
  CROSS JOIN LATERAL (
    SELECT max(w.end_at) AS until FROM maintenance w
    WHERE w.org_id = f.org_id AND w.end_at > belay_ts(s_first)
      AND w.start_at <= belay_ts(s_first)
      AND (w.policy = f.policy OR w.integration = f.integration)) m
  ORDER BY f.org_id, f.dedup_key
  ON CONFLICT (org_id, dedup_key) WHERE status <> 'RESOLVED' DO UPDATE SET
    event_count = i.event_count + EXCLUDED.event_count,
    last_seen_at = EXCLUDED.last_seen_at,
    evidence = belay_keep_last(i.evidence || EXCLUDED.evidence, 5),
    shadow = i.shadow AND EXCLUDED.shadow,
    alert_count = i.alert_count + EXCLUDED.alert_count,
    firing_count = i.firing_count + EXCLUDED.firing_count,
    severity = CASE WHEN belay_severity_rank(EXCLUDED.severity) >
                         belay_severity_rank(i.severity)
                    THEN EXCLUDED.severity ELSE i.severity END
  RETURNING )sql" BELAY_INCIDENT_COLUMNS_BUT_LADDER R"sql(,
    CASE WHEN xmax = 0 THEN ladder::text END AS ladder, )sql" BELAY_INCIDENT_COUNTS
                                     R"sql(,
    (xmax = 0) AS inserted
), ranked AS (
  SELECT g.*, up.id AS incident_id, up.inserted, up.alert_count AS total,
         row_number() OVER (PARTITION BY g.org_id, g.dedup_key ORDER BY g.ord) AS n,
         count(*) OVER (PARTITION BY g.org_id, g.dedup_key) AS new_alerts
  FROM g JOIN up ON up.org_id = g.org_id AND up.dedup_key = g.dedup_key
), added AS (
  INSERT INTO alert (org_id, incident_id, key, status, title, severity, first_seen_at,
                     last_seen_at, event_count)
  SELECT r.org_id, r.incident_id, r.alert_key, 'FIRING', r.title, r.severity,
         belay_ts(r.ats[1]), belay_ts(r.ats[cardinality(r.ats)]), cardinality(r.ats)
  FROM ranked r ORDER BY r.org_id, r.alert_key
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT r.org_id, r.incident_id, belay_ts(e.at),
         CASE WHEN e.k > 1 THEN 'duplicate'
              WHEN r.inserted AND r.n = 1 THEN 'created'
              ELSE 'alert_added' END,
         CASE WHEN e.k > 1 THEN jsonb_build_object('alert', r.alert_key, 'eventCount', e.k)
              WHEN r.inserted AND r.n = 1
                THEN jsonb_build_object('eventCount', 1, 'alert', r.alert_key)
              ELSE jsonb_build_object('key', r.alert_key, 'title', r.title,
                                      'severity', r.severity,
                                      'alertCount', r.total - r.new_alerts + r.n) END
  FROM ranked r, unnest(r.ats) WITH ORDINALITY AS e(at, k)
  ORDER BY r.incident_id, r.n, e.k
)
SELECT up.*, r.alert_key, (r.inserted AND r.n = 1) AS opened
FROM ranked r JOIN up ON up.org_id = r.org_id AND up.id = r.incident_id)sql";

const std::string alert_repeat_sql = chain({alert_input_sql, repeat_sql});
const std::string alert_new_sql = chain({alert_input_sql, new_sql});

// The batch's mark (triggers.cpp): $1 id, $2 at, $3 the writer's previous mark, $4 the
// incidents touched, $5 those opened.
const std::string mark_insert_sql = R"sql(
WITH mark AS (
  INSERT INTO trigger_mark (id, at, touched, created)
  VALUES ($1::bigint, belay_ts($2::bigint), $4::bigint[], $5::bigint[])
)
DELETE FROM trigger_mark WHERE id = $3::bigint)sql";
const std::string mark_append_sql = R"sql(
UPDATE trigger_mark SET touched = touched || $2::bigint[], created = created || $3::bigint[]
WHERE id = $1::bigint)sql";

// An alert's resolve: $1 org, $2 alert key, $3 now, $4 by, $5 via. Its incident keeps
// the highest severity of the alerts still firing (the snapshot still sees this one
// firing, hence the key left out).
const std::string alert_resolve_sql = R"sql(
WITH hit AS (
  UPDATE alert a SET status = 'RESOLVED', resolved_at = belay_ts($3)
  WHERE a.org_id = $1 AND a.key = $2 AND a.status = 'FIRING'
  RETURNING a.org_id AS h_org, a.incident_id AS h_incident
), up AS (
  UPDATE incident i SET firing_count = i.firing_count - 1,
    severity = coalesce((SELECT f.severity FROM alert f
                         WHERE f.org_id = i.org_id AND f.incident_id = i.id
                           AND f.status = 'FIRING' AND f.key <> $2
                         ORDER BY belay_severity_rank(f.severity) DESC LIMIT 1),
                        i.severity)
  FROM hit WHERE i.org_id = h_org AND i.id = h_incident
  RETURNING )sql" BELAY_INCIDENT_COLUMNS_BUT_LADDER R"sql(, NULL::text AS ladder,
    )sql" BELAY_INCIDENT_COUNTS R"sql(
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT up.org_id, up.id, belay_ts($3), 'alert_resolved',
         jsonb_build_object('key', $2::text, 'by', $4::text, 'via', $5::text,
                            'firingCount', up.firing_count)
  FROM up
)
SELECT * FROM up)sql";

const std::string firing_incident_sql = R"sql(
SELECT incident_id FROM alert WHERE org_id = $1 AND key = $2 AND status = 'FIRING')sql";

// clang-format off
#define BELAY_ALERT_COLUMN_LIST(first, next)                                             \
  first(id, "id")                                                                        \
  next(key, "key")                                                                       \
  next(status, "status")                                                                 \
  next(title, "title")                                                                   \
  next(severity, "severity")                                                             \
  next(first_seen_at, "belay_us(first_seen_at)")                                         \
  next(last_seen_at, "belay_us(last_seen_at)")                                           \
  next(event_count, "event_count")
// clang-format on

// Newest first, through alert_by_incident: $3 the cursor (0: from the newest), $4 how
// many.
const std::string alerts_sql = R"sql(
SELECT )sql" BELAY_SELECT_LIST(BELAY_ALERT_COLUMN_LIST) R"sql( FROM alert
WHERE org_id = $1 AND incident_id = $2 AND ($3::bigint = 0 OR id < $3::bigint)
ORDER BY id DESC LIMIT $4)sql";

const std::string evidence_sql = R"sql(
SELECT coalesce((SELECT jsonb_agg(x.e ORDER BY x.n DESC)
                 FROM jsonb_array_elements(i.evidence) WITH ORDINALITY AS x(e, n)),
                '[]')::text
FROM incident i WHERE org_id = $1 AND id = $2)sql";

// The events of one alert key in one write, in arrival order.
struct alert_group {
  std::vector<size_t> events; // indexes into the caller's events
};

using alert_id = std::pair<int64_t, std::string>; // org, alert key

std::vector<alert_group> alerts_of(const std::vector<trigger_event>& events,
                                   const std::vector<size_t>& which) {
  std::vector<alert_group> groups;
  std::map<alert_id, size_t> group_of;
  for (auto i : which) {
    auto& cmd = events[i].cmd;
    auto [it, fresh] =
        group_of.emplace(alert_id{cmd.org_id, cmd.alert_key}, groups.size());
    if (fresh)
      groups.push_back({});
    groups[it->second].events.push_back(i);
  }
  return groups;
}

// One alert key's row of $1: its first event names the alert (and with its group key,
// the incident it opens), as write_trigger_row writes a key's; `ord` orders the alerts.
void alert_json(protocol::json_writer& w, const std::vector<trigger_event>& events,
                const alert_group& g, int ord) {
  w.StartObject();
  write_trigger_row(w, events, g.events);
  w.Key("alert_key");
  protocol::write_string(w, events[g.events.front()].cmd.alert_key);
  w.Key("ord");
  w.Int(ord);
  w.EndObject();
}

struct alert_row {
  held_incident held;
  bool opened = false;   // its first event opened the incident
  bool inserted = false; // a new alert (else a repeat of a firing one)
};

// Runs `sql` for `groups` and returns the row written for each alert key.
std::map<alert_id, alert_row> write_groups(connection& c, const std::string& sql,
                                           const std::vector<trigger_event>& events,
                                           const std::vector<alert_group>& groups,
                                           bool new_alerts) {
  int ord = 0;
  auto rows = json_rows(
      groups, [&](auto& w, const alert_group& g) { alert_json(w, events, g, ord++); });
  auto r = c.query_by_key(sql, rows);
  count_reader counts{r};
  auto key_col = r.column("alert_key");
  auto opened_col = r.column("opened");
  std::map<alert_id, alert_row> out;
  for (int row = 0; row < r.rows(); ++row) {
    alert_row a{read_counted(r, row, counts), r.boolean(row, opened_col), new_alerts};
    alert_id id{a.held.incident.org_id, r.str(row, key_col)};
    out.emplace(std::move(id), std::move(a));
  }
  return out;
}

// Each event's result: an alert's first event opened its incident, joined one, or
// repeated a firing alert; its other events are duplicates.
void answer_alerts(const std::vector<trigger_event>& events, const alert_group& g,
                   const alert_row& row, std::vector<upsert_result>& out) {
  auto n = static_cast<int64_t>(g.events.size());
  for (int64_t k = 0; k < n; ++k) {
    auto& res = out[g.events[k]];
    res.code = reply_code::ok;
    res.created = row.opened && k == 0;
    res.joined = row.inserted && !row.opened && k == 0;
    res.held.incident = row.held.incident;
    res.held.incident.last_seen_at = events[g.events[k]].at;
    if (res.created)
      res.held.ladder = row.held.ladder;
  }
}

} // namespace

alert_writes upsert_alerts(connection& c, const std::vector<trigger_event>& events,
                           const std::vector<size_t>& which,
                           std::vector<upsert_result>& out) {
  auto groups = alerts_of(events, which);
  alert_writes writes;
  auto learn = [&](const std::map<alert_id, alert_row>& rows) {
    for (auto& [id, row] : rows) {
      writes.touched.push_back(row.held.incident.id);
      if (row.opened)
        writes.created.push_back(row.held.incident.id);
    }
  };
  auto repeated = test_hooks::skip_firing_alert_lookup
                      ? std::map<alert_id, alert_row>{}
                      : write_groups(c, alert_repeat_sql, events, groups, false);
  learn(repeated);
  std::vector<alert_group> fresh;
  for (auto& g : groups) {
    auto& cmd = events[g.events.front()].cmd;
    if (auto it = repeated.find({cmd.org_id, cmd.alert_key}); it != repeated.end())
      answer_alerts(events, g, it->second, out);
    else
      fresh.push_back(g);
  }
  if (fresh.empty())
    return writes;
  auto written =
      write_groups(c,
                   test_hooks::planted(test_hooks::alert_row_not_written, alert_new_sql,
                                       {{"FROM ranked r ORDER BY",
                                         "FROM ranked r WHERE false ORDER BY"}}),
                   events, fresh, true);
  learn(written);
  for (auto& g : fresh) {
    auto& cmd = events[g.events.front()].cmd;
    auto it = written.find({cmd.org_id, cmd.alert_key});
    if (it != written.end()) {
      answer_alerts(events, g, it->second, out);
      continue;
    }
    for (auto i : g.events) // no such policy: nothing was written for this alert
      out[i].code = reply_code::unknown_policy;
  }
  return writes;
}

void mark_alert_writes(connection& c, const alert_writes& writes,
                       const trigger_mark& mark, bool insert) {
  auto touched = bigint_array(writes.touched);
  auto created = bigint_array(writes.created);
  if (insert)
    c.query(mark_insert_sql, mark.id, mark.at, mark.previous, touched, created);
  else
    c.query(mark_append_sql, mark.id, touched, created);
}

std::optional<transition_reply>
apply_alert_transition(connection& c, const transition_command& cmd, micros now) {
  auto by_incident = [&](int64_t id) {
    auto direct = cmd;
    direct.alert_key = false;
    direct.incident_id = id;
    return apply_transition(c, direct, now);
  };
  if (cmd.kind == transition::ack) {
    auto r = c.query(firing_incident_sql, cmd.org_id, cmd.dedup_key);
    if (r.rows() == 0)
      return std::nullopt;
    return by_incident(r.int64(0, 0));
  }
  auto work = [&]() -> std::optional<transition_reply> {
    auto r = c.query(alert_resolve_sql, cmd.org_id, cmd.dedup_key, now, cmd.by, cmd.via);
    if (r.rows() == 0)
      return std::nullopt;
    auto held = read_counted(r, 0, count_reader{r});
    if (held.incident.firing_count > 0 || test_hooks::keep_incident_after_last_alert)
      return transition_reply{reply_code::ok, std::move(held.incident)};
    return by_incident(held.incident.id); // its last firing alert: the incident resolves
  };
  return c.in_transaction() ? work() : transaction(c, work);
}

alert_page load_alerts(connection& c, const incident_record& incident, int64_t after,
                       int limit) {
  auto r = c.query(alerts_sql, incident.org_id, incident.id, after, limit + 1);
  alert_page page;
  page.alerts =
      read_rows<alert_record>(r, BELAY_ROW_READER(BELAY_ALERT_COLUMN_LIST), limit);
  if (r.rows() > limit)
    page.next_after = page.alerts.back().id;
  if (r.rows() == 0 && after == 0) // an incident that is its own alert
    page.alerts.push_back(alert_record{
        0, incident.dedup_key, incident.status == status_resolved ? "RESOLVED" : "FIRING",
        incident.title, incident.severity, incident.created_at, incident.last_seen_at,
        incident.event_count});
  return page;
}

std::string load_evidence(connection& c, int64_t org_id, int64_t id) {
  auto r = c.query(evidence_sql, org_id, id);
  return r.rows() == 0 ? "[]" : r.str(0, 0);
}

std::vector<named_statement> alert_statements() {
  return {{"alert_repeat", alert_repeat_sql},
          {"alert_new", alert_new_sql},
          {"alert_resolve", alert_resolve_sql}};
}

} // namespace belay::storage
