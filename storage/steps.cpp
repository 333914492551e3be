// Ladder steps, fired in batches: one statement for every step a storage worker
// collected, each row still its own compare-and-set.

#include "protocol/json_writer.hpp"
#include "storage/batch.hpp"
#include "storage/incident_rows.hpp"
#include "storage/test_hooks.hpp"

namespace belay::storage {

namespace {

// $1: one JSON object per step (see fire_json); $2 and $3: their orgs and ids. The f_
// prefix keeps the input's columns apart from the incident's in the UPDATE … FROM.
// Maintenance (docs/guarantees.md#maintenance-windows): a step due while a window covers
// the incident's policy or integration (f_until, the latest end among them; one probe of
// a small table per step) does not fire: the compare-and-set holds the ladder instead,
// back at its first step, until the window's end (held_until, next_fire_at), and pages
// nobody. A ladder held after it paged begins again with keys of its own (restarts).
const std::string fire_sql = R"sql(
WITH f AS (
  SELECT * FROM json_to_recordset($1::json) AS f(f_org bigint, f_id bigint, f_step int,
      f_loop int, f_version bigint, f_next_step int, f_next_loop int, f_next_fire_at bigint,
      f_exhausted_at bigint, f_at bigint, f_scheduled_at bigint, f_targets json,
      f_nobody json, f_policy text, f_integration text)
), h AS MATERIALIZED ( -- once per step: inlined, each use of f_until probed again
  SELECT f.*, 'OPEN'::text AS f_status, (SELECT max(w.end_at) FROM maintenance w
               WHERE w.org_id = f_org AND w.end_at > belay_ts(f_at)
                 AND w.start_at <= belay_ts(f_at)
                 AND (w.policy = f_policy OR w.integration = f_integration)) AS f_until
  FROM f
), cas AS (
  UPDATE incident SET
         current_step = CASE WHEN f_until IS NULL THEN f_next_step ELSE 0 END,
         loop = CASE WHEN f_until IS NULL THEN f_next_loop ELSE 0 END,
         next_fire_at = coalesce(f_until, belay_ts(f_next_fire_at)),
         exhausted_at = CASE WHEN f_until IS NULL THEN belay_ts(f_exhausted_at) END,
         held_until = f_until,
         restarts = restarts + CASE WHEN f_until IS NOT NULL AND (f_step, f_loop) <> (0, 0)
                                    THEN 1 ELSE 0 END,
         version = version + 1
  FROM h
  WHERE org_id = f_org AND id = f_id AND status = f_status AND current_step = f_step
        AND loop = f_loop AND version = f_version
        -- The batch's keys as index conditions, and the status a column rather than a
        -- constant: planned while the table had no statistics yet (a new node's first
        -- minute, every bench run), `status = 'OPEN'` read as 0.5% of the rows, and the
        -- plan hashed every open incident of the org (6 ms per batch, not 0.6).
        AND org_id = ANY ($2::bigint[]) AND id = ANY ($3::bigint[])
  RETURNING )sql" BELAY_INCIDENT_COLUMNS_BUT_LADDER R"sql(, NULL::text,
            f_step, f_loop, f_at, f_scheduled_at, f_targets, f_nobody,
            f_until IS NOT NULL AS f_held, f_until,
            CASE WHEN restarts > 0 THEN ':r' || restarts ELSE '' END AS f_round
), pages AS (
  INSERT INTO delivery (org_id, incident_id, loop, step, channel, target, idempotency_key,
                        status, next_attempt_at, created_at, user_name, status_updates)
  SELECT cas.org_id, cas.id, f_loop, f_step, t.channel, t."to",
         belay_delivery_key(cas.id, f_loop, f_step, t.channel, t."to") || f_round,
         CASE WHEN cas.shadow THEN 'SHADOWED' ELSE 'PENDING' END,
         belay_ts(f_at + t.delay), belay_ts(f_at), t."user", coalesce(t.updates, false)
  FROM cas, json_to_recordset(f_targets) AS t(channel text, "to" text, delay bigint,
                                             "user" text, updates boolean)
  WHERE NOT f_held
  ON CONFLICT (idempotency_key) DO NOTHING
  RETURNING org_id, incident_id
), paged AS ( -- a join: a subquery per step would rescan every page of the batch
  SELECT org_id, incident_id, count(*) AS n FROM pages GROUP BY org_id, incident_id
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT cas.org_id, cas.id, belay_ts(f_at),
         CASE WHEN f_held THEN 'maintenance_hold' ELSE 'step_fired' END,
         jsonb_build_object('step', f_step, 'loop', f_loop,
                            'deliveries', coalesce(paged.n, 0),
                            'scheduledAt', to_char(belay_ts(f_scheduled_at) AT TIME ZONE 'UTC',
                                                   'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         -- a held step names the window's end
         || CASE WHEN f_held THEN jsonb_build_object('until',
                   to_char(f_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                 ELSE '{}'::jsonb END
         -- who was paged through a person or a schedule, and how
         || CASE WHEN people.paged IS NULL OR f_held THEN '{}'::jsonb
                 ELSE jsonb_build_object('paged', people.paged) END
  FROM cas LEFT JOIN paged ON paged.org_id = cas.org_id AND paged.incident_id = cas.id
  LEFT JOIN LATERAL (
    SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
             'user', t."user", 'schedule', t.schedule, 'channel', t.channel, 'to', t."to",
             'delaySeconds', (t.delay / 1e6)::float8))) AS paged
    FROM json_to_recordset(cas.f_targets)
         AS t(channel text, "to" text, delay bigint, "user" text, schedule text)
    WHERE t."user" IS NOT NULL) people ON true
  ORDER BY cas.id
), nobody AS ( -- loud: a schedule had nobody on call (docs/guarantees.md#on-call)
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT cas.org_id, cas.id, belay_ts(f_at), 'no_one_on_call',
         jsonb_build_object('schedule', s.name, 'step', f_step, 'loop', f_loop)
  FROM cas, json_array_elements_text(cas.f_nobody) AS s(name)
  WHERE NOT f_held
)
SELECT * FROM cas)sql";

void fire_json(protocol::json_writer& w, const fire_event& f) {
  w.StartObject();
  w.Key("f_org");
  w.Int64(f.org_id);
  w.Key("f_id");
  w.Int64(f.id);
  w.Key("f_step");
  w.Int(f.step);
  w.Key("f_loop");
  w.Int(f.loop);
  w.Key("f_version");
  w.Int64(f.version);
  w.Key("f_next_step");
  w.Int(f.next.step);
  w.Key("f_next_loop");
  w.Int(f.next.loop);
  w.Key("f_next_fire_at");
  w.Int64(f.next.fire_at);
  w.Key("f_exhausted_at");
  if (f.next.exhausted_at)
    w.Int64(*f.next.exhausted_at);
  else
    w.Null();
  w.Key("f_at");
  w.Int64(f.at);
  w.Key("f_scheduled_at");
  w.Int64(f.scheduled_at);
  w.Key("f_targets");
  w.StartArray();
  for (auto& p : f.pages.pages) {
    w.StartObject();
    w.Key("channel");
    protocol::write_string(w, p.channel);
    w.Key("to");
    protocol::write_string(w, p.to);
    w.Key("delay");
    w.Int64(p.delay);
    if (!p.user.empty()) {
      w.Key("user");
      protocol::write_string(w, p.user);
    }
    if (!p.schedule.empty()) {
      w.Key("schedule");
      protocol::write_string(w, p.schedule);
    }
    if (p.status_updates) {
      w.Key("updates");
      w.Bool(true);
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("f_nobody");
  w.StartArray();
  for (auto& s : f.pages.nobody_on_call)
    protocol::write_string(w, s);
  w.EndArray();
  w.Key("f_policy");
  protocol::write_string(w, f.policy);
  w.Key("f_integration");
  protocol::write_string(w, f.integration);
  w.EndObject();
}

} // namespace

fire_event fire_of(const incident_record& expected, protocol::step_pages pages,
                   const ladder_position& next, micros now) {
  return {expected.org_id,
          expected.id,
          expected.current_step,
          expected.loop,
          expected.version,
          next,
          std::move(pages),
          now,
          expected.next_fire_at.value_or(now),
          expected.policy,
          expected.integration};
}

std::vector<std::optional<incident_record>>
fire_steps(connection& c, const std::vector<fire_event>& fires) {
  std::vector<int64_t> orgs, ids;
  for (auto& f : fires) {
    orgs.push_back(f.org_id);
    ids.push_back(f.id);
  }
  // The compare-and-set's guards, each of which a planted bug takes out
  // (storage/test_hooks.hpp).
  auto& sql = test_hooks::planted(
      test_hooks::step_ignores_settle,
      test_hooks::planted(test_hooks::step_fires_again, fire_sql,
                          {{" AND current_step = f_step\n        AND loop = f_loop AND "
                            "version = f_version",
                            ""}}),
      {{"status = f_status AND ", ""}, {" AND version = f_version", ""}});
  auto r = c.query_by_key(sql, json_rows(fires, fire_json), bigint_array(orgs),
                          bigint_array(ids));
  auto row_of = rows_by_id(r);
  std::vector<std::optional<incident_record>> out(fires.size());
  for (size_t i = 0; i < fires.size(); ++i) {
    auto found = row_of.find({fires[i].org_id, fires[i].id});
    if (found != row_of.end())
      out[i] = read_held(r, found->second).incident;
  }
  return out;
}

} // namespace belay::storage
