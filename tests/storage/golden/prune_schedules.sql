
DELETE FROM schedule WHERE org_id = $1 AND NOT (name = ANY($2::text[]))
RETURNING name
