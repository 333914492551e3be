-- People and on-call schedules (docs/operations.md#provisioning-fields). Users and schedules come from the
-- provisioning file, overrides from the API; every node reads them from here.
CREATE TABLE app_user (
  org_id     bigint NOT NULL REFERENCES org (id) ON DELETE CASCADE,
  name       text NOT NULL,
  definition jsonb NOT NULL, -- fullName, timeZone, contacts, rules
  PRIMARY KEY (org_id, name)
);

CREATE TABLE schedule (
  org_id     bigint NOT NULL REFERENCES org (id) ON DELETE CASCADE,
  name       text NOT NULL,
  definition jsonb NOT NULL, -- timeZone, layers (protocol/schedule_json.hpp)
  PRIMARY KEY (org_id, name)
);

CREATE TABLE schedule_override (
  org_id     bigint NOT NULL,
  id         bigserial PRIMARY KEY,
  schedule   text NOT NULL,
  user_name  text NOT NULL,
  replaces   text,
  start_at   timestamptz NOT NULL,
  end_at     timestamptz NOT NULL CHECK (end_at > start_at),
  created_at timestamptz NOT NULL,
  FOREIGN KEY (org_id, schedule) REFERENCES schedule (org_id, name) ON DELETE CASCADE
);
CREATE INDEX schedule_override_span ON schedule_override (org_id, schedule, end_at);
