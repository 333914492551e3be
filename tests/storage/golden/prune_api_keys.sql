
DELETE FROM api_key WHERE org_id = $1 AND NOT (key_hash = ANY($2::text[]))
RETURNING key_hash
