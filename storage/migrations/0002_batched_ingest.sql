-- The last n elements of a JSON array: an incident keeps the last few payloads as
-- evidence, also when one statement adds the payloads of several events at once.
CREATE FUNCTION belay_keep_last(a jsonb, n int) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT CASE
    WHEN jsonb_array_length(a) <= n THEN a
    WHEN jsonb_array_length(a) = n + 1 THEN a - 0
    ELSE (SELECT jsonb_agg(e ORDER BY i)
          FROM jsonb_array_elements(a) WITH ORDINALITY AS x(e, i)
          WHERE i > jsonb_array_length(a) - n)
  END
$$;

-- Two indexes every new incident paid for and no query reads: incidents are always
-- looked up with their org (the primary key), and adoption scans the unresolved rows
-- through incident_open_dedup, which is partial on the same condition. Without the
-- index on next_fire_at, firing a step can update its row in place (HOT).
ALTER TABLE incident DROP CONSTRAINT incident_id_key;
DROP INDEX incident_unresolved;
