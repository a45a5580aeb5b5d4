-- The inbox as agents live in it: how a conversation began, what each agent has read, the
-- visitor's context beside the conversation, activity lines, and per-workspace and per-agent
-- choices about replying.

-- How the conversation began: a chat widget visitor ('chat'), or an agent or an API client
-- ('manual'; its first message is outgoing). The email channel adds 'email'.
ALTER TABLE conversations
    ADD COLUMN channel text NOT NULL DEFAULT 'chat' CHECK (channel IN ('chat', 'manual'));
UPDATE conversations c SET channel = 'manual'
 WHERE (SELECT m.kind FROM messages m WHERE m.conversation_id = c.id
         ORDER BY m.created_at, m.id LIMIT 1) = 'outgoing';

-- What each agent has read: incoming messages after `read_at` are unread for them. An agent
-- with no row has read everything from before they joined (`agent_profiles.joined_at`), so a
-- newcomer's inbox does not open with the workspace's whole history unread.
CREATE TABLE conversation_reads (
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    agent_id         uuid NOT NULL REFERENCES agent_profiles (id),
    read_at          timestamptz NOT NULL,
    PRIMARY KEY (conversation_id, agent_id)
);

-- Unread counts: incoming messages of a conversation after a time.
CREATE INDEX messages_incoming ON messages (conversation_id, created_at) WHERE kind = 'incoming';

-- The widget visitor's context, as their browser last reported it (the contact panel): the page
-- they are on, where they first came from, their browser, time zone and language.
ALTER TABLE contacts
    ADD COLUMN last_page_url    text,
    ADD COLUMN last_page_title  text,
    ADD COLUMN referrer         text,
    ADD COLUMN user_agent       text,
    ADD COLUMN time_zone        text,
    ADD COLUMN locale           text,
    ADD COLUMN last_seen_at     timestamptz;

-- Earlier conversations of a contact, newest activity first (the contact panel).
CREATE INDEX conversations_contact_activity
    ON conversations (contact_id, last_message_at DESC, id DESC);
-- A contact's tickets (the contact panel, `GET /api/tickets?requesterId=`).
CREATE INDEX tickets_requester_number ON tickets (requester_id, number DESC);

-- Activity lines of a conversation (assigned, resolved, ticket created) are its events in the
-- log; `conversation_id` is set on those events only, so a conversation's activity is one
-- index range. Message events are not tagged: the conversation's messages are their record.
ALTER TABLE events ADD COLUMN conversation_id uuid;
CREATE INDEX events_conversation ON events (conversation_id, seq) WHERE conversation_id IS NOT NULL;

-- Enter sends a reply (Shift+Enter makes a new line), or the other way round.
ALTER TABLE agent_profiles ADD COLUMN send_with_enter boolean NOT NULL DEFAULT true;

-- How the inbox works in this workspace (`inbox.autoAssignOnReply`, ...). Absent keys take
-- their defaults.
ALTER TABLE settings ADD COLUMN inbox jsonb NOT NULL DEFAULT '{}'::jsonb;
