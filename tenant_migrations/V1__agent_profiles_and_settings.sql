-- Applied to every workspace schema (ws_<32 hex>). Names are unqualified: the migration runs
-- with search_path set to the workspace's schema, which also holds this schema's own
-- refinery_schema_history table.

-- A member's face in this workspace: what visitors see next to replies.
CREATE TABLE agent_profiles (
    user_id                   uuid PRIMARY KEY,
    display_name              text NOT NULL,
    avatar_url                text,
    notification_preferences  jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at                timestamptz NOT NULL DEFAULT now(),
    updated_at                timestamptz NOT NULL DEFAULT now()
);

-- Workspace-wide settings (branding, widget), one row.
CREATE TABLE settings (
    id          boolean PRIMARY KEY DEFAULT true CHECK (id),
    branding    jsonb NOT NULL DEFAULT '{}'::jsonb,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO settings DEFAULT VALUES;
