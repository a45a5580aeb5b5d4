-- Agents get an id of their own in the workspace, distinct from the account's: conversations,
-- tickets and messages refer to agents by it, inside the tenant's schema.
ALTER TABLE agent_profiles ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE agent_profiles
    DROP CONSTRAINT agent_profiles_pkey,
    ADD PRIMARY KEY (id),
    ADD CONSTRAINT agent_profiles_user_id_key UNIQUE (user_id);
