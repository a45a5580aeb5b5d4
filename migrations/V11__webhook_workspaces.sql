-- The workspaces that have webhook endpoints: the worker's delivery loop visits these
-- schemas, never every workspace's. Kept by the API in the transaction that adds or removes
-- an endpoint. No foreign key into a workspace's schema (it may live on another Citus node).
CREATE TABLE public.webhook_workspaces (
    workspace_id  uuid PRIMARY KEY REFERENCES public.workspaces (id) ON DELETE CASCADE,
    endpoints     integer NOT NULL CHECK (endpoints >= 0),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
