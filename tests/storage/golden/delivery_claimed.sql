
SELECT d.org_id, d.id, d.incident_id, d.loop, d.step, d.channel, d.target, d.idempotency_key, d.status, d.attempts, belay_us(d.next_attempt_at), d.last_error, d.ambiguous, d.failover_from, belay_us(d.sent_at), belay_us(d.created_at), coalesce(d.user_name, ''), coalesce(d.update_of, ''), coalesce(d.held_by, ''), d.bundle_id,
       due.dedup_key, due.title, due.severity, due.status, coalesce(due.acked_by, ''), coalesce(due.acked_via, ''), coalesce(due.resolved_by, ''), coalesce(due.resolved_via, ''),
       coalesce(d.message, '')
FROM delivery d JOIN incident due ON due.org_id = d.org_id AND due.id = d.incident_id
WHERE d.org_id = $1 AND d.id = ANY ($2::bigint[])
ORDER BY d.next_attempt_at, d.id
