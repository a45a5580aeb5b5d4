-- Control plane: everything that is not a workspace's own data lives in schema public.
-- Each workspace's data lives in its own schema (see tenant_migrations/).

CREATE TABLE public.users (
    id              uuid PRIMARY KEY,
    -- Stored normalised (trimmed, lower case): equality is case-insensitive by construction.
    email           text NOT NULL,
    full_name       text NOT NULL,
    password_hash   text NOT NULL,
    email_verified  boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT users_email_key UNIQUE (email),
    CONSTRAINT users_email_normalised CHECK (email = lower(btrim(email)))
);

-- One row per verification email sent. Only a hash of the token is kept; the token itself is
-- derived from `nonce` with a server-side key when the email is rendered, so neither a
-- database dump nor the outbox holds anything that can be replayed.
CREATE TABLE public.email_verifications (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES public.users (id) ON DELETE CASCADE,
    -- The address this token proves ownership of (the account's, or a requested new one).
    email        text NOT NULL,
    nonce        bytea NOT NULL,
    token_hash   bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    consumed_at  timestamptz,
    CONSTRAINT email_verifications_token_hash_key UNIQUE (token_hash)
);
CREATE INDEX email_verifications_user_pending
    ON public.email_verifications (user_id) WHERE consumed_at IS NULL;

CREATE TABLE public.workspaces (
    id           uuid PRIMARY KEY,
    name         text NOT NULL,
    slug         text NOT NULL,
    -- Derived from the id (ws_<32 hex>), never from user input.
    schema_name  text NOT NULL,
    status       text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleting')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT workspaces_slug_key UNIQUE (slug),
    CONSTRAINT workspaces_schema_name_key UNIQUE (schema_name),
    CONSTRAINT workspaces_slug_format CHECK (slug ~ '^[a-z0-9-]{3,48}$')
);

CREATE TABLE public.memberships (
    workspace_id  uuid NOT NULL REFERENCES public.workspaces (id) ON DELETE CASCADE,
    user_id       uuid NOT NULL REFERENCES public.users (id) ON DELETE CASCADE,
    role          text NOT NULL CHECK (role IN ('admin', 'agent')),
    status        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deactivated')),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX memberships_user ON public.memberships (user_id);

-- Transactional outbox: written in the same transaction as the business change, relayed to
-- the job queue by the worker, so an outage of Redis or SMTP loses nothing.
CREATE TABLE public.outbox (
    id            uuid PRIMARY KEY,
    kind          text NOT NULL,
    payload       jsonb NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    available_at  timestamptz NOT NULL DEFAULT now(),
    relayed_at    timestamptz
);
CREATE INDEX outbox_pending ON public.outbox (available_at) WHERE relayed_at IS NULL;
