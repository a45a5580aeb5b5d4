//! The `public.users` table and the User resource as the API shows it.

use serde::Serialize;
use sqlx::PgExecutor;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::email_address::EmailAddress;
use crate::error::Error;

/// The unique constraint on `users.email`: one account per address.
pub const EMAIL_UNIQUE: &str = "users_email_key";

/// The answer when an address already has an account.
pub fn email_taken() -> Error {
    Error::conflict("email_taken", "an account with this email already exists")
}

#[derive(Debug, Clone)]
pub struct UserRow {
    pub id: Uuid,
    pub email: String,
    pub full_name: String,
    pub email_verified: bool,
    pub created_at: OffsetDateTime,
    /// Tokens carry it; a password reset bumps it (see `auth::extract`).
    pub token_version: i32,
}

/// The User resource (spec: id, email, fullName, emailVerified, createdAt).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub id: Uuid,
    pub email: String,
    pub full_name: String,
    pub email_verified: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

impl From<UserRow> for User {
    fn from(row: UserRow) -> Self {
        Self {
            id: row.id,
            email: row.email,
            full_name: row.full_name,
            email_verified: row.email_verified,
            created_at: row.created_at,
        }
    }
}

/// A new account. Violates [`EMAIL_UNIQUE`] when the address has one: the caller names the
/// conflict, in its own words.
pub async fn insert(
    db: impl PgExecutor<'_>,
    email: &EmailAddress,
    full_name: &str,
    password_hash: &str,
) -> sqlx::Result<UserRow> {
    sqlx::query_as!(
        UserRow,
        "INSERT INTO public.users (id, email, full_name, password_hash)
         VALUES ($1, $2, $3, $4)
         RETURNING id, email, full_name, email_verified, created_at, token_version",
        Uuid::now_v7(),
        email.as_str(),
        full_name,
        password_hash,
    )
    .fetch_one(db)
    .await
}

pub async fn find(db: impl PgExecutor<'_>, id: Uuid) -> sqlx::Result<Option<UserRow>> {
    sqlx::query_as!(
        UserRow,
        "SELECT id, email, full_name, email_verified, created_at, token_version
           FROM public.users WHERE id = $1",
        id,
    )
    .fetch_optional(db)
    .await
}

/// The user and their password hash, for login.
pub async fn find_with_hash(
    db: impl PgExecutor<'_>,
    email: &EmailAddress,
) -> sqlx::Result<Option<(UserRow, String)>> {
    let row = sqlx::query!(
        "SELECT id, email, full_name, email_verified, created_at, token_version, password_hash
           FROM public.users WHERE email = $1",
        email.as_str(),
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|r| {
        let user = UserRow {
            id: r.id,
            email: r.email,
            full_name: r.full_name,
            email_verified: r.email_verified,
            created_at: r.created_at,
            token_version: r.token_version,
        };
        (user, r.password_hash)
    }))
}
