//! The password-reset email: the open `public.password_resets` row it is about.

use sqlx::PgExecutor;
use uuid::Uuid;

use super::PendingEmail;
use crate::email_tokens::{EmailTokenKey, Purpose};

/// The reset email `reset_id`, if it is still worth sending (not used, replaced by a newer
/// request, or expired).
pub async fn pending(
    db: impl PgExecutor<'_>,
    key: &EmailTokenKey,
    reset_id: Uuid,
) -> sqlx::Result<Option<PendingEmail>> {
    let row = sqlx::query!(
        "SELECT u.email, u.full_name, r.nonce
             FROM public.password_resets r JOIN public.users u ON u.id = r.user_id
            WHERE r.id = $1 AND r.consumed_at IS NULL AND r.expires_at > now()",
        reset_id,
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|row| {
        PendingEmail::new(
            key,
            Purpose::PasswordReset,
            row.email,
            row.full_name,
            &row.nonce,
        )
    }))
}
