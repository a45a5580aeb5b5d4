\set after random(0, 99000)
WITH m AS (SELECT b.first_seq + o.i - 1 AS seq, o.arrival FROM batched.event_batches b, unnest(b.arrivals) WITH ORDINALITY o(arrival, i) WHERE b.first_seq > :after - 1000 AND b.first_seq <= :after + 1000 AND b.first_seq + o.i - 1 > :after ORDER BY 1 LIMIT 1000)
SELECT m.seq, e.id, e.type, e.occurred_at, e.actor_kind, e.actor_id, e.data FROM batched.events e JOIN m ON e.arrival = m.arrival
 WHERE e.seq IS NULL AND e.arrival BETWEEN (SELECT min(arrival) FROM m) AND (SELECT max(arrival) FROM m) ORDER BY m.seq;
