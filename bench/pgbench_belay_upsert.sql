-- A diagnostic floor of scripts/bench: belay's own trigger statement (upsert_sql in
-- storage/incidents.cpp, copied here: keep the two in step), one event per transaction, run
-- by pgbench with as many clients as belay has database connections. belay at this rate is
-- bound by its database round trips; belay well below it is losing time in its own process.
\set k random(1, 1000000000000)
\set now 1800000000000000
WITH up AS (
  INSERT INTO incident AS i (org_id, dedup_key, title, severity, status, policy, ladder,
      shadow, next_fire_at, created_at, last_seen_at, evidence, details, owner,
      lease_expires_at)
  SELECT p.org_id, 'pgbench-' || :k, 'bench alert', 'critical', 'OPEN', p.name, p.definition,
      false,
      belay_ts(:now::bigint + (coalesce((p.definition->'steps'->0->>'delaySeconds')::float8, 0)
                               * 1000000)::bigint),
      belay_ts(:now::bigint), belay_ts(:now::bigint),
      jsonb_build_array('{"dedupKey":"k","title":"bench alert","policy":"bench-far"}'::jsonb),
      '{}'::jsonb, 'bench-node', belay_ts(:now::bigint + 30000000)
  FROM policy p JOIN org o ON o.id = p.org_id WHERE o.name = 'bench' AND p.name = 'bench-far'
  ON CONFLICT (org_id, dedup_key) WHERE status <> 'RESOLVED' DO UPDATE SET
    event_count = i.event_count + 1,
    last_seen_at = EXCLUDED.last_seen_at,
    evidence = CASE WHEN jsonb_array_length(i.evidence) >= 5
                    THEN (i.evidence - 0) || EXCLUDED.evidence
                    ELSE i.evidence || EXCLUDED.evidence END
  RETURNING org_id, id, dedup_key, title, severity, status, policy, current_step, loop,
    event_count, belay_us(created_at), belay_us(last_seen_at), belay_us(next_fire_at),
    belay_us(acked_at), coalesce(acked_by, ''), belay_us(resolved_at),
    belay_us(exhausted_at), version, shadow, ladder::text, (xmax = 0) AS inserted
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT up.org_id, up.id, belay_ts(:now::bigint),
         CASE WHEN up.inserted THEN 'created' ELSE 'duplicate' END,
         jsonb_build_object('eventCount', up.event_count)
  FROM up
)
SELECT * FROM up;
