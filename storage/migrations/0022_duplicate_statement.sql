-- The duplicate statement (storage/triggers.cpp, issue 21): a batch whose keys all have
-- an open incident, as far as its writer knows, is written by a plain UPDATE, without the
-- INSERT, the policy's ladder, the reopen and maintenance probes and the shadow trigger
-- that only a new or reopened incident needs. The writer's knowledge can be stale (the
-- incident was resolved meanwhile, or a live event meets a shadow incident), so the
-- statement is all or nothing: when it updated fewer keys than it was given, this raises,
-- nothing commits, and the writer writes the batch again by the statement that can insert.
CREATE FUNCTION belay_all_updated(updated bigint, keys bigint) RETURNS boolean
  LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF updated < keys THEN
    RAISE EXCEPTION 'belay: % of % keys had no open incident to update', keys - updated, keys
      USING ERRCODE = 'BLY01';
  END IF;
  RETURN true;
END $$;
