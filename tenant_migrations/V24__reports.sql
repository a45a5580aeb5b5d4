-- Reports: what the worker's reports subscriber (`workers/src/reports`) folded from the event
-- log. Reports read these tables only, never `conversations` or `messages`, so a year's report
-- costs what the year's cycles cost, whatever else the workspace holds.
--
-- Exactness: the subscriber folds a batch of events and moves `report_cursor` in one
-- transaction, so a crash mid-fold rolls back both and the batch is folded again from the
-- same place; every write below is keyed (a conversation's cycle, an hour), so nothing is
-- counted twice.

CREATE TABLE report_cursor (
    only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    -- The last event folded.
    seq       bigint NOT NULL DEFAULT 0,
    folded_at timestamptz
);
INSERT INTO report_cursor DEFAULT VALUES;

-- One row per cycle of a conversation: from its creation (cycle 1), or a reopening (2, 3, ...),
-- to the resolution that ends it. Times are the resource's own (`createdAt`, `resolvedAt`, a
-- message's `createdAt`), seconds are whole, and business seconds count the workspace's
-- business hours as they were when the figure was folded.
CREATE TABLE report_cycles (
    conversation_id             uuid NOT NULL,
    cycle                       integer NOT NULL CHECK (cycle >= 1),
    channel                     text NOT NULL,
    -- Created (cycle 1) or reopened.
    started_at                  timestamptz NOT NULL,
    -- The conversation's assignee while the cycle is open, kept from its resolution on.
    assignee_id                 uuid,
    -- The conversation's labels now (every cycle follows a change).
    labels                      uuid[] NOT NULL DEFAULT '{}',
    -- The cycle's first incoming message, and the first agent reply after it.
    first_incoming_at           timestamptz,
    first_response_at           timestamptz,
    responder_id                uuid,
    response_seconds            integer,
    response_business_seconds   integer,
    resolved_at                 timestamptz,
    resolution_seconds          integer,
    resolution_business_seconds integer,
    -- The customer's rating of this cycle's resolution (one per resolution).
    rating_id                   uuid,
    rating                      smallint CHECK (rating BETWEEN 1 AND 5),
    rated_at                    timestamptz,
    PRIMARY KEY (conversation_id, cycle),
    CONSTRAINT report_cycles_response_whole CHECK (
        (first_response_at IS NULL) = (response_seconds IS NULL)
        AND (first_response_at IS NULL) = (response_business_seconds IS NULL)),
    CONSTRAINT report_cycles_resolution_whole CHECK (
        (resolved_at IS NULL) = (resolution_seconds IS NULL)
        AND (resolved_at IS NULL) = (resolution_business_seconds IS NULL))
);
-- Each report reads one of these by its range, covered, so a year is an index-only scan.
CREATE INDEX report_cycles_by_start ON report_cycles (started_at)
    INCLUDE (cycle, channel, assignee_id);
CREATE INDEX report_cycles_by_response ON report_cycles (first_response_at)
    INCLUDE (response_seconds, response_business_seconds, responder_id, channel)
    WHERE first_response_at IS NOT NULL;
CREATE INDEX report_cycles_by_resolution ON report_cycles (resolved_at)
    INCLUDE (resolution_seconds, resolution_business_seconds, assignee_id, channel)
    WHERE resolved_at IS NOT NULL;
CREATE INDEX report_cycles_by_rating ON report_cycles (rated_at)
    INCLUDE (rating, assignee_id, channel)
    WHERE rating IS NOT NULL;
CREATE INDEX report_cycles_by_label ON report_cycles USING gin (labels);

-- Incoming messages per UTC hour and channel: the weekday x hour heatmap.
CREATE TABLE report_incoming_hours (
    hour     timestamptz NOT NULL,
    channel  text NOT NULL,
    messages integer NOT NULL CHECK (messages > 0),
    PRIMARY KEY (hour, channel)
);
