-- Every timeline row is written by a statement that takes its incident id from the
-- incident row it just wrote or read, and incidents are never deleted, so the foreign
-- key could not fail. Checking it still cost every event a lookup and a share lock on its
-- incident row (PostgreSQL runs one SELECT … FOR KEY SHARE per inserted row).
ALTER TABLE timeline DROP CONSTRAINT timeline_org_id_incident_id_fkey;
