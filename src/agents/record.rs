//! The Agent record: a member of the workspace as the team sees them, read from the tenant's
//! `agent_profiles`, which holds the profile and a copy of the account (`public.users`) and
//! the membership (`public.memberships`) kept by [`sync_member`].

use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, PgExecutor};
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::authz::Role;
use crate::extract::Resource;
use crate::pagination::{Page, TimeKey};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum AgentStatus {
    Active,
    Deactivated,
}

/// Online while the agent has a dashboard connection to the chat hub.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Presence {
    Online,
    Offline,
}

#[derive(Debug, Clone, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Agent {
    /// The agent's id in this workspace (conversations and tickets refer to it).
    pub id: Uuid,
    /// The account's id.
    pub user_id: Uuid,
    pub email: String,
    pub full_name: String,
    /// Shown to visitors next to replies.
    pub display_name: String,
    pub avatar_url: Option<String>,
    pub role: Role,
    pub status: AgentStatus,
    #[sqlx(skip)]
    pub presence: Presence,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub joined_at: OffsetDateTime,
}

impl Resource for Agent {
    const NAME: &'static str = "agent";
}

impl Default for Presence {
    /// Until the hub says otherwise.
    fn default() -> Self {
        Self::Offline
    }
}

impl Presence {
    pub fn of(online: bool) -> Self {
        if online { Self::Online } else { Self::Offline }
    }
}

/// Which agents a list shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum StatusFilter {
    #[default]
    Active,
    Deactivated,
    All,
}

/// The columns of an [`Agent`] in `{schema}.agent_profiles`.
pub const COLUMNS: &str =
    "id, user_id, email, full_name, display_name, avatar_url, role, status, joined_at";

/// One page of the workspace's agents, in the order they joined, and the next page's cursor.
/// One statement on the tenant's own table: no join to the control plane, whose rows would
/// tie the plan to tables every tenant shares.
pub async fn list<'e>(
    db: impl PgExecutor<'e>,
    schema: &TenantSchema,
    filter: StatusFilter,
    page: &Page<TimeKey>,
) -> sqlx::Result<(Vec<Agent>, Option<String>)> {
    let status = match filter {
        StatusFilter::Active => Some(AgentStatus::Active),
        StatusFilter::Deactivated => Some(AgentStatus::Deactivated),
        StatusFilter::All => None,
    };
    let (after_at, after_id) = page.after.map(|TimeKey(at, id)| (at, id)).unzip();
    let rows: Vec<Agent> = sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.agent_profiles
          WHERE ($1::text IS NULL OR status = $1)
            AND ($2::timestamptz IS NULL OR (joined_at, id) > ($2, $3))
          ORDER BY joined_at, id
          LIMIT $4"
    )))
    .bind(status)
    .bind(after_at)
    .bind(after_id)
    .bind(page.fetch())
    .fetch_all(db)
    .await?;
    Ok(page.finish(rows, |a| TimeKey(a.joined_at, a.id)))
}

/// One agent of the workspace by agent id.
pub async fn find<'e>(
    db: impl PgExecutor<'e>,
    schema: &TenantSchema,
    agent_id: Uuid,
) -> sqlx::Result<Option<Agent>> {
    sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.agent_profiles WHERE id = $1"
    )))
    .bind(agent_id)
    .fetch_optional(db)
    .await
}

/// The agent of account `user_id`.
pub async fn find_by_user<'e>(
    db: impl PgExecutor<'e>,
    schema: &TenantSchema,
    user_id: Uuid,
) -> sqlx::Result<Option<Agent>> {
    sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.agent_profiles WHERE user_id = $1"
    )))
    .bind(user_id)
    .fetch_optional(db)
    .await
}

/// Copies a member's account (email, name) and membership (role, status, when they joined)
/// into the workspace's `agent_profiles`, creating the profile (named after the account) the
/// first time. Called in the transaction of every change to either, so the tenant's copy
/// never disagrees with the control plane once committed. Nothing to copy without a
/// membership.
///
/// Two statements: the control plane is read first and the tenant's table written with what
/// it said, because a tenant statement never reads `public` (on Citus the two live on
/// different nodes, and a statement over both would ship rows between them). The write is
/// not kept prepared: its text names one tenant and runs once per membership change (every
/// workspace created runs it once), so caching it would only fill the connection's statement
/// cache, whose evictions cost a round trip each, and its backend's memory with plans never
/// used again.
pub async fn sync_member(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    user_id: Uuid,
) -> sqlx::Result<()> {
    let member: Option<(String, String, String, String, OffsetDateTime)> = sqlx::query_as(
        "SELECT u.full_name, u.email, m.role, m.status, m.created_at
           FROM public.memberships m
           JOIN public.users u ON u.id = m.user_id
           JOIN public.workspaces w ON w.id = m.workspace_id
          WHERE w.schema_name = $1 AND m.user_id = $2",
    )
    .bind(schema.name())
    .bind(user_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((full_name, email, role, status, joined_at)) = member else {
        return Ok(());
    };
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.agent_profiles
                (user_id, display_name, email, full_name, role, status, joined_at)
         VALUES ($1, $2, $3, $2, $4, $5, $6)
         ON CONFLICT (user_id) DO UPDATE
            SET email = EXCLUDED.email, full_name = EXCLUDED.full_name, role = EXCLUDED.role,
                status = EXCLUDED.status, joined_at = EXCLUDED.joined_at",
    ))
    .bind(user_id)
    .bind(full_name)
    .bind(email)
    .bind(role)
    .bind(status)
    .bind(joined_at)
    .persistent(false)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// [`sync_member`] in every live workspace of an account, after its email or name changed.
pub async fn sync_account(conn: &mut PgConnection, user_id: Uuid) -> sqlx::Result<()> {
    let schemas = sqlx::query_scalar!(
        "SELECT w.schema_name FROM public.memberships m
           JOIN public.workspaces w ON w.id = m.workspace_id
          WHERE m.user_id = $1 AND w.status = 'active'
          ORDER BY w.id",
        user_id,
    )
    .fetch_all(&mut *conn)
    .await?;
    for name in schemas {
        let schema = TenantSchema::parse(&name).map_err(|e| sqlx::Error::Decode(e.into()))?;
        sync_member(conn, &schema, user_id).await?;
    }
    Ok(())
}
