
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
  RETURNING org_id, id, dedup_key, title, severity, status, policy, current_step, loop, event_count, belay_us(created_at), belay_us(last_seen_at), belay_us(next_fire_at), belay_us(acked_at), coalesce(acked_by, ''), belay_us(resolved_at), belay_us(exhausted_at), version, shadow, coalesce(acked_via, ''), coalesce(resolved_by, ''), coalesce(resolved_via, ''), reopen_count, coalesce(integration, ''), belay_us(held_until), coalesce(priority, ''), belay_us(snoozed_until), coalesce(assigned_to, ''), NULL::text AS ladder,
    alert_count, firing_count
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT up.org_id, up.id, belay_ts($3), 'alert_resolved',
         jsonb_build_object('key', $2::text, 'by', $4::text, 'via', $5::text,
                            'firingCount', up.firing_count)
  FROM up
)
SELECT * FROM up
