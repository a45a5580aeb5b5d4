//! Email verification: tokens that prove an inbox (see `email_tokens`), their consumption,
//! and the resend endpoint. The worker reads what it sends from
//! `supportdesk_core::outbox::messages::verification`. Tokens live 24 hours, are consumed once (an UPDATE ... WHERE
//! consumed_at IS NULL), and issuing a new one deletes the user's pending ones.
//!
//! Lock order: every transaction here locks the user row before any of the user's
//! verification rows, so verify and resend running at once cannot deadlock.

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, PgPool};
use std::time::Duration;
use supportdesk_core::email_tokens::{EmailTokenKey, Purpose, new_nonce, token_hash};
use supportdesk_core::outbox::{self, OutboxMessage};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::extract::UserToken;
use crate::auth::users;
use crate::error::responses::UserTokenErrors;
use crate::error::{Error, OnConstraint, Result};
use crate::extract::{AppJson, AppQuery};
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;

pub const TOKEN_LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// Resending is cheap for us and costly for the recipient's inbox and our sender reputation.
const RESEND_QUOTA: Quota = Quota {
    limit: 5,
    window: Duration::from_secs(3600),
};

/// Creates a verification for `email`, voids the user's older ones, and queues the email, all
/// in the caller's transaction.
pub async fn issue(
    tx: &mut PgConnection,
    key: &EmailTokenKey,
    user_id: Uuid,
    email: &str,
) -> sqlx::Result<Uuid> {
    let nonce = new_nonce();
    let token = key.token_for(Purpose::EmailVerification, &nonce);
    sqlx::query!(
        "DELETE FROM public.email_verifications WHERE user_id = $1 AND consumed_at IS NULL",
        user_id,
    )
    .execute(&mut *tx)
    .await?;
    let id = Uuid::now_v7();
    sqlx::query!(
        "INSERT INTO public.email_verifications (id, user_id, email, nonce, token_hash, expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))",
        id,
        user_id,
        email,
        &nonce[..],
        token_hash(&token),
        TOKEN_LIFETIME.as_secs_f64(),
    )
    .execute(&mut *tx)
    .await?;
    outbox::enqueue(
        tx,
        &OutboxMessage::VerificationEmail {
            verification_id: id,
        },
    )
    .await?;
    Ok(id)
}

/// What a verification link did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Consumed {
    /// The token verified its address now.
    Verified,
    /// The link was used before and its address is the account's, verified: the same person
    /// opening their link again (or a mail scanner having opened it first).
    AlreadyVerified,
    /// Unknown, expired, or used for an address the account no longer has.
    Invalid,
}

/// Consumes a valid token and marks its address verified. The address of an email change may
/// have been taken by another account since it was asked for: a conflict.
async fn consume(db: &PgPool, token: &str) -> Result<Consumed> {
    let hash = token_hash(token);
    let mut tx = supportdesk_core::db::begin(db, None).await?;
    // The user row first (see the lock order above); no row means no such token.
    let user = sqlx::query_scalar!(
        "SELECT u.id FROM public.users u
           JOIN public.email_verifications v ON v.user_id = u.id
          WHERE v.token_hash = $1
            FOR UPDATE OF u",
        &hash,
    )
    .fetch_optional(&mut *tx)
    .await?;
    if user.is_none() {
        return Ok(Consumed::Invalid);
    }
    let verified = sqlx::query_scalar!(
        "WITH consumed AS (
             UPDATE public.email_verifications SET consumed_at = now()
              WHERE token_hash = $1 AND consumed_at IS NULL AND expires_at > now()
          RETURNING user_id, email)
         UPDATE public.users u
            SET email = c.email, email_verified = true, updated_at = now()
           FROM consumed c
          WHERE u.id = c.user_id
      RETURNING u.id",
        &hash,
    )
    .fetch_optional(&mut *tx)
    .await
    .on_constraint(users::EMAIL_UNIQUE, users::email_taken)?;
    let Some(user_id) = verified else {
        // The row may be gone: a resend that held the account's lock first voided it.
        let already = sqlx::query_scalar!(
            r#"SELECT (v.consumed_at IS NOT NULL AND u.email_verified AND u.email = v.email)
                      AS "already!"
                 FROM public.email_verifications v JOIN public.users u ON u.id = v.user_id
                WHERE v.token_hash = $1"#,
            &hash,
        )
        .fetch_optional(&mut *tx)
        .await?;
        return Ok(if already == Some(true) {
            Consumed::AlreadyVerified
        } else {
            Consumed::Invalid
        });
    };
    // The address may have changed: every workspace's copy of the team follows.
    crate::agents::record::sync_account(&mut tx, user_id).await?;
    tx.commit().await?;
    Ok(Consumed::Verified)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct VerifyQuery {
    /// The token from the verification email.
    token: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MessageResponse {
    pub message: String,
}

/// The answer to a verification link.
#[derive(Debug, Serialize, ToSchema)]
pub struct VerifyResponse {
    pub message: String,
    /// `verified` now, or `already_verified` when the link had been used for this same,
    /// verified address (opened twice).
    #[schema(example = "verified")]
    pub status: VerifyStatus,
}

#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum VerifyStatus {
    Verified,
    AlreadyVerified,
}

/// Confirm an email address with the token from the verification email.
#[utoipa::path(
    get, path = "/auth/verify-email", tag = "auth",
    params(VerifyQuery),
    responses(
        (status = 200, description = "Email verified (or already verified, when the link is opened again)",
            body = VerifyResponse),
        (status = 400, description = "Token missing, invalid or expired, or used for an address the account no longer has",
            body = crate::error::Problem,
            content_type = "application/problem+json"),
    )
)]
pub async fn verify_email(
    State(state): State<AppState>,
    AppQuery(query): AppQuery<VerifyQuery>,
) -> Result<AppJson<VerifyResponse>> {
    let token = query
        .token
        .filter(|t| !t.is_empty() && t.len() <= 128)
        .ok_or_else(|| {
            Error::bad_request(
                "invalid_token",
                "the verification token is missing or malformed",
            )
        })?;
    match consume(&state.db, &token).await? {
        Consumed::Verified => Ok(AppJson(VerifyResponse {
            message: "Your email address is verified.".into(),
            status: VerifyStatus::Verified,
        })),
        Consumed::AlreadyVerified => Ok(AppJson(VerifyResponse {
            message: "Your email address is already verified.".into(),
            status: VerifyStatus::AlreadyVerified,
        })),
        Consumed::Invalid => Err(Error::bad_request(
            "invalid_token",
            "the verification token is invalid, expired or already used; request a new one",
        )),
    }
}

/// Send a new verification email; older tokens stop working.
#[utoipa::path(
    post, path = "/auth/resend-verification", tag = "auth",
    security(("bearer" = [])),
    responses(
        (status = 202, description = "A new verification email is queued", body = MessageResponse),
        UserTokenErrors,
        (status = 409, description = "The email is already verified", body = crate::error::Problem,
            content_type = "application/problem+json"),
        (status = 429, description = "Too many requests", body = crate::error::Problem,
            content_type = "application/problem+json"),
    )
)]
pub async fn resend_verification(
    State(state): State<AppState>,
    UserToken { user_id, .. }: UserToken,
) -> Result<(StatusCode, AppJson<MessageResponse>)> {
    if let Decision::Limited { retry_after } = state
        .rate_limiter
        .check(&format!("resend-verification:{user_id}"), RESEND_QUOTA)
        .await
    {
        return Err(Error::TooManyRequests { retry_after });
    }
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    // Lock the user row so two resends cannot both leave a live token behind.
    let account = sqlx::query!(
        "SELECT email, email_verified FROM public.users WHERE id = $1 FOR UPDATE",
        user_id,
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or(Error::Unauthorized("the account no longer exists"))?;
    if account.email_verified {
        return Err(Error::conflict(
            "already_verified",
            "this email address is already verified",
        ));
    }
    issue(&mut tx, &state.email_tokens, user_id, &account.email).await?;
    tx.commit().await?;
    Ok((
        StatusCode::ACCEPTED,
        AppJson(MessageResponse {
            message: "A new verification email is on its way.".into(),
        }),
    ))
}
