
WITH c AS (
  SELECT * FROM json_to_recordset($1::json) AS c(org_id bigint, id bigint, attempts int)
), held AS (
  SELECT d.org_id, d.id, (i.status IN ('OPEN', 'EXHAUSTED') OR d.replay_of IS NOT NULL OR d.update_of IS NOT NULL OR (d.requested AND i.status = 'ACKNOWLEDGED')) AS live,
         EXISTS (SELECT 1 FROM maintenance w WHERE w.org_id = i.org_id AND w.end_at > belay_ts($3) AND w.start_at <= belay_ts($3) AND (w.policy = i.policy OR w.integration = i.integration)) AS paused
  FROM c JOIN delivery d ON d.org_id = c.org_id AND d.id = c.id
         JOIN incident i ON i.org_id = d.org_id AND i.id = d.incident_id
  WHERE d.status = 'CLAIMED' AND d.claimed_by = $2 AND d.attempts = c.attempts
  ORDER BY d.org_id, d.id
  FOR UPDATE OF d
), upd AS (
  UPDATE delivery d
  SET status = CASE WHEN held.paused THEN 'PENDING'
                    WHEN held.live THEN 'CLAIMED' ELSE 'CANCELLED' END,
      claimed_by = CASE WHEN held.live AND NOT held.paused THEN d.claimed_by END,
      claim_expires_at = CASE WHEN held.live AND NOT held.paused THEN belay_ts($4) END,
      attempts = d.attempts - CASE WHEN held.live AND NOT held.paused THEN 0 ELSE 1 END
  FROM held WHERE d.org_id = held.org_id AND d.id = held.id
  RETURNING d.org_id, d.id, held.live AND NOT held.paused AS live, held.paused
), note AS (
  INSERT INTO timeline (org_id, incident_id, at, kind, detail)
  SELECT d.org_id, d.incident_id, belay_ts($3), 'delivery_cancelled',
         jsonb_build_object('deliveryId', d.id, 'channel', d.channel, 'target', d.target,
                            'reason', 'settled before it was sent')
  FROM upd JOIN delivery d ON d.org_id = upd.org_id AND d.id = upd.id
  WHERE NOT upd.live AND NOT upd.paused
)
SELECT org_id, id, live
FROM upd WHERE NOT paused
