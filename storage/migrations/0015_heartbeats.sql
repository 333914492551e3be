-- Heartbeat monitors (docs/guarantees.md#heartbeats): dead-man monitors that page when the
-- expected ping does not come. The row is the monitor's whole state, so that a restart
-- or another node carries its schedule on: every transition is a compare-and-set on
-- version. Like incidents, each is held by one node (owner, lease_expires_at taken
-- when it was adopted) for as long as that node's node_lease holds.
CREATE TABLE heartbeat (
  org_id                bigint NOT NULL REFERENCES org (id) ON DELETE CASCADE,
  id                    bigserial,
  name                  text NOT NULL,
  key_hash              text NOT NULL UNIQUE, -- sha256 hex; the ping key is never stored
  policy                text NOT NULL,
  period_seconds        float8 NOT NULL CHECK (period_seconds > 0),
  grace_seconds         float8 NOT NULL CHECK (grace_seconds >= 0),
  alert_if_never_pinged boolean NOT NULL DEFAULT false,
  state                 text NOT NULL DEFAULT 'new'
                        CHECK (state IN ('new', 'up', 'late', 'down')),
  -- Stamped on the actor clock by the first node that holds it (provisioning runs
  -- before any clock the logic uses).
  created_at            timestamptz,
  last_ping_at          timestamptz,
  late_at               timestamptz,          -- silence makes it late then (new, up)
  down_at               timestamptz,          -- and down then (all but down)
  -- An incident to open (missed, failed) or resolve that a transition committed and
  -- nobody made yet: whoever holds the monitor next makes it.
  pending               text NOT NULL DEFAULT ''
                        CHECK (pending IN ('', 'missed', 'failed', 'resolve')),
  version               bigint NOT NULL DEFAULT 1,
  owner                 text,
  lease_expires_at      timestamptz,
  PRIMARY KEY (org_id, id),
  UNIQUE (org_id, name)
);

-- An alertmanager integration may name a heartbeat that its Watchdog alert pings.
ALTER TABLE integration ADD COLUMN heartbeat text NOT NULL DEFAULT '';
