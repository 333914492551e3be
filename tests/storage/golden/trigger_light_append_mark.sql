
WITH g AS (
  SELECT * FROM json_to_recordset($1::json) AS g(org_id bigint, dedup_key text,
      title text, severity text, policy text, shadow boolean, ats bigint[],
      evidence jsonb, details jsonb, owner text, lease_until bigint, integration text)
)
, needs AS (
  SELECT 1 FROM (SELECT org_id, min(ats[1]) AS first_at FROM g GROUP BY org_id) o
  WHERE EXISTS (SELECT 1 FROM maintenance w WHERE w.org_id = o.org_id
                AND w.end_at > belay_ts(o.first_at))
     OR EXISTS (SELECT 1 FROM policy p WHERE p.org_id = o.org_id
                AND p.definition ? 'reopenSeconds')
)
, up AS (
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

  CROSS JOIN (SELECT NULL::timestamptz AS until) m
  WHERE NOT EXISTS (SELECT 1 FROM needs)

  ORDER BY g.org_id, g.dedup_key
  ON CONFLICT (org_id, dedup_key) WHERE status <> 'RESOLVED' DO UPDATE SET
    event_count = i.event_count + EXCLUDED.event_count,
    last_seen_at = EXCLUDED.last_seen_at,
    evidence = belay_keep_last(i.evidence || EXCLUDED.evidence, 5),
    shadow = i.shadow AND EXCLUDED.shadow
  RETURNING org_id, id, dedup_key, title, severity, status, policy, current_step, loop, event_count, belay_us(created_at), belay_us(last_seen_at), belay_us(next_fire_at), belay_us(acked_at), coalesce(acked_by, ''), belay_us(resolved_at), belay_us(exhausted_at), version, shadow, coalesce(acked_via, ''), coalesce(resolved_by, ''), coalesce(resolved_via, ''), reopen_count, coalesce(integration, ''), belay_us(held_until), coalesce(priority, ''), belay_us(snoozed_until), coalesce(assigned_to, ''),
    CASE WHEN xmax = 0 THEN ladder::text END, (xmax = 0) AS inserted, false AS reopened
)
, written AS (SELECT * FROM up), note AS (
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
, mark AS (
  UPDATE trigger_mark m SET touched = m.touched || a.touched,
                            created = m.created || a.created
  FROM (SELECT coalesce(array_agg(id), '{}') AS touched,
               coalesce(array_agg(id) FILTER (WHERE inserted), '{}') AS created
        FROM written) a
  WHERE m.id = $2::bigint
)
SELECT * FROM written
