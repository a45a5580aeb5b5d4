-- Waiting events numbered by one row a pass.
--
-- Until now a pass numbered the events that waited (`V27`) by writing each one's row again
-- with its `seq`: a second version of every wide row and of its index entries, which cost a
-- busy workspace a fifth to a quarter of its write throughput (`docs/performance.md`,
-- "Numbering a batch with one row"). Now a pass inserts one `event_batches` row: the first
-- seq it gave and the arrivals it numbered, in order (the `n`-th arrival has seq
-- `first_seq + n - 1`). The events' rows are written once and keep `seq` NULL; readers map
-- seqs to arrivals through the batches.
--
-- A waiting event is one whose arrival is in no batch. To find those without looking at every
-- batch, the head keeps a watermark: every arrival at or below `batched_through` is numbered,
-- or belongs to a transaction that rolled back. `above` lists the arrivals above it already
-- numbered. The hard case is a straggler, an arrival whose transaction commits after later
-- arrivals were numbered: the watermark may pass an arrival only once its transaction has
-- ended. A writer's transaction has its transaction id before it takes an arrival, so the
-- head keeps a ticket: the last arrival handed out (`ticket_arrival`) and the first
-- transaction id not yet assigned when it was read (`ticket_xmax`). Once the oldest running
-- transaction is at or past `ticket_xmax`, every transaction that took an arrival up to the
-- ticket has ended, a pass sees all of those that committed, and the watermark moves there.
-- (Transaction ids are a node's own: a ticket above the node's next id was taken on another
-- node before the workspace's tables moved, and a move waits for their writers to end.)
ALTER TABLE event_log_head
    ADD COLUMN batched_through bigint NOT NULL DEFAULT 0,
    ADD COLUMN above bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN ticket_arrival bigint NOT NULL DEFAULT 0,
    ADD COLUMN ticket_xmax bigint NOT NULL DEFAULT 0;

CREATE TABLE event_batches (
    first_seq   bigint PRIMARY KEY,
    arrivals    bigint[] NOT NULL CHECK (cardinality(arrivals) BETWEEN 1 AND 1000),
    -- The newest arrival of the batch: a conversation's activity finds an event's batch
    -- from its arrival through it.
    max_arrival bigint NOT NULL
);
CREATE INDEX event_batches_max_arrival ON event_batches (max_arrival);
