//! `POST /auth/refresh`: a fresh user token for one still valid.
//!
//! Why: user tokens live one hour (the spec), and the dashboard renews its workspace token
//! with the user token; without a way to renew the user token itself, an agent was signed out
//! in the middle of a shift, two hours after signing in at most. The new token carries the
//! account's current token version, so a password reset still ends every session (its old
//! tokens are refused here, by the extractor, like everywhere else).

use axum::extract::State;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::auth::extract::UserToken;
use crate::error::Result;
use crate::extract::AppJson;
use crate::state::AppState;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Refreshed {
    /// User token (JWT, one hour).
    pub token: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub expires_at: OffsetDateTime,
}

/// A fresh user token for a valid, unrevoked one.
#[utoipa::path(
    post, path = "/auth/refresh", tag = "auth",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A fresh user token", body = Refreshed),
        (status = 401, description = "Missing, invalid, expired or revoked token", body = crate::error::Problem,
            content_type = "application/problem+json"),
        (status = 403, description = "A workspace token (`wrong_token_type`)", body = crate::error::Problem,
            content_type = "application/problem+json"),
    )
)]
pub async fn refresh(
    State(state): State<AppState>,
    token: UserToken,
) -> Result<AppJson<Refreshed>> {
    // The account's current version, read by the extractor: a token cannot carry a version
    // above it into a fresh one.
    let issued = state.jwt.issue_user(token.user_id, token.token_version)?;
    Ok(AppJson(Refreshed {
        token: issued.token,
        expires_at: issued.expires_at,
    }))
}
