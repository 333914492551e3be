-- The reopen window (docs/guarantees.md#maintenance-windows): a trigger for a key whose incident was
-- resolved less than its policy's reopenSeconds ago reopens that incident. A resolve
-- keeps when the next step was due (resume_at), so that the reopened ladder goes on
-- from the step after the last one that fired, on its own schedule. The trigger
-- statement finds a key's last resolved incident through resolved_key, one probe per
-- key of a policy with a window.
ALTER TABLE incident ADD COLUMN reopen_count int NOT NULL DEFAULT 0,
                     ADD COLUMN resume_at timestamptz;
CREATE INDEX incident_resolved_key ON incident (org_id, dedup_key, id DESC)
  WHERE status = 'RESOLVED';
