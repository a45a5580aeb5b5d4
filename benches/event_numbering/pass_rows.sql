BEGIN;
SELECT seq AS base FROM w1.event_log_head FOR UPDATE \gset
WITH u AS (UPDATE w1.events e SET seq = :base + w.n FROM (SELECT arrival, row_number() OVER (ORDER BY arrival) AS n FROM w1.events WHERE seq IS NULL ORDER BY arrival LIMIT 1000) w WHERE e.arrival = w.arrival AND e.seq IS NULL RETURNING e.seq, e.id, e.type, e.occurred_at, e.actor_kind, e.actor_id, e.data), r AS (SELECT count(*) AS n, max(seq) AS last, sum(length(data::text)) AS bytes FROM u) SELECT n, coalesce(last, 0) AS last FROM r \gset
\if :n > 0
UPDATE w1.event_log_head SET seq = :last;
\endif
END;
\sleep 5 ms
