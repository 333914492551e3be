-- A delivery's idempotency key (docs/architecture.md#page), "<incident>:<loop>:<step>:<channel>:
-- <target>", written once for every statement that inserts deliveries. Explicit casts
-- keep the body IMMUTABLE (text || anything is only STABLE), so it is inlined.
CREATE FUNCTION belay_delivery_key(incident bigint, loop int, step int, channel text,
                                   target text) RETURNS text
LANGUAGE sql IMMUTABLE
RETURN incident::text || ':' || loop::text || ':' || step::text || ':' || channel || ':' ||
       target;
