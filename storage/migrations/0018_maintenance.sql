-- Maintenance windows (docs/guarantees.md#maintenance-windows), created through the API and read by every
-- statement that fires a step or claims a delivery, so every node sees them at once.
-- A window covers an org's policy or one of its integrations (exactly one of the two)
-- from start_at to end_at; ending one early moves its end_at to that moment.
CREATE TABLE maintenance (
  org_id      bigint NOT NULL REFERENCES org (id) ON DELETE CASCADE,
  id          bigserial,
  policy      text,
  integration text,
  start_at    timestamptz NOT NULL,
  end_at      timestamptz NOT NULL,
  reason      text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (org_id, id),
  CHECK ((policy IS NULL) <> (integration IS NULL))
);
CREATE INDEX maintenance_by_end ON maintenance (org_id, end_at);

-- An incident remembers the integration its first event came through (NULL: the native
-- API), so that a window on the integration covers it. held_until is set while a window
-- holds its ladder (the window's end); restarts counts the ladders it began again after
-- a window, and marks their deliveries' idempotency keys (":r<n>") apart from the first.
ALTER TABLE incident ADD COLUMN integration text,
                     ADD COLUMN held_until timestamptz,
                     ADD COLUMN restarts int NOT NULL DEFAULT 0;
