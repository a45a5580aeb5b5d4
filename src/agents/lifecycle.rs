//! Changing the team: deactivation, reactivation and role changes. Each runs in the tenant
//! transaction under the workspace's team lock, checks again under it that its caller is
//! still an active Owner, and refuses to leave the workspace without an active Owner. The
//! caller commits, then tells the membership cache (every replica).

use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use uuid::Uuid;

use crate::events::catalogue::{AgentChange, AgentChanged, ConversationChange, DomainEvent};

use crate::agents::record::{self, Agent};
use crate::authz::{self, Principal, Role};
use crate::error::{Error, Result};
use crate::tenancy::context::TenantTx;

#[derive(Debug, Clone, Copy)]
pub enum Change {
    Deactivate,
    Reactivate,
    SetRole(Role),
}

/// What a team change did: the agent as it now is, and the events that record it (the
/// change itself, and the conversations and tickets a deactivation sent back to the team);
/// none when nothing changed.
pub struct Applied {
    /// The agent as it was before.
    pub before: Agent,
    pub agent: Agent,
    pub events: Vec<DomainEvent>,
}

/// Applies `change` to agent `agent_id` of the tenant's workspace.
pub async fn apply(tenant: &mut TenantTx, agent_id: Uuid, change: Change) -> Result<Applied> {
    let workspace_id = tenant.actor.workspace_id;
    let principal = tenant.actor.principal.clone();
    let (conn, schema) = tenant.parts();
    lock_team(conn, workspace_id).await?;
    still_an_active_owner(conn, workspace_id, &principal).await?;
    let agent = record::find(&mut *conn, schema, agent_id)
        .await?
        .ok_or(Error::NotFound("agent"))?;
    if agent.role.is_owner() || matches!(change, Change::SetRole(role) if role.is_owner()) {
        tenant.actor.may_touch_owners()?;
    }
    let before = agent.clone();
    let (conn, schema) = tenant.parts();
    let (status, role) = match change {
        Change::Deactivate => (Some("deactivated"), None),
        Change::Reactivate => (Some("active"), None),
        Change::SetRole(role) => (None, Some(role)),
    };
    let changed = sqlx::query!(
        "UPDATE public.memberships
            SET status = coalesce($3, status), role = coalesce($4, role), updated_at = now()
          WHERE workspace_id = $1 AND user_id = $2
            AND (status <> coalesce($3, status) OR role <> coalesce($4, role))",
        workspace_id,
        agent.user_id,
        status,
        role as _,
    )
    .execute(&mut *conn)
    .await?
    .rows_affected()
        == 1;
    if changed {
        record::sync_member(conn, schema, agent.user_id).await?;
    }
    let mut released = Vec::new();
    if changed && matches!(change, Change::Deactivate) {
        released = release_assignments(conn, schema, agent_id).await?;
    }
    if changed {
        ensure_an_owner_remains(conn, workspace_id).await?;
    }
    let agent = record::find(conn, schema, agent_id)
        .await?
        .ok_or_else(|| Error::Internal(anyhow::anyhow!("agent {agent_id} vanished mid-change")))?;
    let mut events = Vec::new();
    if changed {
        events.push(DomainEvent::AgentChanged(Box::new(AgentChanged {
            change: match change {
                Change::Deactivate => AgentChange::Deactivated,
                Change::Reactivate => AgentChange::Reactivated,
                Change::SetRole(_) => AgentChange::Role,
            },
            agent: agent.clone(),
        })));
        events.extend(released);
    }
    Ok(Applied {
        before,
        agent,
        events,
    })
}

/// Refuses a member who is no longer an active Owner. The authorization layer read their
/// role from the membership cache before the team lock was taken: a change committed
/// meanwhile (another Owner demoting or deactivating them) must not let them act with the
/// role they had. Every team change is an Owner's (an API key acts as one).
async fn still_an_active_owner(
    conn: &mut PgConnection,
    workspace_id: Uuid,
    principal: &Principal,
) -> Result<()> {
    let Principal::Member { user_id, .. } = principal else {
        return Ok(());
    };
    let now: Option<(bool, bool)> = sqlx::query_as(
        "SELECT status = 'active', role = 'admin' FROM public.memberships
          WHERE workspace_id = $1 AND user_id = $2",
    )
    .bind(workspace_id)
    .bind(user_id)
    .fetch_optional(conn)
    .await?;
    match now {
        Some((true, true)) => Ok(()),
        Some((true, false)) => Err(authz::owner_only()),
        Some((false, _)) => Err(authz::membership_deactivated()),
        None => Err(authz::not_a_member()),
    }
}

/// Serialises team changes within one workspace, so that two Owners demoting or
/// deactivating each other at once cannot both succeed. `NO KEY UPDATE` leaves rows that
/// merely reference the workspace (new memberships, invitations, outbox) unblocked.
pub async fn lock_team(conn: &mut PgConnection, workspace_id: Uuid) -> sqlx::Result<()> {
    sqlx::query_scalar!(
        "SELECT id FROM public.workspaces WHERE id = $1 FOR NO KEY UPDATE",
        workspace_id,
    )
    .fetch_optional(conn)
    .await?;
    Ok(())
}

async fn ensure_an_owner_remains(conn: &mut PgConnection, workspace_id: Uuid) -> Result<()> {
    let owners = sqlx::query_scalar!(
        r#"SELECT count(*) AS "owners!" FROM public.memberships
            WHERE workspace_id = $1 AND status = 'active' AND role = 'admin'"#,
        workspace_id,
    )
    .fetch_one(conn)
    .await?;
    if owners == 0 {
        return Err(Error::conflict(
            "last_owner",
            "the workspace must keep at least one active Owner; make someone else an Owner first",
        ));
    }
    Ok(())
}

/// Sends a deactivated agent's open work back to the team (the Unassigned tab), in the same
/// transaction as the deactivation. Messages, notes and comments keep their author.
async fn release_assignments(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    agent_id: Uuid,
) -> sqlx::Result<Vec<DomainEvent>> {
    let conversations =
        crate::conversations::record::release_assignee(&mut *conn, schema, agent_id).await?;
    let tickets = crate::tickets::record::release_assignee(conn, schema, agent_id).await?;
    Ok(DomainEvent::moved(
        ConversationChange::Assignee,
        conversations,
        tickets,
    ))
}
