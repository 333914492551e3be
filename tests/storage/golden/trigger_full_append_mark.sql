
WITH g AS (
  SELECT * FROM json_to_recordset($1::json) AS g(org_id bigint, dedup_key text,
      title text, severity text, policy text, shadow boolean, ats bigint[],
      evidence jsonb, details jsonb, owner text, lease_until bigint, integration text)
)
, recent AS ( -- the r_ prefix keeps these apart
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
  RETURNING org_id, id, dedup_key, title, severity, status, policy, current_step, loop, event_count, belay_us(created_at), belay_us(last_seen_at), belay_us(next_fire_at), belay_us(acked_at), coalesce(acked_by, ''), belay_us(resolved_at), belay_us(exhausted_at), version, shadow, coalesce(acked_via, ''), coalesce(resolved_by, ''), coalesce(resolved_via, ''), reopen_count, coalesce(integration, ''), belay_us(held_until), coalesce(priority, ''), belay_us(snoozed_until), coalesce(assigned_to, ''),
    ladder::text, true AS inserted, true AS reopened
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

  CROSS JOIN LATERAL (
    SELECT max(w.end_at) AS until FROM maintenance w
    WHERE w.org_id = g.org_id AND w.end_at > belay_ts(g.ats[1])
      AND w.start_at <= belay_ts(g.ats[1])
      AND (w.policy = g.policy OR w.integration = g.integration)) m
  WHERE NOT EXISTS (SELECT 1 FROM reopen r WHERE r.org_id = g.org_id
                    AND r.dedup_key = g.dedup_key)

  ORDER BY g.org_id, g.dedup_key
  ON CONFLICT (org_id, dedup_key) WHERE status <> 'RESOLVED' DO UPDATE SET
    event_count = i.event_count + EXCLUDED.event_count,
    last_seen_at = EXCLUDED.last_seen_at,
    evidence = belay_keep_last(i.evidence || EXCLUDED.evidence, 5),
    shadow = i.shadow AND EXCLUDED.shadow
  RETURNING org_id, id, dedup_key, title, severity, status, policy, current_step, loop, event_count, belay_us(created_at), belay_us(last_seen_at), belay_us(next_fire_at), belay_us(acked_at), coalesce(acked_by, ''), belay_us(resolved_at), belay_us(exhausted_at), version, shadow, coalesce(acked_via, ''), coalesce(resolved_by, ''), coalesce(resolved_via, ''), reopen_count, coalesce(integration, ''), belay_us(held_until), coalesce(priority, ''), belay_us(snoozed_until), coalesce(assigned_to, ''),
    CASE WHEN xmax = 0 THEN ladder::text END, (xmax = 0) AS inserted, false AS reopened
)
, written AS (SELECT * FROM up UNION ALL SELECT * FROM reopen), note AS (
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
