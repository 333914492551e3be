-- Shadow never hides a live page (docs/guarantees.md#shadow-never-hides-a-live-page): when a live event makes a
-- shadow incident live, the trigger statement stamps the moment here, so that its own
-- RETURNING can tell the flip without reading the row a second time.
ALTER TABLE incident ADD COLUMN live_since timestamptz;
