
WITH due AS (
  SELECT d.org_id, d.id, i.dedup_key, i.title, i.severity, i.status, i.acked_by, i.acked_via,
         i.resolved_by, i.resolved_via,
         (i.status IN ('OPEN', 'EXHAUSTED') OR d.replay_of IS NOT NULL OR d.update_of IS NOT NULL OR (d.requested AND i.status = 'ACKNOWLEDGED')) AS live
  FROM delivery d
  -- The incident by its primary key, once per due row: OFFSET 0 keeps the subquery apart.
  -- Joined directly, the planner turned d.org_id = $1 into i.org_id = $1 and, on young
  -- statistics, scanned all the org's incidents for every due row (auto_explain: 64 x
  -- 1,054 rows, 66 ms for one claim).
  CROSS JOIN LATERAL (
    SELECT i.org_id, i.policy, i.integration, i.dedup_key, i.title, i.severity, i.status,
           i.acked_by, i.acked_via, i.resolved_by, i.resolved_via
    FROM incident i WHERE i.org_id = d.org_id AND i.id = d.incident_id OFFSET 0
  ) i
  WHERE d.org_id = $1 AND d.channel = $2 AND d.status = 'PENDING'
    AND d.next_attempt_at <= belay_ts($3) AND NOT EXISTS (SELECT 1 FROM maintenance w WHERE w.org_id = i.org_id AND w.end_at > belay_ts($3) AND w.start_at <= belay_ts($3) AND (w.policy = i.policy OR w.integration = i.integration))
  -- Exactly delivery_due's order: the index scan stops after $6 rows. With ", d.id"
  -- added, a backlog of 5,000 pending rows was read and sorted whole on every claim.
  ORDER BY d.next_attempt_at
  LIMIT $6
  FOR UPDATE OF d SKIP LOCKED
)
UPDATE delivery d
SET status = CASE WHEN due.live THEN 'CLAIMED' ELSE 'CANCELLED' END,
    claimed_by = CASE WHEN due.live THEN $4 END,
    claim_expires_at = CASE WHEN due.live THEN belay_ts($5) END,
    attempts = d.attempts + CASE WHEN due.live THEN 1 ELSE 0 END
FROM due
WHERE d.org_id = due.org_id AND d.id = due.id
RETURNING d.org_id, d.id, d.incident_id, d.loop, d.step, d.channel, d.target, d.idempotency_key, d.status, d.attempts, belay_us(d.next_attempt_at), d.last_error, d.ambiguous, d.failover_from, belay_us(d.sent_at), belay_us(d.created_at), coalesce(d.user_name, ''), coalesce(d.update_of, ''), coalesce(d.held_by, ''), d.bundle_id,
          due.dedup_key, due.title, due.severity, due.status, coalesce(due.acked_by, ''), coalesce(due.acked_via, ''), coalesce(due.resolved_by, ''), coalesce(due.resolved_via, ''),
          coalesce(d.message, '')
