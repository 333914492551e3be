-- The trigger statement, lighter (issue 21).
--
-- incident -> org: every new incident ran a referential check that locked its org's row
-- FOR KEY SHARE; concurrent inserts share that lock as a MultiXact, one more member each,
-- on the one row every insert of the org names. The trigger statement inserts only for a
-- policy it joins, whose own key to org keeps the org there, and orgs are disabled, never
-- deleted (0012). Measured on the storage floor, new keys, 4 connections, 3 pairs: 14,157
-- / 18,866 / 14,997 events/s with the check, 19,262 / 19,161 / 17,192 without.
ALTER TABLE incident DROP CONSTRAINT incident_org_id_fkey;

-- Shadow never hides a live page (docs/guarantees.md#shadow-never-hides-a-live-page): a live event deduplicated into
-- a shadow incident makes it live, and the shadowed pages of its last fired step are
-- sent after all. This was a CTE of the trigger statement, an UPDATE of delivery that
-- every statement planned and opened, with delivery's indexes, for the rare row that
-- flips; as a row trigger it runs for that row alone. A reopen (OLD.status RESOLVED)
-- releases nothing: the reopened ladder goes on from its next step.
CREATE FUNCTION belay_release_shadowed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE delivery d SET status = 'PENDING'
  WHERE d.org_id = NEW.org_id AND d.incident_id = NEW.id AND d.status = 'SHADOWED'
    AND (d.loop, d.step) = (SELECT x.loop, x.step FROM delivery x
                            WHERE x.org_id = NEW.org_id AND x.incident_id = NEW.id
                            ORDER BY x.loop DESC, x.step DESC LIMIT 1);
  RETURN NULL;
END $$;
CREATE TRIGGER incident_goes_live AFTER UPDATE OF shadow ON incident FOR EACH ROW
  WHEN (OLD.shadow AND NOT NEW.shadow AND OLD.status <> 'RESOLVED')
  EXECUTE FUNCTION belay_release_shadowed();

-- Its stamp, which the statement's RETURNING compared to tell the flip, is not needed.
ALTER TABLE incident DROP COLUMN live_since;
