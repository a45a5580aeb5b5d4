-- The email channel: conversations that began by email, the email facts of their messages,
-- the message ids that thread replies into them, and the workspace's support address.

ALTER TABLE conversations
    DROP CONSTRAINT conversations_channel_check,
    ADD CONSTRAINT conversations_channel_check CHECK (channel IN ('chat', 'manual', 'email'));

-- A sender whose mail failed DMARC is not who its From says: their mail goes to a contact
-- known only by the address it claimed, never to the contact established for that address.
ALTER TABLE contacts
    DROP CONSTRAINT contacts_named_somehow,
    ADD CONSTRAINT contacts_named_somehow CHECK (
        email IS NOT NULL OR visitor_id IS NOT NULL OR external_id IS NOT NULL
        OR claimed_email IS NOT NULL);
CREATE UNIQUE INDEX contacts_unverified_sender_key ON contacts (claimed_email)
    WHERE email IS NULL AND visitor_id IS NULL AND external_id IS NULL;

-- One row: the address customers write to (the workspace's own, forwarded to its inbound
-- address), shown in From of the replies.
CREATE TABLE email_settings (
    singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    address     text CHECK (address = lower(btrim(address))),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO email_settings DEFAULT VALUES;

-- The email side of a message: received (incoming) or sent (an agent's reply on an email
-- conversation, with its delivery). `rfc_message_id` is the Message-ID without brackets.
CREATE TABLE email_messages (
    message_id       uuid PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    rfc_message_id   text NOT NULL,
    in_reply_to      text,
    refs             text[] NOT NULL DEFAULT '{}',
    from_address     text NOT NULL,
    from_name        text,
    to_addresses     jsonb NOT NULL DEFAULT '[]',
    cc_addresses     jsonb NOT NULL DEFAULT '[]',
    subject          text NOT NULL DEFAULT '',
    html             text,
    -- Quoted history and signature, collapsed in the dashboard, kept whole.
    quoted           text,
    -- The received message as it came, in the object store.
    raw_key          text,
    authentication   jsonb,
    dmarc_failed     boolean NOT NULL DEFAULT false,
    delivery_status  text CHECK (delivery_status IN ('pending', 'sent', 'failed')),
    delivery_error   text,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_messages_conversation ON email_messages (conversation_id, created_at DESC);

-- Every Message-ID known to belong to a conversation: received mail, our replies, and the
-- emails of unseen chat replies. A reply's In-Reply-To or References finds its conversation
-- here; a Message-ID seen before is the same mail again.
CREATE TABLE email_thread_ids (
    rfc_message_id   text PRIMARY KEY,
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    -- Ours: mail coming back with this id is a loop.
    ours             boolean NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_thread_ids_conversation ON email_thread_ids (conversation_id);
