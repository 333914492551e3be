-- Retention (docs/guarantees.md#retention): the sweep deletes resolved incidents oldest first,
-- with their dead letters, which had no index by incident.
CREATE INDEX incident_resolved_at ON incident (resolved_at) WHERE status = 'RESOLVED';
CREATE INDEX dead_letter_by_incident ON dead_letter (org_id, incident_id);
