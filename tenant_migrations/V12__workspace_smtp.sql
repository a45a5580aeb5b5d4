-- The workspace's own outgoing mail server: replies to customers leave through it, from the
-- support address, instead of through the platform's. The password is sealed (ChaCha20-Poly1305
-- under a key derived from EMAIL_TOKEN_SECRET): a dump of the database alone does not give it
-- away. `smtp_status` is how the last send or test through it went, shown in Settings.
ALTER TABLE email_settings
    ADD COLUMN smtp_host             text,
    ADD COLUMN smtp_port             integer CHECK (smtp_port BETWEEN 1 AND 65535),
    -- true: TLS required (implicit on 465, STARTTLS elsewhere); false: plain SMTP, STARTTLS
    -- when offered (a server on a private network only).
    ADD COLUMN smtp_tls              boolean,
    ADD COLUMN smtp_username         text,
    ADD COLUMN smtp_password_sealed  bytea,
    ADD COLUMN smtp_status           text CHECK (smtp_status IN ('untested', 'testing', 'working', 'failing')),
    ADD COLUMN smtp_last_error       text,
    ADD COLUMN smtp_checked_at       timestamptz,
    ADD CONSTRAINT email_settings_smtp_whole CHECK (
        (smtp_host IS NULL) = (smtp_port IS NULL)
        AND (smtp_host IS NULL) = (smtp_tls IS NULL)
        AND (smtp_host IS NULL) = (smtp_status IS NULL));
