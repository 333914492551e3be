-- Alerts inside incidents (docs/guarantees.md#alerts-and-grouping, docs/architecture.md#alerts). An event's own key
-- names an alert. Without grouping an incident is its one alert and no row is written here
-- (the incident row says everything, and the ingest path stays as it was). An integration
-- that groups writes one row per alert, in the incident of its group key; the partial
-- unique index keeps one firing alert per (org, key) — G1 for alerts — and the incident's
-- own index one non-resolved incident per group key.
CREATE TABLE alert (
  org_id        bigint NOT NULL,
  id            bigserial,
  incident_id   bigint NOT NULL,
  key           text NOT NULL,
  status        text NOT NULL CHECK (status IN ('FIRING', 'RESOLVED')),
  title         text NOT NULL,
  severity      text NOT NULL CHECK (severity IN ('critical', 'error', 'warning', 'info')),
  first_seen_at timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  event_count   bigint NOT NULL DEFAULT 1,
  resolved_at   timestamptz,
  PRIMARY KEY (org_id, id),
  FOREIGN KEY (org_id, incident_id) REFERENCES incident (org_id, id)
);
CREATE UNIQUE INDEX alert_firing_key ON alert (org_id, key) WHERE status = 'FIRING';
CREATE INDEX alert_by_incident ON alert (org_id, incident_id, id);

-- How many alerts an incident has, and how many of them fire: 1 and 1 for an incident
-- that is its own alert (0 firing once resolved).
ALTER TABLE incident ADD COLUMN alert_count int NOT NULL DEFAULT 1,
                     ADD COLUMN firing_count int NOT NULL DEFAULT 1;
UPDATE incident SET firing_count = 0 WHERE status = 'RESOLVED';

-- critical > error > warning > info: a grouped incident's severity is its firing alerts'
-- highest.
CREATE FUNCTION belay_severity_rank(severity text) RETURNS int
  LANGUAGE sql IMMUTABLE STRICT
  RETURN array_position(ARRAY['info', 'warning', 'error', 'critical'], severity);

-- The fields an integration groups its alerts by (grouping.by); empty: it does not group.
ALTER TABLE integration ADD COLUMN group_by text[] NOT NULL DEFAULT '{}';
