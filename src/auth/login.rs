//! `POST /auth/login`: throttled per client IP, constant-shaped whether or not the account
//! exists.

use std::time::Duration;

use axum::extract::State;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::register::AuthResponse;
use crate::auth::users;
use crate::email_address::EmailAddress;
use crate::error::{Error, Result};
use crate::extract::{AppJson, ClientIp};
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;

/// The spec's limit: 10 attempts per 5 minutes per IP.
pub const LOGIN_QUOTA: Quota = Quota {
    limit: 10,
    window: Duration::from_secs(300),
};

#[derive(Deserialize, ToSchema)]
pub struct LoginRequest {
    #[schema(example = "ann@example.com")]
    email: String,
    #[schema(example = "Corr3ctHorse")]
    password: String,
}

const BAD_CREDENTIALS: &str = "invalid email or password";

/// Exchange email and password for a user token.
#[utoipa::path(
    post, path = "/auth/login", tag = "auth",
    request_body = LoginRequest,
    responses(
        (status = 200, description = "Signed in", body = AuthResponse),
        (status = 400, description = "Malformed body", body = crate::error::Problem,
            content_type = "application/problem+json"),
        (status = 401, description = "Invalid credentials", body = crate::error::Problem,
            content_type = "application/problem+json"),
        (status = 415, description = "Body is not application/json", body = crate::error::Problem,
            content_type = "application/problem+json"),
        (status = 429, description = "More than 10 attempts in 5 minutes from this IP; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn login(
    State(state): State<AppState>,
    client: ClientIp,
    AppJson(request): AppJson<LoginRequest>,
) -> Result<AppJson<AuthResponse>> {
    let client_key = client.rate_limit_key();
    if let Decision::Limited { retry_after } = state
        .rate_limiter
        .check(&format!("login:{client_key}"), LOGIN_QUOTA)
        .await
    {
        tracing::warn!(client = %client_key, "login throttled");
        return Err(Error::TooManyRequests { retry_after });
    }

    let found = match EmailAddress::parse(&request.email) {
        Ok(email) => users::find_with_hash(&state.db, &email).await?,
        Err(_) => None,
    };
    let (user, stored_hash) = match found {
        Some((user, hash)) => (Some(user), Some(hash)),
        None => (None, None),
    };
    // Pays for one argon2 verify even when there is no such account.
    let valid = state
        .passwords
        .verify(request.password, stored_hash)
        .await?;
    let user = match user {
        Some(user) if valid => user,
        _ => return Err(Error::Unauthorized(BAD_CREDENTIALS)),
    };

    let issued = state.jwt.issue_user(user.id, user.token_version)?;
    Ok(AppJson(AuthResponse {
        token: issued.token,
        user: user.into(),
    }))
}
