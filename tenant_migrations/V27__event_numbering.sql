-- Events numbered after their commit when the log's head is busy.
--
-- Until now every writer took its events' `seq` from `event_log_head` in its own transaction
-- and held the head's row lock to its commit, so a workspace committed one change at a time
-- (16 writers in one workspace kept 57 to 60 % of their throughput without the log). Now a
-- writer takes the head only when it is free and no event waits to be numbered
-- (`FOR UPDATE SKIP LOCKED`); otherwise it writes its events without a `seq`, with an
-- `arrival` taken from `event_arrivals` after every lock its transaction needed, and after
-- the commit whichever replica numbers next gives them the head's next numbers under its
-- lock, in `arrival` order (`src/events/numbering.rs`).
--
-- What holds: readers only ever see numbered events (`seq > n` passes over the rest), and
-- numbers are handed out under the head's lock in the transaction that commits them, so
-- the numbers readers see still have no gaps. An event is numbered after every event its
-- transaction could see committed: those were numbered already (their numbers are lower), or
-- were waiting (then this one waits too, behind them in arrival order). Two changes to one
-- row therefore keep their order, as do a change and one made from what it showed.
ALTER TABLE events DROP CONSTRAINT events_pkey;
ALTER TABLE events ALTER COLUMN seq DROP NOT NULL;
CREATE UNIQUE INDEX events_seq ON events (seq) WHERE seq IS NOT NULL;

CREATE SEQUENCE event_arrivals AS bigint;
-- Set only on events written without a number.
ALTER TABLE events ADD COLUMN arrival bigint;
CREATE INDEX events_unnumbered ON events (arrival) WHERE seq IS NULL;
