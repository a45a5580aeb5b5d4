-- Password resets. As with verification tokens, only a hash of the token is kept; the token is
-- derived from `nonce` with a server-side key when the worker renders the email.
CREATE TABLE public.password_resets (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES public.users (id) ON DELETE CASCADE,
    nonce        bytea NOT NULL,
    token_hash   bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    consumed_at  timestamptz,
    CONSTRAINT password_resets_token_hash_key UNIQUE (token_hash)
);
CREATE INDEX password_resets_user_pending
    ON public.password_resets (user_id) WHERE consumed_at IS NULL;

-- Every token (user or workspace) carries the version current when it was issued; a password
-- reset bumps it, so every token issued before the reset is refused from then on.
ALTER TABLE public.users ADD COLUMN token_version integer NOT NULL DEFAULT 0;

-- The worker removes unverified accounts that own nothing after a grace period.
CREATE INDEX users_unverified_created
    ON public.users (created_at) WHERE NOT email_verified;
