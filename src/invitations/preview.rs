//! `POST /invitations/preview`: what an invitation link is for, before anyone acts on it.
//!
//! The join page says "Olivia Smith invited you to join Acme Support as Agent" before the
//! invitee creates an account or accepts with one. No authentication: the token is the secret
//! (the link in the email), so whoever holds it may read what the email already told them, and
//! nothing more. It travels in the body, not the URL, so access logs never hold it. A token
//! that would not be accepted (unknown, expired, revoked, used, or its workspace gone) is
//! refused exactly as `accept` refuses it; attempts are bounded per client like the other
//! token endpoints (guessing is hopeless, but cheap to bound).

use std::time::Duration;

use axum::extract::State;
use serde::{Deserialize, Serialize};
use supportdesk_core::email_tokens::token_hash;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::authz::Role;
use crate::error::{Error, Result};
use crate::extract::{AppJson, ClientIp};
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;

use super::accept::invalid_token;

/// Previews from one client: a person opens their link a few times, not hundreds.
const PREVIEWS_PER_CLIENT: Quota = Quota {
    limit: 60,
    window: Duration::from_secs(3600),
};

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PreviewRequest {
    /// The token from the invitation link.
    token: String,
}

/// Who sent the invitation, as the invitation email names them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Inviter {
    #[schema(example = "Olivia Smith")]
    pub display_name: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitationPreview {
    #[schema(example = "Acme Support")]
    pub workspace_name: String,
    /// Null when the invitation was sent with an API key, or its sender's account is gone.
    #[schema(required = true)]
    pub invited_by: Option<Inviter>,
    /// The invited address: the account that accepts must have it.
    pub email: String,
    pub role: Role,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub expires_at: OffsetDateTime,
}

#[derive(sqlx::FromRow)]
struct PreviewRow {
    workspace_name: String,
    inviter_name: Option<String>,
    email: String,
    role: Role,
    expires_at: OffsetDateTime,
}

impl From<PreviewRow> for InvitationPreview {
    fn from(row: PreviewRow) -> Self {
        Self {
            workspace_name: row.workspace_name,
            invited_by: row
                .inviter_name
                .map(|display_name| Inviter { display_name }),
            email: row.email,
            role: row.role,
            expires_at: row.expires_at,
        }
    }
}

/// The workspace, the inviter, the address and the role an invitation link is for.
#[utoipa::path(
    post, path = "/invitations/preview", tag = "team",
    request_body = PreviewRequest,
    responses(
        (status = 200, description = "The invitation the token opens", body = InvitationPreview),
        (status = 400, description = "`invalid_token`: invalid, expired, revoked or already used (as accept answers)", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many previews from this client; see Retry-After", body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn preview(
    State(state): State<AppState>,
    client: ClientIp,
    AppJson(request): AppJson<PreviewRequest>,
) -> Result<AppJson<InvitationPreview>> {
    let key = format!("invitation-preview:ip:{}", client.rate_limit_key());
    if let Decision::Limited { retry_after } =
        state.rate_limiter.check(&key, PREVIEWS_PER_CLIENT).await
    {
        return Err(Error::TooManyRequests { retry_after });
    }
    let token = request.token.trim();
    if token.is_empty() || token.len() > 128 {
        return Err(invalid_token());
    }
    // The same conditions as `accept::open_invitation`: what previews is what can be accepted.
    let row: PreviewRow = sqlx::query_as(
        "SELECT w.name AS workspace_name, u.full_name AS inviter_name, i.email, i.role,
                i.expires_at
           FROM public.invitations i
           JOIN public.workspaces w ON w.id = i.workspace_id
           LEFT JOIN public.users u ON u.id = i.invited_by
          WHERE i.token_hash = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL
            AND i.expires_at > now() AND w.status = 'active'",
    )
    .bind(token_hash(token))
    .fetch_optional(&state.db)
    .await?
    .ok_or_else(invalid_token)?;
    Ok(AppJson(row.into()))
}
