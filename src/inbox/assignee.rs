//! Who work may be assigned to and who is acting: agents (`agent_profiles.id`) of the
//! workspace. Shared by conversations and tickets.

use sqlx::{PgConnection, Postgres, QueryBuilder};
use supportdesk_core::tenancy::TenantSchema;
use uuid::Uuid;

use crate::authz::Actor;
use crate::error::{Error, Result};
use crate::events::catalogue::Author;
use crate::tenancy::context::Tenant;

/// The acting member's agent id (authors and `assignee=me` are agents, not accounts).
pub async fn acting_agent(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    actor: &Actor,
) -> Result<Uuid> {
    let user_id = actor.member_id()?;
    sqlx::query_scalar(schema.sql("SELECT id FROM {schema}.agent_profiles WHERE user_id = $1"))
        .bind(user_id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| Error::Internal(anyhow::anyhow!("member {user_id} has no profile")))
}

/// The acting member's agent id and how their messages are signed.
pub async fn acting_author(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    actor: &Actor,
) -> Result<(Uuid, Author)> {
    let user_id = actor.member_id()?;
    let row: Option<(Uuid, String, Option<String>)> = sqlx::query_as(schema.sql(
        "SELECT id, display_name, avatar_url FROM {schema}.agent_profiles WHERE user_id = $1",
    ))
    .bind(user_id)
    .fetch_optional(conn)
    .await?;
    let (id, display_name, avatar_url) =
        row.ok_or_else(|| Error::Internal(anyhow::anyhow!("member {user_id} has no profile")))?;
    Ok((
        id,
        Author {
            display_name,
            avatar_url,
        },
    ))
}

/// Refuses (400 on `field`) an assignee that is not an active agent of the workspace.
///
/// The agent's row stays share-locked until the caller commits. A deactivation writes that row
/// (`agents::record::sync_member`) before it releases the agent's work, so it either waits for
/// this assignment (and then releases it with the rest) or commits first (and this check then
/// fails): work is never left assigned to a deactivated agent.
pub async fn ensure_assignable(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    agent_id: Uuid,
    field: &'static str,
) -> Result<()> {
    let active: Option<i32> = sqlx::query_scalar(schema.sql(
        "SELECT 1 FROM {schema}.agent_profiles
          WHERE id = $1 AND status = 'active'
            FOR SHARE",
    ))
    .bind(agent_id)
    .fetch_optional(conn)
    .await?;
    match active {
        Some(_) => Ok(()),
        None => Err(Error::invalid_field(
            field,
            "must be an active agent of this workspace",
        )),
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AssigneeFilter {
    #[default]
    All,
    Unassigned,
    Agent(Uuid),
}

impl AssigneeFilter {
    /// The `assignee` query parameter (absent is `all`). `me` becomes the caller's agent id
    /// here, before the list query, so the planner sees a constant it can pick the index by.
    pub async fn parse(raw: Option<&str>, tenant: &mut Tenant) -> Result<Self> {
        Ok(match raw {
            None | Some("all") => Self::All,
            Some("unassigned") => Self::Unassigned,
            Some("me") => {
                let actor = tenant.actor.clone();
                let (conn, schema) = tenant.parts();
                Self::Agent(acting_agent(conn, schema, &actor).await?)
            }
            Some(other) => Self::Agent(other.parse().map_err(|_| {
                Error::invalid_field("assignee", "must be me, unassigned, all or an agent id")
            })?),
        })
    }

    /// Appends ` AND <condition on column>` to a list query.
    pub fn push_condition(self, query: &mut QueryBuilder<Postgres>, column: &str) {
        match self {
            Self::All => {}
            Self::Unassigned => {
                query.push(format_args!(" AND {column} IS NULL"));
            }
            Self::Agent(agent_id) => {
                query
                    .push(format_args!(" AND {column} = "))
                    .push_bind(agent_id);
            }
        }
    }
}
