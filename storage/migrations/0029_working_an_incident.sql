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

-- Responders asked to help (POST /api/v1/incidents/{id}/responders): "requested" until
-- they acknowledge the incident themselves, from their page or anywhere.
CREATE TABLE incident_responder (
  org_id          bigint NOT NULL,
  incident_id     bigint NOT NULL,
  user_name       text NOT NULL,
  state           text NOT NULL CHECK (state IN ('requested', 'acknowledged')),
  requested_at    timestamptz NOT NULL,
  requested_by    text NOT NULL,
  message         text NOT NULL DEFAULT '',
  acknowledged_at timestamptz,
  PRIMARY KEY (org_id, incident_id, user_name),
  FOREIGN KEY (org_id, incident_id) REFERENCES incident (org_id, id) ON DELETE CASCADE
);

-- Who hears an incident's status updates (POST …/subscribers): a user, through the
-- contacts of their notification rules, or an address on a channel.
CREATE TABLE incident_subscriber (
  org_id      bigint NOT NULL,
  incident_id bigint NOT NULL,
  id          bigserial,
  user_name   text,
  channel     text,
  target      text,
  added_at    timestamptz NOT NULL,
  added_by    text NOT NULL,
  PRIMARY KEY (org_id, incident_id, id),
  FOREIGN KEY (org_id, incident_id) REFERENCES incident (org_id, id) ON DELETE CASCADE,
  CHECK ((user_name IS NOT NULL AND channel IS NULL AND target IS NULL)
         OR (user_name IS NULL AND channel IS NOT NULL AND target IS NOT NULL))
);
CREATE UNIQUE INDEX incident_subscriber_once ON incident_subscriber
  (org_id, incident_id, coalesce(user_name, ''), coalesce(channel, ''), coalesce(target, ''));

-- requested: a page to a requested responder, sent while its incident is ACKNOWLEDGED too
-- (an acknowledge leaves it; a resolve cancels it). message: what a status update says,
-- or the request a responder's page carries; such a message goes alone, never bundled.
ALTER TABLE delivery ADD COLUMN requested boolean NOT NULL DEFAULT false,
                     ADD COLUMN message text;

-- The contact claim (migration 0024) with those two rules.
CREATE OR REPLACE FUNCTION belay_claim_contacts(p_org bigint, p_channel text, p_node text,
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
                   OR d.update_of IS NOT NULL
                   OR (d.requested AND i.status = 'ACKNOWLEDGED') AS live
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
    ELSIF p_bundle AND NOT EXISTS (SELECT 1 FROM delivery d WHERE d.org_id = p_org
                                   AND d.id = ANY (live) AND d.message IS NOT NULL) THEN
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

-- Merge (POST /api/v1/incidents/{id}/merge): the merged incident is resolved (via
-- "merge") pointing at the one it went into, and its dedup key is redirected there while
-- that one is open: a later event for the key joins it, as a duplicate (G1). A redirect
-- whose target was resolved is ignored, and goes with the target's row.
ALTER TABLE incident ADD COLUMN merged_into bigint;
CREATE TABLE merged_key (
  org_id    bigint NOT NULL,
  dedup_key text NOT NULL,
  into_id   bigint NOT NULL,
  merged_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, dedup_key),
  FOREIGN KEY (org_id, into_id) REFERENCES incident (org_id, id) ON DELETE CASCADE
);
CREATE INDEX merged_key_into ON merged_key (org_id, into_id);
