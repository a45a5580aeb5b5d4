//! The Agent record: a member of the workspace as the team sees them, joined from the
//! account (`public.users`), the membership (`public.memberships`) and the profile in the
//! tenant schema (`agent_profiles`).

use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::pagination::{Page, TimeKey};
use crate::workspaces::Role;

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

impl Default for Presence {
    /// No chat-hub connection is known: the hub is not served yet, so nobody is online.
    fn default() -> Self {
        Self::Offline
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

/// The columns of an [`Agent`], from `p` (profiles), `m` (memberships) and `u` (users).
pub const COLUMNS: &str = "p.id, p.user_id, u.email, u.full_name, p.display_name, p.avatar_url,
                           m.role, m.status, m.created_at AS joined_at";

/// The join behind [`COLUMNS`]; `$1` is the workspace id.
pub const FROM: &str = "FROM agent_profiles p
                        JOIN public.memberships m ON m.user_id = p.user_id AND m.workspace_id = $1
                        JOIN public.users u ON u.id = p.user_id";

/// One page of the workspace's agents, in the order they joined, and the next page's cursor.
/// `conn` is the tenant's transaction.
pub async fn list(
    conn: &mut PgConnection,
    workspace_id: Uuid,
    filter: StatusFilter,
    page: &Page<TimeKey>,
) -> sqlx::Result<(Vec<Agent>, Option<String>)> {
    let status = match filter {
        StatusFilter::Active => Some(AgentStatus::Active),
        StatusFilter::Deactivated => Some(AgentStatus::Deactivated),
        StatusFilter::All => None,
    };
    let (after_at, after_id) = page.after.map(|TimeKey(at, id)| (at, id)).unzip();
    let rows: Vec<Agent> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} {FROM}
          WHERE ($2::text IS NULL OR m.status = $2)
            AND ($3::timestamptz IS NULL OR (m.created_at, p.id) > ($3, $4))
          ORDER BY m.created_at, p.id
          LIMIT $5"
    )))
    .bind(workspace_id)
    .bind(status)
    .bind(after_at)
    .bind(after_id)
    .bind(page.fetch())
    .fetch_all(conn)
    .await?;
    Ok(page.finish(rows, |a| TimeKey(a.joined_at, a.id)))
}

/// One agent of the workspace by agent id.
pub async fn find(
    conn: &mut PgConnection,
    workspace_id: Uuid,
    agent_id: Uuid,
) -> sqlx::Result<Option<Agent>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} {FROM} WHERE p.id = $2"
    )))
    .bind(workspace_id)
    .bind(agent_id)
    .fetch_optional(conn)
    .await
}
