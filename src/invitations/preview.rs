//! `POST /invitations/preview`: what an invitation link is for, so the join page can say
//! "Olivia Smith invited you to join Acme Support as an Agent" before anyone signs in or
//! makes an account. The token is the credential (in the body, never a URL path), the answer
//! names nothing the invitee will not see on joining, and a dead link answers as accepting it
//! would.

use std::time::Duration;

use axum::extract::State;
use serde::{Deserialize, Serialize};
use sqlx::FromRow;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::authz::Role;
use crate::error::{Error, Result};
use crate::extract::{AppJson, ClientIp};
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;

/// Previews one client may ask for: a person opens a link a few times, a script guessing
/// tokens is stopped long before it matters (tokens are 256-bit).
const PREVIEWS_PER_CLIENT: Quota = Quota {
    limit: 60,
    window: Duration::from_secs(600),
};

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PreviewRequest {
    /// The token from the invitation link.
    token: String,
}

/// An open invitation as its link's holder sees it.
#[derive(Debug, Serialize, ToSchema, FromRow)]
#[serde(rename_all = "camelCase")]
pub struct InvitationPreview {
    #[schema(example = "Acme Support")]
    pub workspace_name: String,
    /// The full name of the Owner who invited; null when their account is gone.
    #[schema(example = "Olivia Smith")]
    pub invited_by: Option<String>,
    /// The invited address: the account that accepts must have it.
    pub email: String,
    pub role: Role,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub expires_at: OffsetDateTime,
}

/// What an invitation link is for: the workspace, who invited, the address and the role.
#[utoipa::path(
    post, path = "/invitations/preview", tag = "team",
    request_body = PreviewRequest,
    responses(
        (status = 200, description = "The open invitation", body = InvitationPreview),
        (status = 400, description = "Token invalid, expired, revoked or used", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many previews from this client", body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn preview(
    State(state): State<AppState>,
    client: ClientIp,
    AppJson(request): AppJson<PreviewRequest>,
) -> Result<AppJson<InvitationPreview>> {
    let key = format!("invitation-preview:{}", client.rate_limit_key());
    if let Decision::Limited { retry_after } =
        state.rate_limiter.check(&key, PREVIEWS_PER_CLIENT).await
    {
        return Err(Error::TooManyRequests { retry_after });
    }
    let hash = super::plausible_token_hash(&request.token)?;
    let preview: Option<InvitationPreview> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT w.name AS workspace_name, u.full_name AS invited_by, i.email, i.role, i.expires_at
           FROM public.invitations i
           JOIN public.workspaces w ON w.id = i.workspace_id
           LEFT JOIN public.users u ON u.id = i.invited_by
          WHERE {open}",
        open = super::OPEN,
    )))
    .bind(hash)
    .fetch_optional(&state.db)
    .await?;
    preview.map(AppJson).ok_or_else(super::invalid_token)
}
