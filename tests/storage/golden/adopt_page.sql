
WITH page AS (
  SELECT x.org_id AS p_org, x.id AS p_id, coalesce(x.owner = $1, false) AS mine
  FROM incident x
  WHERE (x.org_id, x.id) > ($4::bigint, $5::bigint) AND x.status <> 'RESOLVED'
    AND (x.owner IS NULL OR x.owner = $1
         OR (x.lease_expires_at < belay_ts($2)
             AND NOT EXISTS (SELECT 1 FROM node_lease n WHERE n.node = x.owner
                             AND n.expires_at >= belay_ts($2))))
  ORDER BY x.org_id, x.id LIMIT $6
), taken AS (
  UPDATE incident i SET owner = $1, lease_expires_at = belay_ts($3)
  FROM page WHERE NOT mine AND i.org_id = p_org AND i.id = p_id AND i.status <> 'RESOLVED'
    AND (i.owner IS NULL OR i.owner = $1
         OR (i.lease_expires_at < belay_ts($2)
             AND NOT EXISTS (SELECT 1 FROM node_lease n WHERE n.node = i.owner
                             AND n.expires_at >= belay_ts($2))))
  RETURNING org_id, id, dedup_key, title, severity, status, policy, current_step, loop, event_count, belay_us(created_at), belay_us(last_seen_at), belay_us(next_fire_at), belay_us(acked_at), coalesce(acked_by, ''), belay_us(resolved_at), belay_us(exhausted_at), version, shadow, coalesce(acked_via, ''), coalesce(resolved_by, ''), coalesce(resolved_via, ''), reopen_count, coalesce(integration, ''), belay_us(held_until), coalesce(priority, ''), belay_us(snoozed_until), coalesce(assigned_to, ''), ladder::text
)
SELECT org_id, id, dedup_key, title, severity, status, policy, current_step, loop, event_count, belay_us(created_at), belay_us(last_seen_at), belay_us(next_fire_at), belay_us(acked_at), coalesce(acked_by, ''), belay_us(resolved_at), belay_us(exhausted_at), version, shadow, coalesce(acked_via, ''), coalesce(resolved_by, ''), coalesce(resolved_via, ''), reopen_count, coalesce(integration, ''), belay_us(held_until), coalesce(priority, ''), belay_us(snoozed_until), coalesce(assigned_to, ''), ladder::text
FROM incident JOIN page ON org_id = p_org AND id = p_id WHERE mine
UNION ALL SELECT * FROM taken
