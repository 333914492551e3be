
WITH cas AS (
  UPDATE incident SET status = 'ACKNOWLEDGED', acked_at = belay_ts($3), acked_by = $4,
      acked_via = $5, next_fire_at = NULL, held_until = NULL, version = version + 1
  WHERE org_id = $1 AND dedup_key = $2 AND status IN ('OPEN', 'EXHAUSTED')
  RETURNING org_id, id, dedup_key, title, severity, status, policy, current_step, loop, event_count, belay_us(created_at), belay_us(last_seen_at), belay_us(next_fire_at), belay_us(acked_at), coalesce(acked_by, ''), belay_us(resolved_at), belay_us(exhausted_at), version, shadow, coalesce(acked_via, ''), coalesce(resolved_by, ''), coalesce(resolved_via, ''), reopen_count, coalesce(integration, ''), belay_us(held_until), coalesce(priority, ''), belay_us(snoozed_until), coalesce(assigned_to, ''), ladder::text, alert_count, firing_count
), cancelled AS (
  UPDATE delivery d SET status = 'CANCELLED' FROM cas
  WHERE d.org_id = cas.org_id AND d.incident_id = cas.id AND d.status = 'PENDING'
    AND d.update_of IS NULL AND NOT d.requested
  RETURNING d.id
), updates AS ( -- one status update per contact that asked for them and was paged
  INSERT INTO delivery (org_id, incident_id, loop, step, channel, target, idempotency_key,
                        status, next_attempt_at, created_at, user_name, update_of)
  SELECT DISTINCT ON (d.channel, d.target) d.org_id, d.incident_id, d.loop, d.step,
         d.channel, d.target,
         d.incident_id || ':acknowledged:' || d.channel || ':' || d.target, 'PENDING',
         belay_ts($3), belay_ts($3), d.user_name, 'acknowledged'
  FROM cas JOIN delivery d ON d.org_id = cas.org_id AND d.incident_id = cas.id
  WHERE d.status_updates AND d.attempts > 0 AND d.update_of IS NULL AND NOT cas.shadow
  ORDER BY d.channel, d.target, d.id DESC
  ON CONFLICT (idempotency_key) DO NOTHING
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT cas.org_id, cas.id, belay_ts($3), 'acknowledged',
         jsonb_build_object('by', $4::text, 'via', $5::text,
                            'cancelledDeliveries', (SELECT count(*) FROM cancelled))
  FROM cas
)
-- Delivered at commit to every node, so that the one holding the incident hears of it
-- at once (docs/architecture.md#ownership).
SELECT *, pg_notify('belay_incident', cas.org_id || ' ' || cas.id) FROM cas
