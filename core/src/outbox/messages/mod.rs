//! What the worker reads to carry out an outbox message: for each kind of email, the row it
//! is about, if it is still worth sending, with its token re-derived from the row's nonce.
//!
//! The API issues these rows (`auth::verification`, `auth::password_reset`, `invitations`,
//! each in the transaction of the change that caused it); the reading is here, in the core
//! crate, because the worker needs it and none of the API's web stack.

pub mod invitation;
pub mod password_reset;
pub mod verification;

use crate::email_tokens::{EmailTokenKey, Purpose};

/// An email still worth sending, with its token re-derived from the row's nonce.
#[derive(Debug, Clone)]
pub struct PendingEmail {
    pub email: String,
    pub full_name: String,
    pub token: String,
}

/// Runs `query`, which selects one row of (address, full name, nonce) for the token row `id`
/// if it is still open, and derives that row's token for `purpose`.
async fn pending_email(
    db: impl sqlx::PgExecutor<'_>,
    key: &EmailTokenKey,
    purpose: Purpose,
    query: &'static str,
    id: uuid::Uuid,
) -> sqlx::Result<Option<PendingEmail>> {
    let row: Option<(String, String, Vec<u8>)> =
        sqlx::query_as(query).bind(id).fetch_optional(db).await?;
    Ok(row.map(|(email, full_name, nonce)| PendingEmail {
        email,
        full_name,
        token: key.token_for(purpose, &nonce),
    }))
}
