-- Attachments: files on messages. The bytes live in object storage under the workspace's
-- prefix (`workspaces/{workspace}/attachments/{id}/original|thumbnail`); this table is what
-- the workspace knows of them, and the only thing that names them.
--
-- An agent uploads for a conversation (`conversation_id` set at once); a visitor uploads for
-- their conversation-to-be (set when their message takes the file). `message_id` is set when a
-- message takes the file, once: a file belongs to one message.
CREATE TABLE attachments (
    id               uuid PRIMARY KEY,
    conversation_id  uuid REFERENCES conversations (id) ON DELETE CASCADE,
    message_id       uuid REFERENCES messages (id) ON DELETE CASCADE,
    uploader_kind    text NOT NULL CHECK (uploader_kind IN ('member', 'api_key', 'visitor')),
    -- The member's user id, the API key's id, or the visitor's contact id.
    uploader_id      uuid NOT NULL,
    name             text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
    -- Sniffed from the bytes, never the sender's word.
    content_type     text NOT NULL,
    size             bigint NOT NULL CHECK (size >= 0),
    -- Images: pixels after orientation; null for other files.
    width            integer,
    height           integer,
    -- Whether browsers may show it (images and PDFs); everything else is a download.
    inline           boolean NOT NULL,
    thumbnail_type   text,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX attachments_message ON attachments (message_id, created_at, id)
    WHERE message_id IS NOT NULL;
-- Uploads no message took: the worker discards them a day later.
CREATE INDEX attachments_unsent ON attachments (created_at) WHERE message_id IS NULL;

-- What the workspace's files take: one row, moved in the transaction that adds a file, so the
-- quota holds under concurrent uploads without summing the table.
CREATE TABLE storage_usage (
    only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    bytes     bigint NOT NULL DEFAULT 0 CHECK (bytes >= 0),
    files     bigint NOT NULL DEFAULT 0 CHECK (files >= 0)
);
INSERT INTO storage_usage DEFAULT VALUES;
