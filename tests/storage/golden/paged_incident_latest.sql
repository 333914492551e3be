
SELECT org_id, id, dedup_key, title, severity, status, policy, current_step, loop, event_count, belay_us(created_at), belay_us(last_seen_at), belay_us(next_fire_at), belay_us(acked_at), coalesce(acked_by, ''), belay_us(resolved_at), belay_us(exhausted_at), version, shadow, coalesce(acked_via, ''), coalesce(resolved_by, ''), coalesce(resolved_via, ''), reopen_count, coalesce(integration, ''), belay_us(held_until), coalesce(priority, ''), belay_us(snoozed_until), coalesce(assigned_to, ''), NULL::text, paged.user_name
FROM incident i JOIN LATERAL (
  SELECT coalesce(d.user_name, '') AS user_name FROM delivery d
  WHERE d.org_id = i.org_id AND d.incident_id = i.id AND d.target = $2 AND d.attempts > 0
  ORDER BY d.id DESC LIMIT 1) paged ON true
WHERE i.org_id = $1 AND i.status <> 'RESOLVED' ORDER BY i.id DESC LIMIT 1
