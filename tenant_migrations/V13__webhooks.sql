-- Webhook endpoints: durable subscribers of the workspace's event log. Each endpoint keeps its
-- own place in the log (`cursor`, the seq of the last event it is done with) and receives the
-- events after it one at a time, in seq order, so a receiver sees a conversation's events in
-- order and a slow endpoint holds up only itself. The log is the queue: nothing is copied per
-- endpoint, and an endpoint made later starts at the log's head.
CREATE TABLE webhook_endpoints (
    id                      uuid PRIMARY KEY,
    url                     text NOT NULL CHECK (length(url) <= 2000),
    description             text NOT NULL DEFAULT '' CHECK (length(description) <= 500),
    -- Event types it wants; '{*}' for all.
    event_types             text[] NOT NULL CHECK (cardinality(event_types) > 0),
    enabled                 boolean NOT NULL DEFAULT true,
    -- Why it was disabled by the product (a 410, five days of failures); NULL when an Owner
    -- disabled it or it is enabled.
    disabled_reason         text,
    -- The signing secret (the bytes behind `whsec_`), sealed with ChaCha20-Poly1305 under a
    -- key derived from EMAIL_TOKEN_SECRET: a dump of the database alone cannot sign. After a
    -- rotation the previous secret signs beside the new one until `previous_until`.
    secret_sealed           bytea NOT NULL,
    previous_secret_sealed  bytea,
    previous_until          timestamptz,
    cursor                  bigint NOT NULL,
    -- Attempts made at the event after `cursor`, and when the next may be made.
    attempt                 integer NOT NULL DEFAULT 0,
    next_attempt_at         timestamptz,
    -- The first failure since the last success: five days of it disables the endpoint.
    failing_since           timestamptz,
    last_error              text,
    -- The worker delivering to it (one at a time per endpoint).
    lease_owner             uuid,
    lease_until             timestamptz,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now()
);

-- Every attempt, kept 30 days: the delivery log an Owner reads.
CREATE TABLE webhook_attempts (
    id                uuid PRIMARY KEY,
    endpoint_id       uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id          uuid NOT NULL,
    -- NULL for a test event.
    event_seq         bigint,
    event_type        text NOT NULL,
    attempt           integer NOT NULL CHECK (attempt >= 1),
    status            text NOT NULL CHECK (status IN ('succeeded', 'failed')),
    response_status   integer,
    latency_ms        integer,
    -- The first 2 KiB of the response body.
    response_excerpt  text,
    error             text,
    created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id DESC);
CREATE INDEX webhook_attempts_age ON webhook_attempts (created_at);

-- Deliveries asked for by hand, outside the endpoint's place in the log: a retry of an
-- earlier event, or a test event. Sent once, before the endpoint goes on with the log.
CREATE TABLE webhook_requests (
    id           uuid PRIMARY KEY,
    endpoint_id  uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    -- An event of the log to send again, or NULL for a `webhook.test` event.
    event_seq    bigint,
    event_id     uuid NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_requests_endpoint ON webhook_requests (endpoint_id, created_at);
