//! `POST /auth/change-email`: move the account to a new address. The password is asked
//! again (a stolen token alone cannot take the account over), and nothing changes until the
//! new address is proven: a verification email goes there, and following its link (the
//! usual `GET /auth/verify-email`) switches the account's email.

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::extract::UserToken;
use crate::auth::users;
use crate::auth::verification::{self, MessageResponse};
use crate::email_address::EmailAddress;
use crate::error::{Error, Result};
use crate::extract::AppJson;
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;

/// Each attempt checks a password: bounded per account like login is per client.
const CHANGE_EMAIL_QUOTA: Quota = Quota {
    limit: 5,
    window: Duration::from_secs(3600),
};

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangeEmailRequest {
    #[schema(example = "ann@new.example.com")]
    new_email: String,
    /// The account's current password.
    password: String,
}

/// Ask to change the account's email; it changes once the new address is verified.
#[utoipa::path(
    post, path = "/auth/change-email", tag = "auth",
    security(("bearer" = [])),
    request_body = ChangeEmailRequest,
    responses(
        (status = 202, description = "A verification email is queued to the new address", body = MessageResponse),
        (status = 400, description = "Invalid new email, or the current one", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or invalid user token", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Wrong password, or a workspace token", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "Another account uses that email", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many attempts", body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn change_email(
    State(state): State<AppState>,
    UserToken { user_id, .. }: UserToken,
    AppJson(request): AppJson<ChangeEmailRequest>,
) -> Result<(StatusCode, AppJson<MessageResponse>)> {
    let new_email =
        EmailAddress::parse(&request.new_email).map_err(|e| Error::invalid_field("newEmail", e))?;
    if let Decision::Limited { retry_after } = state
        .rate_limiter
        .check(&format!("change-email:{user_id}"), CHANGE_EMAIL_QUOTA)
        .await
    {
        return Err(Error::TooManyRequests { retry_after });
    }
    let account = sqlx::query!(
        "SELECT email, password_hash FROM public.users WHERE id = $1",
        user_id,
    )
    .fetch_optional(&state.db)
    .await?
    .ok_or(Error::Unauthorized("the account no longer exists"))?;
    if !state
        .passwords
        .verify(request.password, Some(account.password_hash))
        .await?
    {
        return Err(Error::forbidden(
            "wrong_password",
            "the password is not correct",
        ));
    }
    if new_email.as_str() == account.email {
        return Err(Error::invalid_field(
            "newEmail",
            "is already this account's email address",
        ));
    }
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    // The user row first, as everywhere verifications are written (see `verification`).
    sqlx::query_scalar!(
        "SELECT id FROM public.users WHERE id = $1 FOR UPDATE",
        user_id
    )
    .fetch_optional(&mut *tx)
    .await?;
    let taken = sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM public.users WHERE email = $1) AS "taken!""#,
        new_email.as_str(),
    )
    .fetch_one(&mut *tx)
    .await?;
    if taken {
        return Err(users::email_taken());
    }
    verification::issue(&mut tx, &state.email_tokens, user_id, new_email.as_str()).await?;
    tx.commit().await?;
    tracing::info!(%user_id, "email change requested");
    Ok((
        StatusCode::ACCEPTED,
        AppJson(MessageResponse {
            message: "A verification email is on its way to the new address; the account's \
                      email changes when its link is followed."
                .into(),
        }),
    ))
}
