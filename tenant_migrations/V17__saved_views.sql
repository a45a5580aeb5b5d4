-- Saved views: a named set of inbox filters (the query string of `GET /api/conversations`,
-- as JSON). A personal view belongs to one agent and only they see it; a shared one
-- (`owner_id` null) is the workspace's, kept by Owners, seen by everyone. Each list is in
-- the order its people gave it.
CREATE TABLE saved_views (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    owner_id    uuid REFERENCES agent_profiles (id) ON DELETE CASCADE,
    name        text NOT NULL,
    filters     jsonb NOT NULL CHECK (jsonb_typeof(filters) = 'object'),
    position    integer NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
-- An agent's views and the shared ones (owner_id IS NULL), in order.
CREATE INDEX saved_views_owner ON saved_views (owner_id, position, id);
