-- The workspace's event log: every change, once, in commit order.
--
-- `seq` comes from the single row of `event_log_head`, incremented in the same transaction as
-- the change it records. Its row lock is held until that transaction ends, so writers take
-- numbers in commit order and a rolled-back change gives its number back: readers never see
-- a gap, and whoever has seen seq n has seen everything before it. Writers append their
-- events as the last statement of their transaction, so the lock is held for the commit only.
--
-- Nothing here refers to `public` (no foreign keys across schemas): a workspace's schema
-- moves alone, to another database or to another Citus node.
CREATE TABLE event_log_head (
    only_row       boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    -- The newest committed event's seq.
    seq            bigint NOT NULL DEFAULT 0,
    -- Events up to this seq were pruned (older than the retention): a reader asking for
    -- what follows an older seq must reload instead.
    pruned_through bigint NOT NULL DEFAULT 0
);
INSERT INTO event_log_head DEFAULT VALUES;

-- `id` (a UUIDv7 made by the writer) names the event to integrations; `seq` is its key.
CREATE TABLE events (
    seq         bigint PRIMARY KEY,
    id          uuid NOT NULL,
    type        text NOT NULL,
    occurred_at timestamptz NOT NULL DEFAULT now(),
    actor_kind  text NOT NULL
        CHECK (actor_kind IN ('agent', 'visitor', 'apiKey', 'operator', 'system')),
    actor_id    uuid,
    -- The resource as the REST API shows it, kept as the text that was written (`json`, not
    -- `jsonb`): it is only ever read whole, and is handed to readers as it is.
    data        json NOT NULL
);
