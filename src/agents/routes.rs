//! `/api/agents`: the team list, invitations, deactivation, reactivation and role changes.
//! Owners and the workspace's API keys manage; every member may look.
//!
//! The 401 and 403 of each rule are in `TeamViewErrors` and `TeamManageErrors`; 400, 404
//! and the rest of what every route shares in `crate::openapi`.

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use utoipa::{IntoParams, ToSchema};

use crate::agents::lifecycle::{self, Change};
use crate::agents::record::{self, Agent, Presence, StatusFilter};
use crate::audit::{self, Action, Entry};
use crate::authz::Role;
use crate::authz::{Actor, Principal};
use crate::email_address::EmailAddress;
use crate::error::responses::{TeamManageErrors, TeamViewErrors};
use crate::error::{Error, FieldChecks, Problem, Result};
use crate::events;
use crate::extract::ClientIp;
use crate::extract::{AppJson, AppQuery, PathId};
use crate::invitations::{self, Invitation};
use crate::pagination::PageQuery;
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};
use serde_json::json;

/// Invitation emails go to addresses nobody has verified yet; a bound per workspace keeps a
/// compromised Owner token or key from turning us into a spam relay.
const INVITE_QUOTA: Quota = Quota {
    limit: 100,
    window: Duration::from_secs(3600),
};
/// And per person across all their workspaces, so creating workspaces does not multiply it.
const INVITES_PER_USER_QUOTA: Quota = Quota {
    limit: 200,
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
#[serde(rename_all = "camelCase")]
pub struct AgentList {
    pub agents: Vec<Agent>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// The workspace's agents: active ones unless `status` says otherwise.
#[utoipa::path(
    get, path = "/api/agents", tag = "team",
    security(("bearer" = [])),
    params(ListQuery, PageQuery),
    responses(
        (status = 200, description = "Agents in the order they joined, a page at a time", body = AgentList),
        TeamViewErrors,
    )
)]
pub async fn list(
    State(state): State<AppState>,
    AppQuery(query): AppQuery<ListQuery>,
    AppQuery(page): AppQuery<PageQuery>,
    mut tenant: Tenant,
) -> Result<AppJson<AgentList>> {
    let page = page.parse()?;
    let workspace_id = tenant.actor.workspace_id;
    let (conn, schema) = tenant.parts();
    let (mut agents, next_cursor) =
        record::list(conn, schema, query.status.unwrap_or_default(), &page).await?;
    let online = state.hub.online(workspace_id).await;
    for agent in &mut agents {
        agent.presence = Presence::of(online.contains(&agent.id));
    }
    Ok(AppJson(AgentList {
        agents,
        next_cursor,
    }))
}

/// One agent.
#[utoipa::path(
    get, path = "/api/agents/{id}", tag = "team",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Agent id")),
    responses(
        (status = 200, description = "The agent", body = Agent),
        TeamViewErrors,
    )
)]
pub async fn get(
    State(state): State<AppState>,
    PathId { id, .. }: PathId<Agent>,
    mut tenant: Tenant,
) -> Result<AppJson<Agent>> {
    let workspace_id = tenant.actor.workspace_id;
    let (conn, schema) = tenant.parts();
    let mut agent = record::find(conn, schema, id)
        .await?
        .ok_or(Error::NotFound("agent"))?;
    agent.presence = Presence::of(state.hub.online(workspace_id).await.contains(&agent.id));
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

/// Whom an invitation is for, checked.
struct Invitee {
    email: EmailAddress,
    role: Role,
}

impl TryFrom<InviteRequest> for Invitee {
    type Error = Error;

    fn try_from(request: InviteRequest) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let email = checks.check("email", EmailAddress::parse(&request.email));
        let role = checks.check("role", request.role.parse::<Role>());
        match (email, role) {
            (Some(email), Some(role)) => Ok(Self { email, role }),
            _ => Err(checks.failed()),
        }
    }
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
        TeamManageErrors,
        (status = 409, description = "Already a member (active or deactivated)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many invitations from this workspace or this person", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn invite(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    AppJson(request): AppJson<InviteRequest>,
) -> Result<(StatusCode, AppJson<InvitationCreated>)> {
    let Invitee { email, role } = Invitee::try_from(request)?;
    if role.is_owner() {
        actor.may_touch_owners()?;
    }
    // Invitation emails go from our sender to addresses of the inviter's choosing: only an
    // inviter who has proved an inbox of their own may send them.
    let inviter = inviting_person(&state, &actor).await?;
    for (key, quota) in [
        (format!("invite:{}", actor.workspace_id), INVITE_QUOTA),
        (format!("invite:user:{inviter}"), INVITES_PER_USER_QUOTA),
    ] {
        if let Decision::Limited { retry_after } = state.rate_limiter.check(&key, quota).await {
            return Err(Error::TooManyRequests { retry_after });
        }
    }
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    let member = sqlx::query_scalar!(
        "SELECT m.status FROM public.memberships m JOIN public.users u ON u.id = m.user_id
          WHERE m.workspace_id = $1 AND u.email = $2",
        actor.workspace_id,
        email.as_str(),
    )
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
    let entry = Entry::new(
        &actor,
        Some(client),
        Action::MemberInvited,
        "invitation",
        invitation.id,
    )
    .changes(json!({ "email": email.as_str(), "role": role }));
    audit::record(&mut tx, &actor.schema, entry).await?;
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
        TeamManageErrors,
        (status = 409, description = "It would leave the workspace without an active Owner", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn deactivate(
    State(state): State<AppState>,
    client: ClientIp,
    agent: PathId<Agent>,
    tenant: TenantTx,
) -> Result<AppJson<Agent>> {
    change(&state, client, agent, tenant, Change::Deactivate).await
}

/// Reactivate a deactivated agent: access is restored on the next request.
#[utoipa::path(
    post, path = "/api/agents/{id}/reactivate", tag = "team",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Agent id")),
    responses(
        (status = 200, description = "The agent, active", body = Agent),
        TeamManageErrors,
    )
)]
pub async fn reactivate(
    State(state): State<AppState>,
    client: ClientIp,
    agent: PathId<Agent>,
    tenant: TenantTx,
) -> Result<AppJson<Agent>> {
    change(&state, client, agent, tenant, Change::Reactivate).await
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
        TeamManageErrors,
        (status = 409, description = "It would leave the workspace without an active Owner", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn change_role(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    agent: PathId<Agent>,
    AppJson(request): AppJson<RoleRequest>,
) -> Result<AppJson<Agent>> {
    let role: Role = request
        .role
        .parse()
        .map_err(|e: String| Error::invalid_field("role", e))?;
    let tenant = TenantTx::begin(&state, actor).await?;
    change(&state, client, agent, tenant, Change::SetRole(role)).await
}

/// The person on whose authority an invitation goes out (the member, or the Owner who created
/// the API key), if their email is verified.
async fn inviting_person(state: &AppState, actor: &Actor) -> Result<uuid::Uuid> {
    let row = match actor.principal {
        Principal::Member { user_id, .. } => sqlx::query!(
            "SELECT id, email_verified FROM public.users WHERE id = $1",
            user_id,
        )
        .fetch_optional(&state.db)
        .await?
        .map(|row| (row.id, row.email_verified)),
        Principal::ApiKey { key_id } => sqlx::query!(
            "SELECT u.id, u.email_verified
               FROM public.api_keys k JOIN public.users u ON u.id = k.created_by
              WHERE k.id = $1",
            key_id,
        )
        .fetch_optional(&state.db)
        .await?
        .map(|row| (row.id, row.email_verified)),
    };
    match row {
        Some((user_id, true)) => Ok(user_id),
        _ => Err(Error::forbidden(
            "email_not_verified",
            "verify your email address before inviting anyone (for an API key: the Owner who created it)",
        )),
    }
}

async fn change(
    state: &AppState,
    client: ClientIp,
    PathId { id, .. }: PathId<Agent>,
    mut tenant: TenantTx,
    change: Change,
) -> Result<AppJson<Agent>> {
    let workspace_id = tenant.actor.workspace_id;
    let lifecycle::Applied {
        before,
        agent,
        events,
    } = lifecycle::apply(&mut tenant, id, change).await?;
    if !events.is_empty() {
        let action = match change {
            Change::Deactivate => Action::MemberDeactivated,
            Change::Reactivate => Action::MemberReactivated,
            Change::SetRole(_) => Action::RoleChanged,
        };
        let entry = Entry::new(&tenant.actor, Some(client), action, "member", agent.user_id)
            .changes(audit::diff_of(
                &[
                    ("role", json!(before.role), json!(agent.role)),
                    ("status", json!(before.status), json!(agent.status)),
                ],
                json!({ "email": agent.email, "name": agent.full_name }),
            ));
        let (conn, schema) = tenant.parts();
        audit::record(conn, schema, entry).await?;
    }
    // The commit and the news of it run to their end together, on a task of their own: were
    // the request dropped between the two (its client gone), every replica would keep the
    // old membership (a deactivated agent's access) until its cache entry expired.
    let (task_state, user_id) = (state.clone(), agent.user_id);
    tokio::spawn(async move {
        events::record(&task_state, tenant, events).await?;
        task_state.memberships.changed(user_id, workspace_id).await;
        Ok::<_, Error>(())
    })
    .await
    .map_err(|e| Error::Internal(e.into()))??;
    tracing::info!(agent_id = %agent.id, %workspace_id, ?change, "team changed");
    Ok(AppJson(agent))
}
