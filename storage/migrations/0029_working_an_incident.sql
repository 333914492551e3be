-- Working an incident (docs/guarantees.md#working-an-incident): its priority, a snooze
-- that brings an acknowledged incident back to OPEN at a time, and whom it was last
-- reassigned to when that is a person or a schedule rather than a policy.
--
-- priority: P1 (highest) to P5, or none. snoozed_until: set only while ACKNOWLEDGED;
-- next_fire_at holds the same time then, so that the orphan sweep finds a snooze whose
-- node died as it finds any overdue step. assigned_to: "user:<name>" or
-- "schedule:<name>" after a reassign to one; NULL while the incident follows its policy.
ALTER TABLE incident ADD COLUMN priority text CHECK (priority IN ('P1', 'P2', 'P3', 'P4', 'P5')),
                     ADD COLUMN snoozed_until timestamptz,
                     ADD COLUMN assigned_to text;
CREATE INDEX incident_priority ON incident (org_id, priority, id) WHERE priority IS NOT NULL;
