//! Invitations to join a workspace: the token, its row and its email.
//!
//! Tokens are derived like verification tokens (see `email_tokens`): the row keeps a nonce and
//! a hash, the worker re-derives the token for the email
//! (`supportdesk_core::outbox::messages::invitation`). An invitation lives seven days and
//! re-inviting the same address to the same workspace replaces the open one.
//!
//! - `POST /api/agents/invite` (in `agents`) issues them;
//! - `routes`: `GET /api/invitations`, `DELETE /api/invitations/{id}` (Owners);
//! - `accept`: `POST /invitations/accept`, by a signed-in invitee or by creating the account;
//! - `preview`: `POST /invitations/preview`, what a link is for, for the join page.

mod accept;
mod preview;
mod routes;

use std::time::Duration;

use serde::Serialize;
use sqlx::PgConnection;
use supportdesk_core::email_tokens::{EmailTokenKey, Purpose, new_nonce, token_hash};
use supportdesk_core::outbox::{self, OutboxMessage};
use time::OffsetDateTime;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::authz::{Permission, RequireExt, Role, Rule};
use crate::email_address::EmailAddress;
use crate::extract::Resource;
use crate::state::AppState;

pub const LIFETIME: Duration = Duration::from_secs(7 * 24 * 3600);

/// What makes invitation `i` (of workspace `w`) open, for the token hash `$1`: pending, not
/// expired, in a live workspace. Accepting and previewing read it the same way.
const OPEN: &str = "i.token_hash = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL
                    AND i.expires_at > now() AND w.status = 'active'";

/// The answer to a token that opens nothing (or could not be one).
fn invalid_token() -> crate::error::Error {
    crate::error::Error::bad_request(
        "invalid_token",
        "the invitation is invalid, expired, revoked or already used; ask for a new one",
    )
}

/// A token's hash, if the text could be a token at all.
fn plausible_token_hash(token: &str) -> Result<Vec<u8>, crate::error::Error> {
    if token.is_empty() || token.len() > 128 {
        return Err(invalid_token());
    }
    Ok(token_hash(token))
}

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::list))
                .routes(routes!(routes::revoke))
                .require(state, Rule::members(Permission::InviteAgents)),
        )
        .routes(routes!(accept::accept))
        .routes(routes!(preview::preview))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum InvitationStatus {
    Pending,
    /// Not accepted within seven days; invite again to send a new link.
    Expired,
}

/// An open invitation as Owners see it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Invitation {
    pub id: Uuid,
    pub email: String,
    pub role: Role,
    pub status: InvitationStatus,
    /// The member who sent it (null when sent with an API key).
    pub invited_by: Option<Uuid>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub expires_at: OffsetDateTime,
}

impl Resource for Invitation {
    const NAME: &'static str = "invitation";
}

/// Creates an invitation (revoking any open one for the same address and workspace) and
/// queues its email, in the caller's transaction.
pub async fn issue(
    tx: &mut PgConnection,
    key: &EmailTokenKey,
    workspace_id: Uuid,
    email: &EmailAddress,
    role: Role,
    invited_by: Option<Uuid>,
) -> sqlx::Result<Invitation> {
    sqlx::query!(
        "UPDATE public.invitations SET revoked_at = now()
          WHERE workspace_id = $1 AND email = $2 AND accepted_at IS NULL AND revoked_at IS NULL",
        workspace_id,
        email.as_str(),
    )
    .execute(&mut *tx)
    .await?;
    let nonce = new_nonce();
    let token = key.token_for(Purpose::Invitation, &nonce);
    let id = Uuid::now_v7();
    let inserted = sqlx::query!(
        "INSERT INTO public.invitations
             (id, workspace_id, email, role, invited_by, nonce, token_hash, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))
         RETURNING created_at, expires_at",
        id,
        workspace_id,
        email.as_str(),
        role.as_str(),
        invited_by,
        &nonce[..],
        token_hash(&token),
        LIFETIME.as_secs_f64(),
    )
    .fetch_one(&mut *tx)
    .await?;
    outbox::enqueue(tx, &OutboxMessage::InvitationEmail { invitation_id: id }).await?;
    Ok(Invitation {
        id,
        email: email.as_str().to_owned(),
        role,
        status: InvitationStatus::Pending,
        invited_by,
        created_at: inserted.created_at,
        expires_at: inserted.expires_at,
    })
}
