BEGIN;
SELECT seq AS base, batched_through AS wm, ticket_arrival AS tl, (pg_snapshot_xmin(pg_current_snapshot())::text::bigint >= ticket_xmax)::int AS ripe, above FROM w1.event_log_head FOR UPDATE \gset
WITH w AS (SELECT e.arrival FROM w1.events e WHERE e.seq IS NULL AND e.arrival > :wm AND e.arrival <> ALL (:above::bigint[]) ORDER BY e.arrival LIMIT 1000), b AS (INSERT INTO w1.event_batches (first_seq, arrivals, max_arrival) SELECT :base + 1, array_agg(arrival ORDER BY arrival), max(arrival) FROM w HAVING count(*) > 0 RETURNING cardinality(arrivals) AS n, arrivals) SELECT coalesce((SELECT n FROM b), 0) AS n, coalesce((SELECT arrivals FROM b), '{}') AS got \gset
SELECT count(*), sum(length(data::text)) FROM w1.events e WHERE e.seq IS NULL AND e.arrival = ANY (:got::bigint[]);
\if :ripe
UPDATE w1.event_log_head SET seq = seq + :n, batched_through = greatest(batched_through, :tl), above = ARRAY(SELECT a FROM unnest(:above::bigint[] || :got::bigint[]) a WHERE a > greatest(batched_through, :tl)), ticket_arrival = (SELECT last_value FROM w1.event_arrivals), ticket_xmax = pg_snapshot_xmax(pg_current_snapshot())::text::bigint;
\elif :n > 0
UPDATE w1.event_log_head SET seq = seq + :n, above = above || :got::bigint[];
\endif
END;
\sleep 5 ms
