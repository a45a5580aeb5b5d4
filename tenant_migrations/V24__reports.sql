-- Reports: what the worker's reports subscriber (`workers/src/reports`) folded from the event
-- log. Reports read these tables only, never `conversations` or `messages`: a year's report
-- reads the year's hours, whatever else the workspace holds.
--
-- Exactness: the subscriber folds a batch of events and moves `report_cursor` in one
-- transaction, so a crash mid-fold rolls back both and the batch is folded again from the
-- same place. A fact enters the hours only when its cycle first records it (a repeated event
-- finds it recorded), so nothing is counted twice.

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

-- An agent's figures over a range read the cycles credited to them.
CREATE INDEX report_cycles_by_responder ON report_cycles (responder_id, first_response_at)
    WHERE first_response_at IS NOT NULL;
CREATE INDEX report_cycles_by_assignee ON report_cycles (assignee_id, resolved_at);
CREATE INDEX report_cycles_by_assignee_start ON report_cycles (assignee_id, started_at);

-- The cycles' facts rolled up per UTC hour and channel, so a year's report reads 8 760 rows
-- per channel however many conversations it holds: counts, the ratings given (1 first), and
-- every first response and resolution of the hour as whole seconds (calendar and business),
-- from which the API takes exact medians and p90s. Hours serve every zone whose midnights
-- fall on whole UTC hours; the API reads `report_cycles` for the others, and when a filter
-- (agent, label) is not a dimension here.
CREATE TABLE report_hours (
    hour                         timestamptz NOT NULL,
    channel                      text NOT NULL,
    created                      integer NOT NULL DEFAULT 0,
    reopened                     integer NOT NULL DEFAULT 0,
    resolved                     integer NOT NULL DEFAULT 0,
    -- Incoming messages: the weekday x hour heatmap.
    incoming                     integer NOT NULL DEFAULT 0,
    ratings                      integer[] NOT NULL DEFAULT '{0,0,0,0,0}',
    response_seconds             integer[] NOT NULL DEFAULT '{}',
    response_business_seconds    integer[] NOT NULL DEFAULT '{}',
    resolution_seconds           integer[] NOT NULL DEFAULT '{}',
    resolution_business_seconds  integer[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (hour, channel)
);

-- The same per UTC hour and agent credited (who replied; the assignee at the resolution, and
-- of the rated resolution): the per-agent report.
CREATE TABLE report_agent_hours (
    hour                         timestamptz NOT NULL,
    agent_id                     uuid NOT NULL,
    ratings                      integer[] NOT NULL DEFAULT '{0,0,0,0,0}',
    response_seconds             integer[] NOT NULL DEFAULT '{}',
    response_business_seconds    integer[] NOT NULL DEFAULT '{}',
    resolution_seconds           integer[] NOT NULL DEFAULT '{}',
    resolution_business_seconds  integer[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (hour, agent_id)
);

-- The same per UTC day and agent: a year's per-agent report reads 365 days an agent (and the
-- hours at the range's two ends), not 8 760 hours.
CREATE TABLE report_agent_days (
    day                          timestamptz NOT NULL,
    agent_id                     uuid NOT NULL,
    ratings                      integer[] NOT NULL DEFAULT '{0,0,0,0,0}',
    response_seconds             integer[] NOT NULL DEFAULT '{}',
    response_business_seconds    integer[] NOT NULL DEFAULT '{}',
    resolution_seconds           integer[] NOT NULL DEFAULT '{}',
    resolution_business_seconds  integer[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (day, agent_id)
);
