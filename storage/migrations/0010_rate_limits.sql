-- Rate limits (docs/guarantees.md#rate-limits): each integration key's token bucket holds and
-- refills this many requests a minute, on each node.
ALTER TABLE integration
  ADD COLUMN rate_limit_per_minute int NOT NULL DEFAULT 600 CHECK (rate_limit_per_minute >= 1);
