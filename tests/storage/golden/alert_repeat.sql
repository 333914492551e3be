
WITH g AS (
  SELECT * FROM json_to_recordset($1::json) AS g(org_id bigint, alert_key text,
      dedup_key text, title text, severity text, policy text, shadow boolean,
      ats bigint[], evidence jsonb, details jsonb, owner text, lease_until bigint,
      integration text, ord int)
)
, hit AS (
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
  RETURNING org_id, id, dedup_key, title, severity, status, policy, current_step, loop, event_count, belay_us(created_at), belay_us(last_seen_at), belay_us(next_fire_at), belay_us(acked_at), coalesce(acked_by, ''), belay_us(resolved_at), belay_us(exhausted_at), version, shadow, coalesce(acked_via, ''), coalesce(resolved_by, ''), coalesce(resolved_via, ''), reopen_count, coalesce(integration, ''), belay_us(held_until), coalesce(priority, ''), belay_us(snoozed_until), coalesce(assigned_to, ''), NULL::text AS ladder,
    alert_count, firing_count
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT s.org_id, s.incident_id, belay_ts(e.at), 'duplicate',
         jsonb_build_object('alert', s.alert_key,
                            'eventCount', s.event_count - cardinality(s.ats) + e.k)
  FROM seen s, unnest(s.ats) WITH ORDINALITY AS e(at, k)
  ORDER BY s.incident_id, s.ord, e.k
)
SELECT up.*, s.alert_key, false AS opened FROM up
JOIN seen s ON s.org_id = up.org_id AND s.incident_id = up.id
