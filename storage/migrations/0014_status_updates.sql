-- Status updates (docs/guarantees.md#on-call): a contact with statusUpdates gets one more
-- message when an incident it was paged for is acknowledged or resolved. A delivery made
-- to such a contact says so; the update itself is a delivery too (update_of names the
-- transition, 'acknowledged' or 'resolved'), sent, retried and dead-lettered like a page,
-- but whatever the incident's status.
ALTER TABLE delivery ADD COLUMN status_updates boolean NOT NULL DEFAULT false,
                     ADD COLUMN update_of text;
