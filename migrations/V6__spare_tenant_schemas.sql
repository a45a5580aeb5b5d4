-- Spare tenant schemas, made ahead of time by the worker: `spare_<32 hex>`, already migrated
-- to `schema_version`. Creating a workspace takes one (row lock, SKIP LOCKED) and renames it to
-- `ws_<id>` in its own transaction, instead of creating ~45 relations on the request path,
-- which slows as the catalog grows. A row exists exactly when its schema does: both are made,
-- and both are taken or dropped, in one transaction.
CREATE TABLE public.spare_schemas (
    -- Never user input; the check keeps anything but our own names out of the SQL that quotes it.
    schema_name     text PRIMARY KEY CHECK (schema_name ~ '^spare_[0-9a-f]{32}$'),
    schema_version  integer NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
-- Claims take the oldest spare at the current version; the worker counts and drops by version.
CREATE INDEX spare_schemas_version_created ON public.spare_schemas (schema_version, created_at);
