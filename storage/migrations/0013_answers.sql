-- Answering the page (docs/guarantees.md#answering-the-page). Every acknowledge and resolve records who
-- answered and how (api, console, link, sms, voice, slack, pagerduty, alertmanager); a
-- delivery made through a person's rule remembers the person, so that an answer through
-- its link acts as them; Slack channels check their buttons' clicks with a signing
-- secret of their own.
ALTER TABLE incident ADD COLUMN acked_via text,
                     ADD COLUMN resolved_by text,
                     ADD COLUMN resolved_via text;
ALTER TABLE delivery ADD COLUMN user_name text;
ALTER TABLE channel ADD COLUMN signing_secret text NOT NULL DEFAULT '';

-- The key of every answer token, shared by every node: generated here, once, by the
-- database's strong random source (gen_random_uuid, 122 random bits each), three of them
-- hashed into 256 bits. --signing-secret overrides it.
CREATE TABLE signing_secret (
  id     int PRIMARY KEY CHECK (id = 1),
  secret text NOT NULL
);
INSERT INTO signing_secret (id, secret)
VALUES (1, encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text ||
                                    gen_random_uuid()::text, 'UTF8')), 'hex'));

-- An answer token names its delivery by id alone (the primary key leads with org_id).
CREATE INDEX delivery_by_id ON delivery (id);
