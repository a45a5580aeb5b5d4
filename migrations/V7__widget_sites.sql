-- The chat widget's public side, one row per workspace that has opened its widget settings.
-- It lives in the control plane because a visitor's browser names only the site key, and a
-- CORS preflight names only its origin: both are looked up before any workspace is known.
CREATE TABLE public.widget_sites (
    workspace_id           uuid PRIMARY KEY REFERENCES public.workspaces (id) ON DELETE CASCADE,
    -- Public (embedded in web pages): names the workspace and grants nothing else.
    site_key               text NOT NULL,
    -- Exact browser origins (scheme://host[:port]), stored as browsers send them.
    allowed_origins        text[] NOT NULL DEFAULT '{}',
    identity_verification  boolean NOT NULL DEFAULT false,
    -- The identity secret is never stored: it is derived from this nonce with a key only the
    -- API holds (from JWT_SECRET), so a database dump cannot forge identities.
    identity_secret_nonce  bytea,
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT widget_sites_site_key_key UNIQUE (site_key),
    CONSTRAINT widget_sites_site_key_format CHECK (site_key ~ '^swk_[A-Za-z0-9_-]{32}$'),
    CONSTRAINT widget_sites_verification_needs_secret
        CHECK (NOT identity_verification OR identity_secret_nonce IS NOT NULL)
);
-- Preflights ask "does any workspace allow this origin?" (`allowed_origins @> ARRAY[$1]`).
CREATE INDEX widget_sites_allowed_origins ON public.widget_sites USING gin (allowed_origins);
