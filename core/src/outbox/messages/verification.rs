//! The verification email: the open `public.email_verifications` row it is about.

use sqlx::PgExecutor;
use uuid::Uuid;

use super::PendingEmail;
use crate::email_tokens::{EmailTokenKey, Purpose};

/// The verification email `verification_id`, if it is still worth sending (not consumed,
/// replaced or expired).
pub async fn pending(
    db: impl PgExecutor<'_>,
    key: &EmailTokenKey,
    verification_id: Uuid,
) -> sqlx::Result<Option<PendingEmail>> {
    let row = sqlx::query!(
        "SELECT v.email, u.full_name, v.nonce
             FROM public.email_verifications v JOIN public.users u ON u.id = v.user_id
            WHERE v.id = $1 AND v.consumed_at IS NULL AND v.expires_at > now()",
        verification_id,
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|row| {
        PendingEmail::new(
            key,
            Purpose::EmailVerification,
            row.email,
            row.full_name,
            &row.nonce,
        )
    }))
}
