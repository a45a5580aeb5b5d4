//! Password reset: `POST /auth/forgot-password` emails a link, `POST /auth/reset-password`
//! sets a new password with it.
//!
//! Why it looks the way it does:
//! - The request answers the same `202` whether or not the address has an account, and does
//!   the same work either way: one statement that inserts a reset row and its outbox message
//!   only when the address matches. So neither the answer nor its timing says who is
//!   registered. It is throttled per client and per address, also the same either way.
//! - Tokens are stored hashed, live one hour and are consumed once (see `email_tokens`).
//! - A reset proves the inbox, so it marks the email verified (this is how the real owner of
//!   an address takes back an account somebody else registered with it), and it bumps the
//!   account's token version: every user and workspace token issued before it is refused
//!   from then on, on every replica (`auth::extract`, `authz`, and the membership cache
//!   invalidated everywhere).

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use sqlx::PgExecutor;
use supportdesk_core::email_tokens::{EmailTokenKey, Purpose, new_nonce, token_hash};
use supportdesk_core::outbox::MessageKind;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::verification::MessageResponse;
use crate::credentials::password::Password;
use crate::email_address::EmailAddress;
use crate::error::{Error, Result};
use crate::extract::{AppJson, ClientIp};
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;

pub const TOKEN_LIFETIME: Duration = Duration::from_secs(3600);

/// Reset requests from one client: generous enough for a shared office.
const PER_CLIENT: Quota = Quota {
    limit: 20,
    window: Duration::from_secs(3600),
};
/// Reset emails to one address: enough to retry, too few to flood an inbox.
const PER_ADDRESS: Quota = Quota {
    limit: 5,
    window: Duration::from_secs(3600),
};
/// Attempts to use reset tokens from one client (guessing is hopeless, but cheap to bound).
const RESETS_PER_CLIENT: Quota = Quota {
    limit: 30,
    window: Duration::from_secs(3600),
};

const REQUESTED: &str =
    "If an account exists for this address, an email with a reset link is on its way.";

#[derive(Deserialize, ToSchema)]
pub struct ForgotPasswordRequest {
    #[schema(example = "ann@example.com")]
    email: String,
}

/// Ask for a password-reset link by email. The answer is the same whether or not the
/// address has an account.
#[utoipa::path(
    post, path = "/auth/forgot-password", tag = "auth",
    request_body = ForgotPasswordRequest,
    responses(
        (status = 202, description = "If the address has an account, a reset link is on its way", body = MessageResponse),
        (status = 400, description = "Not an email address", body = crate::error::Problem,
            content_type = "application/problem+json"),
        (status = 429, description = "Too many requests from this client or for this address; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn forgot_password(
    State(state): State<AppState>,
    client: ClientIp,
    AppJson(request): AppJson<ForgotPasswordRequest>,
) -> Result<(StatusCode, AppJson<MessageResponse>)> {
    let email =
        EmailAddress::parse(&request.email).map_err(|e| Error::invalid_field("email", e))?;
    for (key, quota) in [
        (format!("forgot:ip:{}", client.rate_limit_key()), PER_CLIENT),
        (format!("forgot:email:{email}"), PER_ADDRESS),
    ] {
        if let Decision::Limited { retry_after } = state.rate_limiter.check(&key, quota).await {
            return Err(Error::TooManyRequests { retry_after });
        }
    }
    request_reset(&state.db, &state.email_tokens, &email).await?;
    Ok((
        StatusCode::ACCEPTED,
        AppJson(MessageResponse {
            message: REQUESTED.into(),
        }),
    ))
}

/// One statement for known and unknown addresses alike: voids the account's open resets,
/// creates a new one and queues its email, or does nothing.
async fn request_reset(
    db: impl PgExecutor<'_>,
    key: &EmailTokenKey,
    email: &EmailAddress,
) -> sqlx::Result<()> {
    let nonce = new_nonce();
    let token = key.token_for(Purpose::PasswordReset, &nonce);
    let reset_id = Uuid::now_v7();
    sqlx::query!(
        "WITH account AS (
             SELECT id FROM public.users WHERE email = $1 FOR UPDATE),
         voided AS (
             UPDATE public.password_resets SET consumed_at = now()
              WHERE user_id IN (SELECT id FROM account) AND consumed_at IS NULL),
         reset AS (
             INSERT INTO public.password_resets (id, user_id, nonce, token_hash, expires_at)
             SELECT $2, id, $3, $4, now() + make_interval(secs => $5) FROM account
             RETURNING id)
         INSERT INTO public.outbox (id, kind, payload)
         SELECT $6, $7, jsonb_build_object('resetId', reset.id) FROM reset",
        email.as_str(),
        reset_id,
        &nonce[..],
        token_hash(&token),
        TOKEN_LIFETIME.as_secs_f64(),
        Uuid::now_v7(),
        MessageKind::PasswordResetEmail.as_str(),
    )
    .execute(db)
    .await?;
    Ok(())
}

#[derive(Deserialize, ToSchema)]
pub struct ResetPasswordRequest {
    /// The token from the reset link.
    token: String,
    /// The new password: at least 8 characters with an upper-case letter, a lower-case
    /// letter and a digit.
    #[schema(example = "N3wCorrectHorse")]
    password: String,
}

/// Set a new password with the token from a reset email. Marks the email verified and signs
/// the account out everywhere: every token issued before is refused.
#[utoipa::path(
    post, path = "/auth/reset-password", tag = "auth",
    request_body = ResetPasswordRequest,
    responses(
        (status = 200, description = "The password is changed", body = MessageResponse),
        (status = 400, description = "Invalid, expired or used token, or a password breaking the rule", body = crate::error::Problem,
            content_type = "application/problem+json"),
        (status = 429, description = "Too many attempts from this client; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn reset_password(
    State(state): State<AppState>,
    client: ClientIp,
    AppJson(request): AppJson<ResetPasswordRequest>,
) -> Result<AppJson<MessageResponse>> {
    let password = Password::parse(request.password)
        .map_err(|e| Error::Validation([("password", e)].into()))?;
    let token = request.token.trim();
    if token.is_empty() || token.len() > 128 {
        return Err(invalid_token());
    }
    let key = format!("reset:ip:{}", client.rate_limit_key());
    if let Decision::Limited { retry_after } =
        state.rate_limiter.check(&key, RESETS_PER_CLIENT).await
    {
        return Err(Error::TooManyRequests { retry_after });
    }
    let hash = token_hash(token);
    // Refuse a dead link before paying for a password hash; consumed under lock below.
    if open_reset(&state.db, &hash).await?.is_none() {
        return Err(invalid_token());
    }
    let password_hash = state.passwords.hash(&password).await?;

    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    let user_id = sqlx::query_scalar!(
        "WITH consumed AS (
             UPDATE public.password_resets SET consumed_at = now()
              WHERE token_hash = $1 AND consumed_at IS NULL AND expires_at > now()
          RETURNING user_id)
         UPDATE public.users u
            SET password_hash = $2, email_verified = true,
                token_version = token_version + 1, updated_at = now()
           FROM consumed c
          WHERE u.id = c.user_id
      RETURNING u.id",
        &hash,
        &password_hash,
    )
    .fetch_optional(&mut *tx)
    .await?;
    let user_id = user_id.ok_or_else(invalid_token)?;
    // A verification link still in flight has nothing left to prove.
    sqlx::query!(
        "UPDATE public.email_verifications SET consumed_at = now()
          WHERE user_id = $1 AND consumed_at IS NULL",
        user_id,
    )
    .execute(&mut *tx)
    .await?;
    // Committed and told together, whether or not the client waits (see `agents::routes`).
    let memberships = state.memberships.clone();
    tokio::spawn(async move {
        tx.commit().await?;
        memberships.user_changed(user_id).await;
        Ok::<_, Error>(())
    })
    .await
    .map_err(|e| Error::Internal(e.into()))??;
    tracing::info!(%user_id, "password reset; earlier tokens revoked");
    Ok(AppJson(MessageResponse {
        message: "Your password is changed. Sign in with the new one.".into(),
    }))
}

fn invalid_token() -> Error {
    Error::bad_request(
        "invalid_token",
        "the reset link is invalid, expired or already used; ask for a new one",
    )
}

async fn open_reset(db: impl PgExecutor<'_>, hash: &[u8]) -> sqlx::Result<Option<Uuid>> {
    sqlx::query_scalar!(
        "SELECT id FROM public.password_resets
          WHERE token_hash = $1 AND consumed_at IS NULL AND expires_at > now()",
        hash,
    )
    .fetch_optional(db)
    .await
}
