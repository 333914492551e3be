-- Retention deletes a resolved incident's bundle_incident rows, and a bundle with its
-- last incident (storage/incidents.cpp, retention_sql): found by incident.
CREATE INDEX bundle_incident_by_incident ON bundle_incident (org_id, incident_id);
