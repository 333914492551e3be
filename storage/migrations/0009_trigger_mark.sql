-- A mark per trigger batch (docs/guarantees.md#every-accepted-event-pages, "every accepted event pages"). The
-- batch's own statement inserts it, so it commits if and only if the batch does. When
-- the reply to that COMMIT is lost, the worker reads the mark back on a fresh connection
-- instead of guessing: found, the batch committed and `created` names the incidents it
-- opened, which then get their actors; absent, the read-back inserts the mark itself
-- (`touched` NULL: a fence), so a batch still in flight on the old connection fails on
-- the primary key and can no longer commit behind the worker's back.
-- A worker deletes its last mark in its next batch's statement; the orphan sweep prunes
-- the few left behind (fences, workers that stopped).
CREATE TABLE trigger_mark (
  id      bigint PRIMARY KEY,
  at      timestamptz NOT NULL,
  touched bigint[], -- the incident of every key the batch wrote
  created bigint[]  -- of those, the incidents it opened
);
