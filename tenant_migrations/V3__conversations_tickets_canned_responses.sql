-- Conversations with their messages and notes, tickets with their comments, the contacts they
-- are about, and canned responses. Authors and assignees are agents (agent_profiles.id); an
-- agent is never deleted, so history keeps its author. Contacts, conversations and agents are
-- never deleted either, so their foreign keys need no index of their own.

-- The people writing in, one per email address (stored normalised: trimmed, lower case).
CREATE TABLE contacts (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    email       text NOT NULL,
    name        text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT contacts_email_key UNIQUE (email),
    CONSTRAINT contacts_email_normalised CHECK (email = lower(btrim(email)))
);

-- `number` is an identity column: its sequence lives in this schema, so numbers count up per
-- workspace, without a lock between concurrent creators (a rolled-back creation leaves a gap).
CREATE TABLE conversations (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    number           bigint GENERATED ALWAYS AS IDENTITY,
    contact_id       uuid NOT NULL REFERENCES contacts (id),
    subject          text,
    status           text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'pending', 'resolved')),
    priority         text CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
    assignee_id      uuid REFERENCES agent_profiles (id),
    last_message_at  timestamptz NOT NULL DEFAULT now(),
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT conversations_number_key UNIQUE (number)
);
-- One index per shape of the list query (tabs: all, unassigned, one agent; with or without a
-- status), each ending in the list's order, newest activity first, so a page is the first
-- rows of one index range: no sort, whatever the size of the workspace. The agent ones also
-- serve the unassigning of a deactivated agent's work.
CREATE INDEX conversations_activity
    ON conversations (last_message_at DESC, id DESC);
CREATE INDEX conversations_status_activity
    ON conversations (status, last_message_at DESC, id DESC);
CREATE INDEX conversations_assignee_activity
    ON conversations (assignee_id, last_message_at DESC, id DESC);
CREATE INDEX conversations_assignee_status_activity
    ON conversations (assignee_id, status, last_message_at DESC, id DESC);
CREATE INDEX conversations_unassigned_activity
    ON conversations (last_message_at DESC, id DESC) WHERE assignee_id IS NULL;
CREATE INDEX conversations_unassigned_status_activity
    ON conversations (status, last_message_at DESC, id DESC) WHERE assignee_id IS NULL;

-- Incoming messages come from the contact; outgoing replies and private notes from an agent.
CREATE TABLE messages (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    kind             text NOT NULL CHECK (kind IN ('incoming', 'outgoing', 'note')),
    body             text NOT NULL,
    author_agent_id  uuid REFERENCES agent_profiles (id),
    created_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT messages_author_by_kind CHECK ((kind = 'incoming') = (author_agent_id IS NULL))
);
CREATE INDEX messages_conversation ON messages (conversation_id, created_at, id);

CREATE TABLE tickets (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    number           bigint GENERATED ALWAYS AS IDENTITY,
    subject          text NOT NULL,
    description      text,
    status           text NOT NULL DEFAULT 'open'
                     CHECK (status IN ('open', 'pending', 'resolved', 'closed')),
    priority         text CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
    assignee_id      uuid REFERENCES agent_profiles (id),
    requester_id     uuid NOT NULL REFERENCES contacts (id),
    conversation_id  uuid REFERENCES conversations (id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    resolved_at      timestamptz,
    CONSTRAINT tickets_number_key UNIQUE (number),
    CONSTRAINT tickets_resolved_at_by_status
        CHECK ((status IN ('resolved', 'closed')) = (resolved_at IS NOT NULL))
);
-- Newest first is `number` descending; as for conversations, one index per list shape.
CREATE INDEX tickets_status_number ON tickets (status, number DESC);
CREATE INDEX tickets_assignee_number ON tickets (assignee_id, number DESC);
CREATE INDEX tickets_assignee_status_number ON tickets (assignee_id, status, number DESC);
CREATE INDEX tickets_unassigned_number ON tickets (number DESC) WHERE assignee_id IS NULL;
CREATE INDEX tickets_unassigned_status_number
    ON tickets (status, number DESC) WHERE assignee_id IS NULL;

CREATE TABLE ticket_comments (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    ticket_id        uuid NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    body             text NOT NULL,
    author_agent_id  uuid NOT NULL REFERENCES agent_profiles (id),
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ticket_comments_ticket ON ticket_comments (ticket_id, created_at, id);

-- Short codes are stored lower case, so uniqueness is case-insensitive by construction.
CREATE TABLE canned_responses (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    short_code  text NOT NULL,
    title       text NOT NULL,
    body        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT canned_responses_short_code_key UNIQUE (short_code),
    CONSTRAINT canned_responses_short_code_normalised CHECK (short_code = lower(short_code))
);
