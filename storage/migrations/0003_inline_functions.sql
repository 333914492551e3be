-- PostgreSQL inlines a one-expression SQL function into the statement that calls it,
-- unless the function claims a volatility its body does not have. These three did:
-- belay_ts and belay_us were IMMUTABLE, but timestamptz arithmetic is only STABLE, and
-- belay_keep_last was STRICT around non-strict calls and a subquery. Not inlined, each
-- call ran a small executor of its own: ~1 us a row and a re-parse of the body in every
-- statement, for ~15 calls a trigger (perf: fmgr_sql, pg_strtok). Same results, inlined.
ALTER FUNCTION belay_ts(bigint) STABLE;
ALTER FUNCTION belay_us(timestamptz) STABLE;

-- The last n elements of a JSON array (a jsonpath slice past the start is just shorter).
CREATE OR REPLACE FUNCTION belay_keep_last(a jsonb, n int) RETURNS jsonb
LANGUAGE sql IMMUTABLE CALLED ON NULL INPUT
RETURN jsonb_path_query_array(a, '$[last - $m to last]', jsonb_build_object('m', n - 1));
