-- The schema of docs/architecture.md#database. org_id leads every key so tenants can later be partitioned
-- by it; incidents carry owner/lease columns so several nodes can share the database.

-- Times cross the wire as microseconds since the epoch taken from the actor system's
-- clock (never now() on the logic path); these two convert exactly.
CREATE FUNCTION belay_ts(us bigint) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE STRICT
  RETURN timestamptz 'epoch' + us * interval '1 microsecond';
CREATE FUNCTION belay_us(ts timestamptz) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT
  RETURN (extract(epoch FROM ts) * 1000000)::bigint;

CREATE TABLE org (
  id         bigserial PRIMARY KEY,
  name       text NOT NULL UNIQUE
);

CREATE TABLE api_key (
  org_id     bigint NOT NULL REFERENCES org (id) ON DELETE CASCADE,
  key_hash   text NOT NULL UNIQUE,          -- sha256 hex; the key itself is never stored
  PRIMARY KEY (org_id, key_hash)
);

CREATE TABLE channel (
  org_id             bigint NOT NULL REFERENCES org (id) ON DELETE CASCADE,
  name               text NOT NULL,
  type               text NOT NULL CHECK (type IN ('webhook', 'slack', 'email', 'sms', 'voice', 'log')),
  url                text NOT NULL DEFAULT '',
  secret             text NOT NULL DEFAULT '',
  account            text NOT NULL DEFAULT '',
  sender             text NOT NULL DEFAULT '',
  max_attempts       int NOT NULL DEFAULT 4 CHECK (max_attempts >= 1),
  retry_base_seconds float8 NOT NULL DEFAULT 30,
  retry_cap_seconds  float8 NOT NULL DEFAULT 120,
  timeout_seconds    float8 NOT NULL DEFAULT 5,
  failover_to        text NOT NULL DEFAULT '',
  PRIMARY KEY (org_id, name)
);

CREATE TABLE policy (
  org_id               bigint NOT NULL REFERENCES org (id) ON DELETE CASCADE,
  name                 text NOT NULL,
  definition           jsonb NOT NULL,      -- steps, repeat, repeatDelaySeconds, graceSeconds
  PRIMARY KEY (org_id, name)
);

CREATE TABLE integration (
  org_id     bigint NOT NULL REFERENCES org (id) ON DELETE CASCADE,
  name       text NOT NULL,
  type       text NOT NULL CHECK (type IN ('events', 'alertmanager')),
  key_hash   text NOT NULL UNIQUE,
  policy     text NOT NULL,
  shadow     boolean NOT NULL DEFAULT false,
  PRIMARY KEY (org_id, name)
);

CREATE TABLE incident (
  org_id           bigint NOT NULL REFERENCES org (id),
  id               bigserial,
  dedup_key        text NOT NULL,
  title            text NOT NULL,
  severity         text NOT NULL CHECK (severity IN ('critical', 'error', 'warning', 'info')),
  status           text NOT NULL CHECK (status IN ('OPEN', 'ACKNOWLEDGED', 'EXHAUSTED', 'RESOLVED')),
  policy           text NOT NULL,
  ladder           jsonb NOT NULL,          -- the policy as it was when the incident opened
  shadow           boolean NOT NULL DEFAULT false,
  current_step     int NOT NULL DEFAULT 0,  -- the step that fires next, within loop
  loop             int NOT NULL DEFAULT 0,
  next_fire_at     timestamptz,             -- next step, or the end of the grace period
  exhausted_at     timestamptz,
  event_count      bigint NOT NULL DEFAULT 1,
  evidence         jsonb NOT NULL DEFAULT '[]',  -- the last few payloads
  details          jsonb NOT NULL DEFAULT '{}',
  created_at       timestamptz NOT NULL,
  last_seen_at     timestamptz NOT NULL,
  acked_at         timestamptz,
  acked_by         text,
  resolved_at      timestamptz,
  version          bigint NOT NULL DEFAULT 1,
  owner            text,
  lease_expires_at timestamptz,
  PRIMARY KEY (org_id, id),
  UNIQUE (id)
);

-- G1 and G2: at most one non-resolved incident per key; a resolved one frees the key.
CREATE UNIQUE INDEX incident_open_dedup ON incident (org_id, dedup_key)
  WHERE status <> 'RESOLVED';
CREATE INDEX incident_unresolved ON incident (next_fire_at) WHERE status <> 'RESOLVED';
CREATE INDEX incident_listing ON incident (org_id, status, id DESC);

CREATE TABLE timeline (
  org_id       bigint NOT NULL,
  incident_id  bigint NOT NULL,
  seq          bigserial,
  at           timestamptz NOT NULL,
  kind         text NOT NULL,
  detail       jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (org_id, incident_id, seq),
  FOREIGN KEY (org_id, incident_id) REFERENCES incident (org_id, id)
);

CREATE TABLE delivery (
  org_id           bigint NOT NULL,
  id               bigserial,
  incident_id      bigint NOT NULL,
  loop             int NOT NULL,
  step             int NOT NULL,
  channel          text NOT NULL,
  target           text NOT NULL,
  idempotency_key  text NOT NULL,
  status           text NOT NULL CHECK (status IN ('PENDING', 'CLAIMED', 'SENT', 'DEAD', 'CANCELLED', 'SHADOWED')),
  attempts         int NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz,
  claimed_by       text,
  claim_expires_at timestamptz,
  last_error       text NOT NULL DEFAULT '',
  ambiguous        boolean NOT NULL DEFAULT false,
  failover_from    bigint,
  replay_of        bigint,
  sent_at          timestamptz,
  created_at       timestamptz NOT NULL,
  PRIMARY KEY (org_id, id),
  UNIQUE (idempotency_key),               -- G6: one row per (incident, loop, step, channel, target)
  FOREIGN KEY (org_id, incident_id) REFERENCES incident (org_id, id)
);
CREATE INDEX delivery_due ON delivery (org_id, channel, next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX delivery_claimed ON delivery (claim_expires_at) WHERE status = 'CLAIMED';
CREATE INDEX delivery_by_incident ON delivery (org_id, incident_id);

CREATE TABLE dead_letter (
  org_id       bigint NOT NULL,
  id           bigserial,
  delivery_id  bigint NOT NULL,
  incident_id  bigint NOT NULL,
  channel      text NOT NULL,
  target       text NOT NULL,
  reason       text NOT NULL,
  attempts     int NOT NULL,
  failed_at    timestamptz NOT NULL,
  replayed_at  timestamptz,
  PRIMARY KEY (org_id, id),
  FOREIGN KEY (org_id, delivery_id) REFERENCES delivery (org_id, id)
);
