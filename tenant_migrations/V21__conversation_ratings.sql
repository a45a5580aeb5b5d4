-- When a conversation was resolved, and what its customers thought of each resolution.
--
-- `resolved_at` names a resolution: a customer writing within 7 days of it reopens the
-- conversation (`conversations::intake`), and a rating is of one resolution, so a reopened
-- and re-resolved conversation may be rated again while one resolution is rated once. Before
-- this column a resolution's time was the conversation's `updated_at`, which any later change
-- (a label) moved; resolved conversations take that as their best estimate.
ALTER TABLE conversations ADD COLUMN resolved_at timestamptz;
UPDATE conversations SET resolved_at = updated_at WHERE status = 'resolved';
ALTER TABLE conversations ADD CONSTRAINT conversations_resolved_at_by_status
    CHECK ((status = 'resolved') = (resolved_at IS NOT NULL));

CREATE TABLE conversation_ratings (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    -- The resolution rated: the conversation's `resolved_at` when it was rated.
    resolved_at      timestamptz NOT NULL,
    rating           smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
    comment          text CHECK (char_length(comment) <= 2000),
    created_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT conversation_ratings_once_per_resolution UNIQUE (conversation_id, resolved_at)
);
