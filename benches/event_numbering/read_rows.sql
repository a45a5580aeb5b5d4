\set after random(0, 99000)
SELECT seq, id, type, occurred_at, actor_kind, actor_id, data FROM in_rows.events WHERE seq > :after ORDER BY seq LIMIT 1000;
