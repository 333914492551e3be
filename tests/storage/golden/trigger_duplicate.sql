
WITH g AS (
  SELECT * FROM json_to_recordset($1::json) AS g(org_id bigint, dedup_key text,
      title text, severity text, policy text, shadow boolean, ats bigint[],
      evidence jsonb, details jsonb, owner text, lease_until bigint, integration text)
)
, up AS (
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
  RETURNING org_id, id, dedup_key, title, severity, status, policy, current_step, loop, event_count, belay_us(created_at), belay_us(last_seen_at), belay_us(next_fire_at), belay_us(acked_at), coalesce(acked_by, ''), belay_us(resolved_at), belay_us(exhausted_at), version, shadow, coalesce(acked_via, ''), coalesce(resolved_by, ''), coalesce(resolved_via, ''), reopen_count, coalesce(integration, ''), belay_us(held_until), coalesce(priority, ''), belay_us(snoozed_until), coalesce(assigned_to, ''),
    NULL::text, false AS inserted, false AS reopened
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
  INSERT INTO trigger_mark (id, at, touched, created)
  SELECT $2::bigint, belay_ts($3::bigint), coalesce(array_agg(id), '{}'),
         coalesce(array_agg(id) FILTER (WHERE inserted), '{}') FROM written
), pruned AS (
  DELETE FROM trigger_mark WHERE id = $4::bigint
)
SELECT * FROM written
WHERE belay_all_updated((SELECT count(*) FROM written), (SELECT count(*) FROM g))
