-- A label's reports from rollups, as the channel's and the agent's are (V24): a year filtered
-- by a label reads that label's 8 760 hours, not every cycle that carries it.
--
-- A cycle's facts are counted under the labels its conversation carries. The fold adds a fact
-- to its labels' rows when its cycle first records it; when a conversation's labels change,
-- it moves every fact of its cycles from the labels taken off to the labels put on, in the
-- same transaction as the change's event. `report_cursor.label_rollups_built` says whether
-- these tables hold the cycles folded before they existed: the first fold after this
-- migration builds them from `report_cycles` under the cursor's lock.

ALTER TABLE report_cursor ADD COLUMN label_rollups_built boolean NOT NULL DEFAULT false;

-- Per label, UTC hour and channel (report_hours without the incoming messages: the heatmap
-- has no label filter).
CREATE TABLE report_label_hours (
    label_id                     uuid NOT NULL,
    hour                         timestamptz NOT NULL,
    channel                      text NOT NULL,
    created                      integer NOT NULL DEFAULT 0,
    reopened                     integer NOT NULL DEFAULT 0,
    resolved                     integer NOT NULL DEFAULT 0,
    ratings                      integer[] NOT NULL DEFAULT '{0,0,0,0,0}',
    response_seconds             integer[] NOT NULL DEFAULT '{}',
    response_business_seconds    integer[] NOT NULL DEFAULT '{}',
    resolution_seconds           integer[] NOT NULL DEFAULT '{}',
    resolution_business_seconds  integer[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (label_id, hour, channel)
);

-- Per label, UTC hour and agent credited, and per label, UTC day and agent: the per-agent
-- report filtered by a label, as report_agent_hours and report_agent_days serve it unfiltered.
CREATE TABLE report_label_agent_hours (
    label_id                     uuid NOT NULL,
    hour                         timestamptz NOT NULL,
    agent_id                     uuid NOT NULL,
    ratings                      integer[] NOT NULL DEFAULT '{0,0,0,0,0}',
    response_seconds             integer[] NOT NULL DEFAULT '{}',
    response_business_seconds    integer[] NOT NULL DEFAULT '{}',
    resolution_seconds           integer[] NOT NULL DEFAULT '{}',
    resolution_business_seconds  integer[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (label_id, hour, agent_id)
);

CREATE TABLE report_label_agent_days (
    label_id                     uuid NOT NULL,
    day                          timestamptz NOT NULL,
    agent_id                     uuid NOT NULL,
    ratings                      integer[] NOT NULL DEFAULT '{0,0,0,0,0}',
    response_seconds             integer[] NOT NULL DEFAULT '{}',
    response_business_seconds    integer[] NOT NULL DEFAULT '{}',
    resolution_seconds           integer[] NOT NULL DEFAULT '{}',
    resolution_business_seconds  integer[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (label_id, day, agent_id)
);
