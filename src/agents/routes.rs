//! `/api/agents`: the team list, invitations, deactivation, reactivation and role changes.
//! Owners and the workspace's API keys manage; every member may look.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use utoipa::{IntoParams, ToSchema};

use crate::agents::lifecycle::{self, Change};
use crate::agents::record::{self, Agent, StatusFilter};
use crate::authz::Actor;
use crate::email_address::EmailAddress;
use crate::error::{Error, FieldErrors, Result};
use crate::extract::{AppJson, AppQuery, path_id};
use crate::invitations::{self, Invitation};
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;
use crate::tenancy::context::TenantTx;
use crate::workspaces::Role;

/// Invitation emails go to addresses nobody has verified yet; a bound per workspace keeps a
/// compromised Owner token or key from turning us into a spam relay.
const INVITE_QUOTA: Quota = Quota {
    limit: 100,
    window: Duration::from_secs(3600),
};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// `active` (default), `deactivated` or `all`.
    #[param(inline)]
    status: Option<StatusFilter>,
}

#[derive(Serialize, ToSchema)]
pub struct AgentList {
    pub agents: Vec<Agent>,
}

/// The workspace's agents: active ones unless `status` says otherwise.
#[utoipa::path(
    get, path = "/api/agents", tag = "team",
    security(("bearer" = [])),
    params(ListQuery),
    responses(
        (status = 200, description = "Agents in the order they joined", body = AgentList),
        (status = 400, description = "Unknown status filter", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing, invalid or expired credentials", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "A user token, or a deactivated membership", body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list(
    AppQuery(query): AppQuery<ListQuery>,
    mut tenant: TenantTx,
) -> Result<AppJson<AgentList>> {
    let workspace_id = tenant.actor.workspace_id;
    let agents = record::list(
        tenant.conn(),
        workspace_id,
        query.status.unwrap_or_default(),
    )
    .await?;
    Ok(AppJson(AgentList { agents }))
}

/// One agent.
#[utoipa::path(
    get, path = "/api/agents/{id}", tag = "team",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Agent id")),
    responses(
        (status = 200, description = "The agent", body = Agent),
        (status = 401, description = "Missing, invalid or expired credentials", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "A user token, or a deactivated membership", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such agent in this workspace", body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get(Path(id): Path<String>, mut tenant: TenantTx) -> Result<AppJson<Agent>> {
    let id = path_id(&id, "agent")?;
    let workspace_id = tenant.actor.workspace_id;
    let agent = record::find(tenant.conn(), workspace_id, id)
        .await?
        .ok_or(Error::NotFound("agent"))?;
    Ok(AppJson(agent))
}

#[derive(Deserialize, ToSchema)]
pub struct InviteRequest {
    #[schema(example = "bea@example.com")]
    email: String,
    /// `agent` or `admin` (Owner).
    #[schema(example = "agent")]
    role: String,
}

#[derive(Serialize, ToSchema)]
pub struct InvitationCreated {
    pub invitation: Invitation,
}

/// Invite someone by email; the invitation email (a join link, valid 7 days) is queued in
/// the same transaction. Re-inviting a pending address replaces its invitation.
#[utoipa::path(
    post, path = "/api/agents/invite", tag = "team",
    security(("bearer" = [])),
    request_body = InviteRequest,
    responses(
        (status = 201, description = "Invitation created and its email queued", body = InvitationCreated),
        (status = 400, description = "Invalid email or role", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing, invalid or expired credentials", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an Owner, a user token, or a deactivated membership", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already a member (active or deactivated)", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many invitations from this workspace", body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn invite(
    State(state): State<AppState>,
    actor: Actor,
    AppJson(request): AppJson<InviteRequest>,
) -> Result<(StatusCode, AppJson<InvitationCreated>)> {
    let mut errors = FieldErrors::new();
    let email = EmailAddress::parse(&request.email)
        .map_err(|e| errors.entry("email").or_default().push(e))
        .ok();
    let role = request
        .role
        .parse::<Role>()
        .map_err(|e| errors.entry("role").or_default().push(e))
        .ok();
    let (Some(email), Some(role)) = (email, role) else {
        return Err(Error::Validation(errors));
    };
    if let Decision::Limited { retry_after } = state
        .rate_limiter
        .check(&format!("invite:{}", actor.workspace_id), INVITE_QUOTA)
        .await
    {
        return Err(Error::TooManyRequests { retry_after });
    }
    let mut tx = crate::db::begin(&state.db, None).await?;
    let member: Option<String> = sqlx::query_scalar(
        "SELECT m.status FROM public.memberships m JOIN public.users u ON u.id = m.user_id
          WHERE m.workspace_id = $1 AND u.email = $2",
    )
    .bind(actor.workspace_id)
    .bind(email.as_str())
    .fetch_optional(&mut *tx)
    .await?;
    match member.as_deref() {
        Some("active") => {
            return Err(Error::conflict(
                "already_member",
                "this person is already a member of the workspace",
            ));
        }
        Some(_) => {
            return Err(Error::conflict(
                "member_deactivated",
                "this person is a deactivated member: reactivate them instead",
            ));
        }
        None => {}
    }
    let invitation = invitations::issue(
        &mut tx,
        &state.email_tokens,
        actor.workspace_id,
        &email,
        role,
        actor.user_id(),
    )
    .await?;
    tx.commit().await?;
    tracing::info!(invitation_id = %invitation.id, workspace_id = %actor.workspace_id, "invitation sent");
    Ok((
        StatusCode::CREATED,
        AppJson(InvitationCreated { invitation }),
    ))
}

/// Deactivate an agent: from now on, on every replica, they can neither use nor obtain a
/// workspace token here; their open work becomes unassigned; their history stays.
#[utoipa::path(
    post, path = "/api/agents/{id}/deactivate", tag = "team",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Agent id")),
    responses(
        (status = 200, description = "The agent, deactivated", body = Agent),
        (status = 401, description = "Missing, invalid or expired credentials", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an Owner, a user token, or a deactivated membership", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such agent in this workspace", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "It would leave the workspace without an active Owner", body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn deactivate(
    State(state): State<AppState>,
    Path(id): Path<String>,
    tenant: TenantTx,
) -> Result<AppJson<Agent>> {
    change(&state, &id, tenant, Change::Deactivate).await
}

/// Reactivate a deactivated agent: access is restored on the next request.
#[utoipa::path(
    post, path = "/api/agents/{id}/reactivate", tag = "team",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Agent id")),
    responses(
        (status = 200, description = "The agent, active", body = Agent),
        (status = 401, description = "Missing, invalid or expired credentials", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an Owner, a user token, or a deactivated membership", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such agent in this workspace", body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn reactivate(
    State(state): State<AppState>,
    Path(id): Path<String>,
    tenant: TenantTx,
) -> Result<AppJson<Agent>> {
    change(&state, &id, tenant, Change::Reactivate).await
}

#[derive(Deserialize, ToSchema)]
pub struct RoleRequest {
    /// `admin` (Owner) or `agent`.
    #[schema(example = "admin")]
    role: String,
}

/// Change an agent's role; it applies from their next request.
#[utoipa::path(
    put, path = "/api/agents/{id}/role", tag = "team",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Agent id")),
    request_body = RoleRequest,
    responses(
        (status = 200, description = "The agent with the new role", body = Agent),
        (status = 400, description = "Unknown role", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing, invalid or expired credentials", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an Owner, a user token, or a deactivated membership", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such agent in this workspace", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "It would leave the workspace without an active Owner", body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn change_role(
    State(state): State<AppState>,
    actor: Actor,
    Path(id): Path<String>,
    AppJson(request): AppJson<RoleRequest>,
) -> Result<AppJson<Agent>> {
    let role: Role = request
        .role
        .parse()
        .map_err(|e: String| Error::invalid_field("role", e))?;
    let tenant = TenantTx::begin(&state, actor).await?;
    change(&state, &id, tenant, Change::SetRole(role)).await
}

async fn change(
    state: &AppState,
    id: &str,
    mut tenant: TenantTx,
    change: Change,
) -> Result<AppJson<Agent>> {
    let id = path_id(id, "agent")?;
    let workspace_id = tenant.actor.workspace_id;
    let agent = lifecycle::apply(&mut tenant, id, change).await?;
    tenant.commit().await?;
    state.memberships.changed(agent.user_id, workspace_id).await;
    tracing::info!(agent_id = %agent.id, %workspace_id, ?change, "team changed");
    Ok(AppJson(agent))
}
