//! The audit log: who changed what that matters to a workspace's security, from where, and
//! what it was before. An entry is written by the action it records, in the same
//! transaction, so a change that commits always has its entry and a rolled-back one never
//! does. Entries are append-only (the table's trigger refuses updates and early deletes) and
//! never hold a secret: a rotated secret is recorded as rotated, not as its value.
//!
//! `GET /api/audit-log` (Owners) reads it, filtered and paged, or as CSV (`routes`).

mod routes;

use std::net::IpAddr;

use serde_json::Value;
use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::authz::{Actor, Principal};
use crate::authz::{Permission, RequireExt, Rule};
use crate::extract::ClientIp;
use crate::state::AppState;

/// What was done. The names are the log's `action` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// A member selected the workspace: a workspace token was issued.
    SignedIn,
    MemberInvited,
    InvitationRevoked,
    MemberJoined,
    RoleChanged,
    MemberDeactivated,
    MemberReactivated,
    ApiKeyCreated,
    ApiKeyRegenerated,
    ApiKeyRevoked,
    WidgetSettingsChanged,
    WidgetSiteKeyRegenerated,
    WidgetIdentitySecretRegenerated,
    WebhookCreated,
    WebhookChanged,
    WebhookDeleted,
    WebhookSecretRotated,
    SettingsChanged,
    EmailSettingsChanged,
    WorkspaceDeletionRequested,
}

impl Action {
    pub const ALL: [Self; 20] = [
        Self::SignedIn,
        Self::MemberInvited,
        Self::InvitationRevoked,
        Self::MemberJoined,
        Self::RoleChanged,
        Self::MemberDeactivated,
        Self::MemberReactivated,
        Self::ApiKeyCreated,
        Self::ApiKeyRegenerated,
        Self::ApiKeyRevoked,
        Self::WidgetSettingsChanged,
        Self::WidgetSiteKeyRegenerated,
        Self::WidgetIdentitySecretRegenerated,
        Self::WebhookCreated,
        Self::WebhookChanged,
        Self::WebhookDeleted,
        Self::WebhookSecretRotated,
        Self::SettingsChanged,
        Self::EmailSettingsChanged,
        Self::WorkspaceDeletionRequested,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SignedIn => "member.signed_in",
            Self::MemberInvited => "member.invited",
            Self::InvitationRevoked => "invitation.revoked",
            Self::MemberJoined => "member.joined",
            Self::RoleChanged => "member.role_changed",
            Self::MemberDeactivated => "member.deactivated",
            Self::MemberReactivated => "member.reactivated",
            Self::ApiKeyCreated => "api_key.created",
            Self::ApiKeyRegenerated => "api_key.regenerated",
            Self::ApiKeyRevoked => "api_key.revoked",
            Self::WidgetSettingsChanged => "widget.settings_changed",
            Self::WidgetSiteKeyRegenerated => "widget.site_key_regenerated",
            Self::WidgetIdentitySecretRegenerated => "widget.identity_secret_regenerated",
            Self::WebhookCreated => "webhook.created",
            Self::WebhookChanged => "webhook.changed",
            Self::WebhookDeleted => "webhook.deleted",
            Self::WebhookSecretRotated => "webhook.secret_rotated",
            Self::SettingsChanged => "settings.changed",
            Self::EmailSettingsChanged => "email_settings.changed",
            Self::WorkspaceDeletionRequested => "workspace.deletion_requested",
        }
    }
}

/// Who acted: a member, an API key, or an operator's command.
#[derive(Debug, Clone)]
pub enum By {
    User(Uuid),
    ApiKey(Uuid),
    Operator(&'static str),
}

impl From<&Actor> for By {
    fn from(actor: &Actor) -> Self {
        match actor.principal {
            Principal::Member { user_id, .. } => Self::User(user_id),
            Principal::ApiKey { key_id } => Self::ApiKey(key_id),
        }
    }
}

/// One entry, as an action records it.
#[derive(Debug, Clone)]
pub struct Entry {
    pub by: By,
    pub ip: Option<IpAddr>,
    pub action: Action,
    pub target_type: &'static str,
    pub target_id: Option<String>,
    /// `{"field": {"from": ..., "to": ...}}`, or facts of the action; never a secret.
    pub changes: Value,
}

impl Entry {
    /// `actor` did `action` from `ip` to the `target_type` named `target_id`.
    pub fn new(
        by: impl Into<By>,
        ip: Option<ClientIp>,
        action: Action,
        target_type: &'static str,
        target_id: impl ToString,
    ) -> Self {
        Self {
            by: by.into(),
            ip: ip.map(|ClientIp(ip)| ip),
            action,
            target_type,
            target_id: Some(target_id.to_string()),
            changes: Value::Object(serde_json::Map::new()),
        }
    }

    pub fn changes(mut self, changes: Value) -> Self {
        self.changes = changes;
        self
    }
}

/// `{"field": {"from": from, "to": to}}` for each field that changed.
pub fn diff(fields: &[(&str, Value, Value)]) -> Value {
    let mut changes = serde_json::Map::new();
    for (field, from, to) in fields {
        if from != to {
            changes.insert(
                (*field).to_owned(),
                serde_json::json!({ "from": from, "to": to }),
            );
        }
    }
    Value::Object(changes)
}

/// [`diff`], with `about` (facts naming the target, such as an email) under `"target"`.
pub fn diff_of(fields: &[(&str, Value, Value)], about: Value) -> Value {
    let mut changes = diff(fields);
    if let Value::Object(map) = &mut changes {
        map.insert("target".to_owned(), about);
    }
    changes
}

/// Appends `entry` to the workspace's log, in the caller's transaction.
pub async fn record(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    entry: Entry,
) -> sqlx::Result<()> {
    let (kind, id, operator) = match entry.by {
        By::User(id) => ("user", Some(id), None),
        By::ApiKey(id) => ("apiKey", Some(id), None),
        By::Operator(command) => ("operator", None, Some(command)),
    };
    // The actor's name as it is now, from the control plane (read apart from the write: a
    // tenant statement never reads `public`).
    let name: String = match (operator, id) {
        (Some(command), _) => command.to_owned(),
        (None, Some(id)) => {
            sqlx::query_scalar(
                "SELECT coalesce((SELECT full_name FROM public.users WHERE id = $1),
                             (SELECT name FROM public.api_keys WHERE id = $1), '')",
            )
            .bind(id)
            .fetch_one(&mut *conn)
            .await?
        }
        (None, None) => String::new(),
    };
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.audit_log
                (id, actor_kind, actor_id, actor_name, ip, action, target_type, target_id,
                 changes)
         VALUES ($1, $2, $3, $4, $5::inet, $6, $7, $8, $9)",
    ))
    .bind(Uuid::now_v7())
    .bind(kind)
    .bind(id)
    .bind(name)
    .bind(entry.ip.map(|ip| ip.to_string()))
    .bind(entry.action.as_str())
    .bind(entry.target_type)
    .bind(entry.target_id)
    .bind(entry.changes)
    .execute(conn)
    .await?;
    Ok(())
}

/// `GET /api/audit-log` (Owners only: never an API key).
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(routes::list))
        .require(state, Rule::members(Permission::ViewAuditLog))
}
