//! The invitation email: the open `public.invitations` row it is about, with what the email
//! names (the workspace, the inviter, the role).

use sqlx::PgExecutor;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::email_tokens::{EmailTokenKey, Purpose};
use crate::role::Role;

/// What the worker needs to send an invitation email, if it is still open. Its `Debug` leaves
/// the token out: it is a live credential until used.
#[derive(Clone)]
pub struct PendingInvitation {
    pub email: String,
    pub workspace_name: String,
    pub inviter_name: Option<String>,
    pub role: Role,
    pub token: String,
    pub expires_at: OffsetDateTime,
}

impl std::fmt::Debug for PendingInvitation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingInvitation")
            .field("email", &self.email)
            .field("workspace_name", &self.workspace_name)
            .field("inviter_name", &self.inviter_name)
            .field("role", &self.role)
            .field("token", &"[redacted]")
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

/// The invitation email `invitation_id`, if it is still worth sending (not accepted, revoked
/// or expired, and its workspace still active).
pub async fn pending(
    db: impl PgExecutor<'_>,
    key: &EmailTokenKey,
    invitation_id: Uuid,
) -> sqlx::Result<Option<PendingInvitation>> {
    let row = sqlx::query!(
        r#"SELECT i.email, w.name AS workspace_name, u.full_name AS "inviter_name?", i.role,
                  i.nonce, i.expires_at
             FROM public.invitations i
             JOIN public.workspaces w ON w.id = i.workspace_id
             LEFT JOIN public.users u ON u.id = i.invited_by
            WHERE i.id = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL
              AND i.expires_at > now() AND w.status = 'active'"#,
        invitation_id,
    )
    .fetch_optional(db)
    .await?;
    row.map(|row| {
        Ok(PendingInvitation {
            role: row
                .role
                .parse()
                .map_err(|e: String| sqlx::Error::Decode(e.into()))?,
            token: key.token_for(Purpose::Invitation, &row.nonce),
            email: row.email,
            workspace_name: row.workspace_name,
            inviter_name: row.inviter_name,
            expires_at: row.expires_at,
        })
    })
    .transpose()
}
