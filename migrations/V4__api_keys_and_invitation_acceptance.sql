-- Secret API keys: workspace credentials for integrations (agent management only).
-- The secret is never stored: `lookup` (a prefix of its random part) finds the row and
-- `secret_hash` (SHA-256 of the whole secret) is compared in constant time. A 256-bit random
-- secret needs no slow hash: nothing about it can be guessed from the digest.
CREATE TABLE public.api_keys (
    id              uuid PRIMARY KEY,
    workspace_id    uuid NOT NULL REFERENCES public.workspaces (id) ON DELETE CASCADE,
    name            text NOT NULL,
    lookup          text NOT NULL,
    secret_hash     bytea NOT NULL,
    created_by      uuid REFERENCES public.users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    regenerated_at  timestamptz,
    -- Written at most about once a minute per key, not on every request.
    last_used_at    timestamptz,
    CONSTRAINT api_keys_lookup_key UNIQUE (lookup)
);
CREATE INDEX api_keys_workspace ON public.api_keys (workspace_id, created_at);

-- Who accepted an invitation (the account may have been created by accepting it).
ALTER TABLE public.invitations
    ADD COLUMN accepted_by uuid REFERENCES public.users (id) ON DELETE SET NULL;
