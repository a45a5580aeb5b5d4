-- IMAP mailboxes the email channel watches, one per workspace at most. In the control plane,
-- not the workspace's schema, so the API replicas find the mailboxes to watch without visiting
-- every schema, and share them out by lease: a replica holds a mailbox while `lease_until` is
-- ahead and renews it; another takes it over once it lapses.
CREATE TABLE public.email_mailboxes (
    workspace_id     uuid PRIMARY KEY REFERENCES public.workspaces (id) ON DELETE CASCADE,
    host             text NOT NULL,
    port             integer NOT NULL CHECK (port BETWEEN 1 AND 65535),
    tls              boolean NOT NULL,
    username         text NOT NULL,
    -- ChaCha20-Poly1305 under a key derived from JWT_SECRET: a dump of the database alone
    -- does not give the password away.
    password_sealed  bytea NOT NULL,
    folder           text NOT NULL DEFAULT 'INBOX',
    -- Where taking new mail stands: the folder's UIDVALIDITY and the last UID taken.
    uid_validity     bigint,
    last_uid         bigint NOT NULL DEFAULT 0,
    status           text NOT NULL DEFAULT 'connecting'
                     CHECK (status IN ('connecting', 'connected', 'failing')),
    last_error       text,
    -- The Owners were told of the current failure (told again only after it worked).
    owners_alerted   boolean NOT NULL DEFAULT false,
    lease_owner      uuid,
    lease_until      timestamptz,
    -- A change of the settings restarts the mailbox's watcher.
    version          integer NOT NULL DEFAULT 1,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_mailboxes_lease ON public.email_mailboxes (lease_until);
