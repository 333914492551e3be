-- The database floor of scripts/bench: one durable INSERT … ON CONFLICT per transaction,
-- against a table with belay's partial unique index (schema in scripts/bench: floor_incident).
\set k random(1, 1000000000000)
INSERT INTO floor_incident (org_id, dedup_key, title, status, created_at, last_seen_at)
VALUES (1, 'k' || :k, 'bench alert', 'OPEN', now(), now())
ON CONFLICT (org_id, dedup_key) WHERE status <> 'RESOLVED'
DO UPDATE SET event_count = floor_incident.event_count + 1, last_seen_at = EXCLUDED.last_seen_at;
