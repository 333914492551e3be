-- Twilio messages already answered, by MessageSid (docs/guarantees.md#answering-the-page):
-- a captured, correctly signed SMS reply sent again acts on nothing. Twilio signs no
-- time, so the id is the only thing that tells a replay from a new reply. Rows are kept
-- a year (storage::forget_inbound_messages): a person answers a few times a day.
CREATE TABLE inbound_message (
  org_id       bigint NOT NULL,
  sid          text NOT NULL,
  received_at  timestamptz NOT NULL,
  PRIMARY KEY (org_id, sid)
);
CREATE INDEX inbound_message_by_age ON inbound_message (received_at);
