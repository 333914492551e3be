
WITH g AS (
  SELECT * FROM json_to_recordset($1::json) AS g(org_id bigint, alert_key text,
      dedup_key text, title text, severity text, policy text, shadow boolean,
      ats bigint[], evidence jsonb, details jsonb, owner text, lease_until bigint,
      integration text, ord int)
)
, firsts AS (
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
  RETURNING org_id, id, dedup_key, title, severity, status, policy, current_step, loop, event_count, belay_us(created_at), belay_us(last_seen_at), belay_us(next_fire_at), belay_us(acked_at), coalesce(acked_by, ''), belay_us(resolved_at), belay_us(exhausted_at), version, shadow, coalesce(acked_via, ''), coalesce(resolved_by, ''), coalesce(resolved_via, ''), reopen_count, coalesce(integration, ''), belay_us(held_until), coalesce(priority, ''), belay_us(snoozed_until), coalesce(assigned_to, ''),
    CASE WHEN xmax = 0 THEN ladder::text END AS ladder, alert_count, firing_count,
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
FROM ranked r JOIN up ON up.org_id = r.org_id AND up.id = r.incident_id
