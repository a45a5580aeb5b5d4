-- The workspace's audit log: every security-relevant change (sign-ins to the workspace, roles,
-- invitations, deactivations, API keys, widget and webhook secrets, settings, deletion),
-- written in the transaction of the change. Append-only for the application: the trigger
-- refuses every UPDATE, and every DELETE of an entry younger than the retention (one year), so
-- no route or code path can rewrite history; the worker prunes what is older.
CREATE TABLE audit_log (
    id           uuid PRIMARY KEY,
    at           timestamptz NOT NULL DEFAULT now(),
    actor_kind   text NOT NULL CHECK (actor_kind IN ('user', 'apiKey', 'operator')),
    -- The user's or the API key's id; NULL for an operator's command.
    actor_id     uuid,
    -- As the actor was called then (a name, a key's name, the command).
    actor_name   text NOT NULL,
    ip           inet,
    action       text NOT NULL,
    target_type  text NOT NULL,
    target_id    text,
    -- Changed fields, {"field": {"from": ..., "to": ...}} (never a secret).
    changes      jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_at ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_action ON audit_log (action, at DESC);
CREATE INDEX audit_log_actor ON audit_log (actor_id, at DESC);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND OLD.at < now() - interval '1 year' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'the audit log is append-only (% refused)', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
