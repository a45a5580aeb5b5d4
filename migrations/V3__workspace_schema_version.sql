-- The tenant-migration version each workspace schema is at, so `tenants migrate` can skip
-- current tenants with one query instead of visiting every schema.
ALTER TABLE public.workspaces ADD COLUMN schema_version integer NOT NULL DEFAULT 0;
CREATE INDEX workspaces_schema_version ON public.workspaces (schema_version);
