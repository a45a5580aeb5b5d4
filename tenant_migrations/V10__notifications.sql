-- Notification emails.
--
-- agent_notices: what an agent is to be told by email (assigned to a conversation, a new
-- conversation, the contact wrote again, a mention in a note), written in the transaction of
-- the change. The first unsettled notice of an agent schedules one outbox message two minutes
-- out; later ones join it. Delivery claims the agent's unsettled notices for its message
-- (`outbox_id`), drops those no longer true (`dropped_at`) and marks the ones it emailed
-- (`emailed_at`): a notice is mailed by at most one message.
CREATE TABLE agent_notices (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    agent_id         uuid NOT NULL REFERENCES agent_profiles (id),
    kind             text NOT NULL
                     CHECK (kind IN ('assigned', 'new_conversation', 'contact_reply', 'mention')),
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    -- The message the notice is about (the contact's message, the note), for its preview.
    message_id       uuid REFERENCES messages (id) ON DELETE SET NULL,
    -- The agent who did it; null for a contact, an API key or the system.
    actor_agent_id   uuid REFERENCES agent_profiles (id),
    created_at       timestamptz NOT NULL DEFAULT now(),
    outbox_id        uuid,
    emailed_at       timestamptz,
    dropped_at       timestamptz,
    CONSTRAINT agent_notices_settled_once CHECK (emailed_at IS NULL OR dropped_at IS NULL)
);
CREATE INDEX agent_notices_unsettled ON agent_notices (agent_id, created_at)
    WHERE emailed_at IS NULL AND dropped_at IS NULL;
CREATE INDEX agent_notices_outbox ON agent_notices (outbox_id) WHERE outbox_id IS NOT NULL;

-- What the visitor's widget reported seeing: the conversation's messages up to this time.
ALTER TABLE conversations ADD COLUMN visitor_read_at timestamptz;

-- Emails of unseen replies to a widget visitor, one row per outbox message that claimed some:
-- the replies after `since` up to `through`. `sent_at` is set once the email left; the next
-- one waits until ten minutes after the last.
CREATE TABLE visitor_reply_emails (
    outbox_id        uuid PRIMARY KEY,
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    since            timestamptz,
    through          timestamptz NOT NULL,
    sent_at          timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX visitor_reply_emails_conversation
    ON visitor_reply_emails (conversation_id, through DESC);
