-- Labels: a workspace's own set (Owners keep it: name, colour, description), applied by agents
-- to conversations. A label's name is unique in any case; deleting a label takes it off every
-- conversation.
CREATE TABLE labels (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name         text NOT NULL,
    color        text NOT NULL CHECK (color ~ '^#[0-9a-f]{6}$'),
    description  text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX labels_name_key ON labels (lower(name));

CREATE TABLE conversation_labels (
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    label_id         uuid NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
    PRIMARY KEY (conversation_id, label_id)
);
-- The inbox filtered by a label; deleting a label.
CREATE INDEX conversation_labels_label ON conversation_labels (label_id, conversation_id);
