-- Throttles and bundles per contact (docs/guarantees.md#storms, docs/architecture.md#storms). A
-- contact is a channel and a `to`. A channel that throttles or bundles claims contact by
-- contact (belay_claim_contacts): at most one message to a contact while its throttle
-- allows one, carrying every page that waits for it when the channel bundles. The
-- throttle's memory, the contact's last message and its held pages live here, so that
-- they survive restarts and every node sees the same.
ALTER TABLE channel ADD COLUMN throttle jsonb NOT NULL DEFAULT '[]',
                    ADD COLUMN status_throttle jsonb NOT NULL DEFAULT '[]',
                    ADD COLUMN bundle boolean NOT NULL DEFAULT false;

-- page_sends and update_sends: when each message of the longest window was claimed
-- (microseconds, oldest first); held_since: since when pages wait on the throttle (a
-- storm: the next message carries the last one's incidents still open); the last message
-- sent, a bundle or a page (one of the two is set), for replies.
CREATE TABLE contact (
  org_id           bigint NOT NULL,
  channel          text NOT NULL,
  target           text NOT NULL,
  page_sends       bigint[] NOT NULL DEFAULT '{}',
  update_sends     bigint[] NOT NULL DEFAULT '{}',
  held_since       timestamptz,
  last_bundle_id   bigint,
  last_delivery_id bigint,
  last_sent_at     timestamptz,
  PRIMARY KEY (org_id, channel, target)
);

-- One message carrying several pages (or status updates) to one contact. Its pages keep
-- their delivery rows (delivery.bundle_id): sent, they all end SENT; run out of attempts,
-- each is DEAD with its own dead letter. claimed_at: when its throttle slot was taken.
CREATE TABLE bundle (
  org_id           bigint NOT NULL,
  id               bigserial,
  channel          text NOT NULL,
  target           text NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('page', 'update')),
  status           text NOT NULL
                   CHECK (status IN ('CLAIMED', 'PENDING', 'SENT', 'DEAD', 'CANCELLED')),
  attempts         int NOT NULL DEFAULT 0,
  idempotency_key  text NOT NULL UNIQUE,
  created_at       timestamptz NOT NULL,
  claimed_at       bigint,
  sent_at          timestamptz,
  last_error       text NOT NULL DEFAULT '',
  PRIMARY KEY (org_id, id)
);
-- An answer token names its bundle by id alone.
CREATE INDEX bundle_by_id ON bundle (id);

-- The incidents a bundle speaks of: those it carries a page of (member) and those of the
-- contact's previous message still open when pages had to wait (carried over).
CREATE TABLE bundle_incident (
  org_id       bigint NOT NULL,
  bundle_id    bigint NOT NULL,
  incident_id  bigint NOT NULL,
  member       boolean NOT NULL,
  PRIMARY KEY (org_id, bundle_id, incident_id)
);

ALTER TABLE delivery ADD COLUMN bundle_id bigint,
                     ADD COLUMN held_by text;

-- When every window lets one more message through after those sent at `sends`: `now` if
-- they do already. A window {count, seconds} lets a message through at t when fewer than
-- `count` were sent in (t - seconds, t]: the count-th most recent send leaves it
-- `seconds` after it was made.
CREATE FUNCTION belay_throttle_opens(sends bigint[], windows jsonb, now bigint)
RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT greatest(now, coalesce(max(
    (SELECT s FROM unnest(sends) AS s ORDER BY s DESC OFFSET (w->>'count')::int - 1 LIMIT 1)
      + ((w->>'seconds')::float8 * 1e6)::bigint), now))
  FROM jsonb_array_elements(windows) AS w
$$;

-- The sends still inside the longest of `windows` at `now`, oldest first.
CREATE FUNCTION belay_trim_sends(sends bigint[], windows jsonb, now bigint)
RETURNS bigint[] LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(s ORDER BY s), '{}') FROM unnest(sends) AS s
  WHERE s > now - (SELECT coalesce(max((w->>'seconds')::float8), 0) * 1e6
                   FROM jsonb_array_elements(windows) AS w)::bigint
$$;

-- Claims what a throttling or bundling channel may send now. Per contact with due pages
-- (or status updates), one message if its throttle lets one through: one page, or — when
-- the channel bundles and several wait — a bundle of them all (at most p_max_members);
-- a bundle that failed goes again whole. Pages of settled incidents are cancelled on the
-- way, those a maintenance window holds left alone, and those the throttle holds stay
-- PENDING, due when it opens (held_by 'throttle'). A contact another claimer holds now is
-- skipped. Rows answered: 'member' (a page claimed; bundle_id set inside a bundle),
-- 'carried' (an incident a bundle speaks of without a page of its own), 'cancelled', and
-- one 'held' row: how many of the channel's pages the throttle holds (n) and when the
-- first of them may go (at).
CREATE FUNCTION belay_claim_contacts(p_org bigint, p_channel text, p_node text,
    p_now bigint, p_lease bigint, p_limit int, p_page_windows jsonb,
    p_update_windows jsonb, p_bundle boolean, p_max_members int)
RETURNS TABLE (row_kind text, bundle_id bigint, delivery_id bigint, incident_id bigint,
               at bigint, n bigint)
LANGUAGE plpgsql AS $$
DECLARE
  c record;
  ct contact%ROWTYPE;
  windows jsonb;
  opens bigint;
  due bigint[];
  live bigint[];
  retrying bigint;
  carried bigint[];
  b bigint;
BEGIN
  FOR c IN
    SELECT d.target, (d.update_of IS NOT NULL) AS is_update
    FROM delivery d
    WHERE d.org_id = p_org AND d.channel = p_channel AND d.status = 'PENDING'
      AND d.next_attempt_at <= belay_ts(p_now)
    GROUP BY 1, 2 ORDER BY min(d.next_attempt_at) LIMIT p_limit
  LOOP
    INSERT INTO contact (org_id, channel, target) VALUES (p_org, p_channel, c.target)
    ON CONFLICT DO NOTHING;
    SELECT * INTO ct FROM contact x WHERE x.org_id = p_org AND x.channel = p_channel
      AND x.target = c.target FOR UPDATE SKIP LOCKED;
    CONTINUE WHEN NOT FOUND;
    windows := CASE WHEN c.is_update THEN p_update_windows ELSE p_page_windows END;
    opens := belay_throttle_opens(
        CASE WHEN c.is_update THEN ct.update_sends ELSE ct.page_sends END, windows, p_now);
    SELECT array_agg(q.id ORDER BY q.next_attempt_at, q.id),
           array_agg(q.id ORDER BY q.next_attempt_at, q.id) FILTER (WHERE q.live),
           min(q.bundle_id) FILTER (WHERE q.live)
      INTO due, live, retrying
    FROM (SELECT d.id, d.next_attempt_at, d.bundle_id,
                 i.status IN ('OPEN', 'EXHAUSTED') OR d.replay_of IS NOT NULL
                   OR d.update_of IS NOT NULL AS live
          FROM delivery d
          CROSS JOIN LATERAL (
            SELECT i.status, i.policy, i.integration FROM incident i
            WHERE i.org_id = d.org_id AND i.id = d.incident_id OFFSET 0) i
          WHERE d.org_id = p_org AND d.channel = p_channel AND d.target = c.target
            AND d.status = 'PENDING' AND (d.update_of IS NOT NULL) = c.is_update
            AND d.next_attempt_at <= belay_ts(p_now)
            AND NOT EXISTS (SELECT 1 FROM maintenance w WHERE w.org_id = d.org_id
                AND w.end_at > belay_ts(p_now) AND w.start_at <= belay_ts(p_now)
                AND (w.policy = i.policy OR w.integration = i.integration))
          ORDER BY d.next_attempt_at, d.id
          LIMIT p_max_members
          FOR UPDATE OF d SKIP LOCKED) q;
    CONTINUE WHEN due IS NULL;
    IF cardinality(due) > coalesce(cardinality(live), 0) THEN
      RETURN QUERY
        UPDATE delivery d SET status = 'CANCELLED', held_by = NULL
        WHERE d.org_id = p_org AND d.id = ANY (due)
          AND NOT (d.id = ANY (coalesce(live, '{}')))
        RETURNING 'cancelled', NULL::bigint, d.id, d.incident_id, NULL::bigint, NULL::bigint;
    END IF;
    CONTINUE WHEN live IS NULL;
    IF opens > p_now THEN
      UPDATE delivery d SET next_attempt_at = belay_ts(opens), held_by = 'throttle'
      WHERE d.org_id = p_org AND d.id = ANY (live);
      UPDATE contact x SET held_since = coalesce(x.held_since, belay_ts(p_now))
      WHERE x.org_id = p_org AND x.channel = p_channel AND x.target = c.target;
      CONTINUE;
    END IF;
    b := NULL;
    IF retrying IS NOT NULL THEN
      -- A bundle that failed goes again whole: its own pages only, the others wait.
      SELECT array_agg(d.id ORDER BY d.id) INTO live FROM delivery d
      WHERE d.org_id = p_org AND d.id = ANY (live) AND d.bundle_id = retrying;
      b := retrying;
      UPDATE bundle x SET status = 'CLAIMED', attempts = x.attempts + 1, claimed_at = p_now
      WHERE x.org_id = p_org AND x.id = b;
    ELSIF p_bundle THEN
      carried := '{}';
      IF ct.held_since IS NOT NULL THEN
        SELECT coalesce(array_agg(i.id), '{}') INTO carried FROM incident i
        WHERE i.org_id = p_org AND i.status IN ('OPEN', 'EXHAUSTED')
          AND i.id IN (SELECT bi.incident_id FROM bundle_incident bi
                       WHERE bi.org_id = p_org AND bi.bundle_id = ct.last_bundle_id
                       UNION ALL
                       SELECT dl.incident_id FROM delivery dl
                       WHERE dl.org_id = p_org AND dl.id = ct.last_delivery_id)
          AND i.id NOT IN (SELECT d.incident_id FROM delivery d
                           WHERE d.org_id = p_org AND d.id = ANY (live));
      END IF;
      IF cardinality(live) + cardinality(carried) >= 2 THEN
        b := nextval('bundle_id_seq');
        INSERT INTO bundle (org_id, id, channel, target, kind, status, attempts,
                            idempotency_key, created_at, claimed_at)
        VALUES (p_org, b, p_channel, c.target,
                CASE WHEN c.is_update THEN 'update' ELSE 'page' END, 'CLAIMED', 1,
                'bundle:' || b, belay_ts(p_now), p_now);
        INSERT INTO bundle_incident (org_id, bundle_id, incident_id, member)
        SELECT DISTINCT p_org, b, d.incident_id, true FROM delivery d
        WHERE d.org_id = p_org AND d.id = ANY (live)
        UNION ALL SELECT p_org, b, x, false FROM unnest(carried) AS x;
      ELSE
        live := live[1:1];
      END IF;
    ELSE
      live := live[1:1];
    END IF;
    -- A page alone is the contact's last message from now (a bundle, once it is sent).
    UPDATE contact x SET held_since = NULL,
        last_delivery_id = CASE WHEN b IS NULL AND NOT c.is_update THEN live[1]
                                ELSE x.last_delivery_id END,
        last_bundle_id = CASE WHEN b IS NULL AND NOT c.is_update THEN NULL
                              ELSE x.last_bundle_id END,
        page_sends = CASE WHEN c.is_update THEN x.page_sends
                          ELSE belay_trim_sends(x.page_sends, windows, p_now) || p_now END,
        update_sends = CASE WHEN c.is_update
                            THEN belay_trim_sends(x.update_sends, windows, p_now) || p_now
                            ELSE x.update_sends END
    WHERE x.org_id = p_org AND x.channel = p_channel AND x.target = c.target;
    RETURN QUERY
      UPDATE delivery d SET status = 'CLAIMED', claimed_by = p_node,
          claim_expires_at = belay_ts(p_lease), attempts = d.attempts + 1,
          bundle_id = coalesce(b, d.bundle_id), held_by = NULL
      WHERE d.org_id = p_org AND d.id = ANY (live)
      RETURNING 'member', b, d.id, d.incident_id, NULL::bigint, NULL::bigint;
    IF b IS NOT NULL THEN
      RETURN QUERY SELECT 'carried', b, NULL::bigint, bi.incident_id, NULL::bigint,
                          NULL::bigint
                   FROM bundle_incident bi
                   WHERE bi.org_id = p_org AND bi.bundle_id = b AND NOT bi.member;
    END IF;
  END LOOP;
  RETURN QUERY
    SELECT 'held', NULL::bigint, NULL::bigint, NULL::bigint,
           belay_us(min(d.next_attempt_at)), count(*)
    FROM delivery d
    WHERE d.org_id = p_org AND d.channel = p_channel AND d.status = 'PENDING'
      AND d.held_by = 'throttle';
END $$;
