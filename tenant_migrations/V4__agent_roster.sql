-- The team as the workspace shows it, kept in the tenant's own schema: the agent list and an
-- agent's record are one read of `agent_profiles`, with no join to the control plane's
-- `public.memberships` and `public.users`. Those stay the record of who may act (the
-- authorization layer reads them); these columns are a copy, written in the same transaction
-- as every change to either (`agents::record::sync_member`).
ALTER TABLE agent_profiles
    ADD COLUMN email      text,
    ADD COLUMN full_name  text,
    ADD COLUMN role       text,
    ADD COLUMN status     text,
    ADD COLUMN joined_at  timestamptz;

-- Existing workspaces: copy from the control plane. The migration runs with search_path set to
-- this schema alone, so current_schema() names it.
UPDATE agent_profiles p
   SET email = u.email, full_name = u.full_name, role = m.role, status = m.status,
       joined_at = m.created_at
  FROM public.memberships m
  JOIN public.users u ON u.id = m.user_id
  JOIN public.workspaces w ON w.id = m.workspace_id
 WHERE m.user_id = p.user_id AND w.schema_name = current_schema();

-- A profile whose membership is gone (none is ever deleted, but be total): keep it, as a
-- former member, so the history that names it still resolves.
UPDATE agent_profiles
   SET email = '', full_name = display_name, role = 'agent', status = 'deactivated',
       joined_at = created_at
 WHERE email IS NULL;

ALTER TABLE agent_profiles
    ALTER COLUMN email SET NOT NULL,
    ALTER COLUMN full_name SET NOT NULL,
    ALTER COLUMN role SET NOT NULL,
    ALTER COLUMN status SET NOT NULL,
    ALTER COLUMN joined_at SET NOT NULL,
    ADD CONSTRAINT agent_profiles_role CHECK (role IN ('admin', 'agent')),
    ADD CONSTRAINT agent_profiles_status CHECK (status IN ('active', 'deactivated'));

-- The list's order, for each of its filters: a page is the first rows of one index range.
CREATE INDEX agent_profiles_joined ON agent_profiles (joined_at, id);
CREATE INDEX agent_profiles_status_joined ON agent_profiles (status, joined_at, id);
