-- Change events (docs/guarantees.md#change-events): PagerDuty's change events, recorded without
-- their routing key or secret-like fields, listed newest first, and shown on the
-- timelines of the org's incidents opened within an hour after (read at show time).
CREATE TABLE change_event (
  org_id      bigint NOT NULL REFERENCES org (id) ON DELETE CASCADE,
  id          bigserial,
  integration text NOT NULL,
  summary     text NOT NULL,
  source      text NOT NULL DEFAULT '',
  happened_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  details     jsonb NOT NULL DEFAULT '{}',
  links       jsonb NOT NULL DEFAULT '[]',
  PRIMARY KEY (org_id, id)
);
CREATE INDEX change_event_by_time ON change_event (org_id, happened_at);
