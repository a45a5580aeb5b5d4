-- Delivery state of outbox messages. The row is the source of truth for each email: the
-- job queue carries one task per delivery attempt, and the worker records the outcome here.
--   outcome NULL           pending (waiting for relay, queued, or waiting to retry)
--   outcome 'done'         delivered to the mail transport (or, for other work, carried out)
--   outcome 'skipped'      no longer worth sending (token used, voided or expired first)
--   outcome 'dead'         gave up: permanent refusal or out of attempts; `jobs retry` revives it
-- `relays` counts hand-overs to the queue, committed before the push: with the row id it names
-- the queue task, and a task whose number is not the row's current one is stale and skipped.
ALTER TABLE public.outbox
    ADD COLUMN relays       integer NOT NULL DEFAULT 0,
    ADD COLUMN attempts     integer NOT NULL DEFAULT 0,
    -- While an attempt is under way: no other worker may start one before this passes.
    ADD COLUMN claimed_until timestamptz,
    ADD COLUMN last_error   text,
    ADD COLUMN outcome      text CHECK (outcome IN ('done', 'skipped', 'dead')),
    ADD COLUMN finished_at  timestamptz;

DROP INDEX public.outbox_pending;
CREATE INDEX outbox_due ON public.outbox (available_at)
    WHERE relayed_at IS NULL AND outcome IS NULL;
CREATE INDEX outbox_open ON public.outbox (kind) WHERE outcome IS NULL;
CREATE INDEX outbox_relayed_open ON public.outbox (relayed_at) WHERE outcome IS NULL AND relayed_at IS NOT NULL;
CREATE INDEX outbox_dead ON public.outbox (finished_at) WHERE outcome = 'dead';
-- Delivered rows are purged after a retention period; this finds them.
CREATE INDEX outbox_finished ON public.outbox (finished_at) WHERE outcome IN ('done', 'skipped');

-- Wake the relay as soon as a message commits, instead of waiting for its next poll.
CREATE FUNCTION public.outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('supportdesk_outbox', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER outbox_notify AFTER INSERT ON public.outbox
    FOR EACH STATEMENT EXECUTE FUNCTION public.outbox_notify();

-- Invitations to join a workspace. As with email verification, only a hash of the token is
-- stored; the token is derived from `nonce` with a server-side key when the email is rendered.
CREATE TABLE public.invitations (
    id            uuid PRIMARY KEY,
    workspace_id  uuid NOT NULL REFERENCES public.workspaces (id) ON DELETE CASCADE,
    email         text NOT NULL CHECK (email = lower(btrim(email))),
    role          text NOT NULL CHECK (role IN ('admin', 'agent')),
    invited_by    uuid REFERENCES public.users (id) ON DELETE SET NULL,
    nonce         bytea NOT NULL,
    token_hash    bytea NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz NOT NULL,
    accepted_at   timestamptz,
    revoked_at    timestamptz,
    CONSTRAINT invitations_token_hash_key UNIQUE (token_hash)
);
-- At most one open invitation per address and workspace; re-inviting replaces it.
CREATE UNIQUE INDEX invitations_one_pending
    ON public.invitations (workspace_id, email)
    WHERE accepted_at IS NULL AND revoked_at IS NULL;
