//! `POST /invitations/accept`: joining a workspace with the token from an invitation email.
//!
//! A signed-in invitee sends their user token and `{token}`; someone without an account
//! sends `{token, fullName, password}` and the account is created. Either way the invitation
//! is consumed, the membership and the agent profile are created, and the account's email
//! counts as verified (the token proves the inbox), all in one transaction.

use axum::extract::State;
use axum::http::header::AUTHORIZATION;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::{self, Action, Entry};
use crate::auth::REGISTER_QUOTA;
use crate::auth::extract::{bearer, check_not_revoked, decode};
use crate::auth::users::{self, User};
use crate::authz::Role;
use crate::credentials::jwt::TokenKind;
use crate::credentials::password::Password;
use crate::email_address::EmailAddress;
use crate::error::{Error, FieldChecks, OnConstraint, Result};
use crate::events::catalogue::{AgentChange, AgentChanged, DomainEvent};
use crate::events::log::Appended;
use crate::events::log::{self, By};
use crate::extract::{AppJson, ClientIp};
use crate::memberships::MembershipSummary;
use crate::rate_limit::Decision;
use crate::state::AppState;
use crate::workspaces::provision::add_profile;

const FULL_NAME_MAX_CHARS: usize = 200;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AcceptRequest {
    /// The token from the invitation link.
    token: String,
    /// With `password`, and no Authorization header: create the account.
    #[schema(example = "Bea Jones")]
    full_name: Option<String>,
    #[schema(example = "Corr3ctHorse")]
    password: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct Joined {
    pub workspace: MembershipSummary,
}

#[derive(Serialize, ToSchema)]
pub struct JoinedWithAccount {
    /// User token (JWT, one hour) for the new account.
    pub token: String,
    pub user: User,
    pub workspace: MembershipSummary,
}

/// Accept an invitation: as the signed-in invitee, or by creating the account.
#[utoipa::path(
    post, path = "/invitations/accept", tag = "team",
    security((), ("bearer" = [])),
    request_body = AcceptRequest,
    responses(
        (status = 200, description = "Joined with an existing account (user token sent)", body = Joined),
        (status = 201, description = "Account created (email verified) and joined", body = JoinedWithAccount),
        (status = 400, description = "Token invalid, expired, revoked or used; or fullName/password missing or invalid", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 401, description = "Invalid or expired user token", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "A workspace token, or an account whose email is not the invited one", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already a member (or deactivated), or an account with this email exists: sign in and accept", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many sign-ups from this client", body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn accept(
    State(state): State<AppState>,
    client: ClientIp,
    headers: HeaderMap,
    AppJson(request): AppJson<AcceptRequest>,
) -> Result<Response> {
    if headers.contains_key(AUTHORIZATION) {
        let claims = decode(&state, bearer(&headers)?)?;
        if claims.kind != TokenKind::User {
            return Err(Error::forbidden(
                "wrong_token_type",
                "accepting an invitation takes a user token, not a workspace token",
            ));
        }
        check_not_revoked(&state, &claims).await?;
        let workspace = join_as(&state, claims.sub, &request.token, client).await?;
        return Ok((StatusCode::OK, AppJson(Joined { workspace })).into_response());
    }
    let (full_name, password) = new_account(request.full_name, request.password)?;
    if let Decision::Limited { retry_after } = state
        .rate_limiter
        .check(
            &format!("register:{}", client.rate_limit_key()),
            REGISTER_QUOTA,
        )
        .await
    {
        return Err(Error::TooManyRequests { retry_after });
    }
    // Refuse a dead link before paying for a password hash; checked again under lock below.
    open_invitation(&mut *state.db.acquire().await?, &request.token, false).await?;
    let password_hash = state.passwords.hash(&password).await?;

    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    let invitation = open_invitation(&mut tx, &request.token, true).await?;
    let email = EmailAddress::parse(&invitation.email).map_err(|e| anyhow::anyhow!(e))?;
    let user = users::insert(&mut *tx, &email, &full_name, &password_hash)
        .await
        .on_constraint(users::EMAIL_UNIQUE, || {
            Error::conflict(
                "email_taken",
                "an account with this email already exists: sign in, then accept the invitation",
            )
        })?;
    let Membership {
        workspace,
        recorded,
    } = join(&mut tx, &invitation, user.id, client).await?;
    tx.commit().await?;
    state.events.committed(invitation.workspace_id, recorded);
    state
        .memberships
        .changed(user.id, invitation.workspace_id)
        .await;
    let issued = state.jwt.issue_user(user.id, user.token_version)?;
    tracing::info!(user_id = %user.id, workspace_id = %invitation.workspace_id, "invitation accepted with a new account");
    let user = User {
        email_verified: true,
        ..user.into()
    };
    Ok((
        StatusCode::CREATED,
        AppJson(JoinedWithAccount {
            token: issued.token,
            user,
            workspace,
        }),
    )
        .into_response())
}

fn new_account(full_name: Option<String>, password: Option<String>) -> Result<(String, Password)> {
    const REQUIRED: &str = "is required to create an account (or sign in and send your user token)";
    let mut checks = FieldChecks::default();
    let full_name = full_name.map(|n| n.trim().to_owned()).unwrap_or_default();
    if full_name.is_empty() {
        checks.add("fullName", REQUIRED);
    } else if full_name.chars().count() > FULL_NAME_MAX_CHARS {
        checks.add(
            "fullName",
            format!("must be at most {FULL_NAME_MAX_CHARS} characters"),
        );
    }
    let password = match password {
        None => {
            checks.add("password", REQUIRED);
            None
        }
        Some(password) => Password::parse(password)
            .map_err(|messages| {
                for message in messages {
                    checks.add("password", message);
                }
            })
            .ok(),
    };
    match password {
        Some(password) if checks.is_empty() => Ok((full_name, password)),
        _ => Err(checks.failed()),
    }
}

/// An existing account joins, if its email is the invited one.
async fn join_as(
    state: &AppState,
    user_id: Uuid,
    token: &str,
    client: ClientIp,
) -> Result<MembershipSummary> {
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    let invitation = open_invitation(&mut tx, token, true).await?;
    let email = sqlx::query_scalar!("SELECT email FROM public.users WHERE id = $1", user_id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(Error::Unauthorized("the account no longer exists"))?;
    if email != invitation.email {
        return Err(Error::forbidden(
            "invitation_for_another_email",
            "this invitation was sent to another email address; sign in with that account",
        ));
    }
    let Membership {
        workspace,
        recorded,
    } = join(&mut tx, &invitation, user_id, client).await?;
    tx.commit().await?;
    state.events.committed(invitation.workspace_id, recorded);
    state
        .memberships
        .changed(user_id, invitation.workspace_id)
        .await;
    tracing::info!(%user_id, workspace_id = %invitation.workspace_id, "invitation accepted");
    Ok(workspace)
}

#[derive(sqlx::FromRow)]
struct OpenInvitation {
    id: Uuid,
    workspace_id: Uuid,
    email: String,
    role: Role,
    workspace_name: String,
    workspace_slug: String,
    schema_name: String,
}

/// The invitation a token opens, if it is still pending in a live workspace.
async fn open_invitation(
    conn: &mut PgConnection,
    token: &str,
    lock: bool,
) -> Result<OpenInvitation> {
    let hash = super::plausible_token_hash(token)?;
    let lock = if lock { "FOR UPDATE OF i" } else { "" };
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT i.id, i.workspace_id, i.email, i.role, w.name AS workspace_name,
                w.slug AS workspace_slug, w.schema_name
           FROM public.invitations i JOIN public.workspaces w ON w.id = i.workspace_id
          WHERE {open}
          {lock}",
        open = super::OPEN,
    )))
    .bind(hash)
    .fetch_optional(conn)
    .await?
    .ok_or_else(super::invalid_token)
}

/// Membership, profile, consumed invitation and verified email, in the caller's transaction.
async fn join(
    tx: &mut PgConnection,
    invitation: &OpenInvitation,
    user_id: Uuid,
    client: ClientIp,
) -> Result<Membership> {
    let inserted = sqlx::query!(
        "INSERT INTO public.memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)
         ON CONFLICT (workspace_id, user_id) DO NOTHING",
        invitation.workspace_id,
        user_id,
        invitation.role as _,
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if inserted == 0 {
        let status = sqlx::query_scalar!(
            "SELECT status FROM public.memberships WHERE workspace_id = $1 AND user_id = $2",
            invitation.workspace_id,
            user_id,
        )
        .fetch_one(&mut *tx)
        .await?;
        return Err(if status == "active" {
            Error::conflict(
                "already_member",
                "you are already a member of this workspace",
            )
        } else {
            Error::conflict(
                "member_deactivated",
                "your access to this workspace was deactivated; ask an Owner to reactivate you",
            )
        });
    }
    let schema = TenantSchema::parse(&invitation.schema_name).map_err(|e| anyhow::anyhow!(e))?;
    add_profile(&mut *tx, &schema, user_id).await?;
    let agent = crate::agents::record::find_by_user(&mut *tx, &schema, user_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("the new member's profile is missing"))?;
    let entry = Entry::new(
        audit::By::User(user_id),
        Some(client),
        Action::MemberJoined,
        "member",
        user_id,
    )
    .changes(serde_json::json!({
        "invitation": invitation.id, "email": invitation.email, "role": invitation.role,
    }));
    audit::record(&mut *tx, &schema, entry).await?;
    let by = By::Agent(agent.id);
    let joined = DomainEvent::AgentChanged(Box::new(AgentChanged {
        change: AgentChange::Joined,
        agent,
    }));
    let recorded = log::append(&mut *tx, &schema, by, vec![joined]).await?;
    sqlx::query!(
        "UPDATE public.invitations SET accepted_at = now(), accepted_by = $2 WHERE id = $1",
        invitation.id,
        user_id,
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "UPDATE public.users SET email_verified = true, updated_at = now()
          WHERE id = $1 AND NOT email_verified",
        user_id,
    )
    .execute(&mut *tx)
    .await?;
    Ok(Membership {
        workspace: MembershipSummary {
            id: invitation.workspace_id,
            name: invitation.workspace_name.clone(),
            slug: invitation.workspace_slug.clone(),
            role: invitation.role,
        },
        recorded,
    })
}

/// A membership just made, and its `agent.updated` event (to hand on once committed).
struct Membership {
    workspace: MembershipSummary,
    recorded: Appended,
}
