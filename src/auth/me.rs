//! `GET /auth/me`: who the token belongs to, and their active workspaces.

use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::extract::AnyToken;
use crate::auth::users::{self, User};
use crate::error::{Error, Result};
use crate::extract::AppJson;
use crate::memberships::{MembershipSummary, memberships_of};
use crate::state::AppState;

#[derive(Serialize, ToSchema)]
pub struct MeResponse {
    #[serde(flatten)]
    pub user: User,
    /// Active memberships only.
    pub workspaces: Vec<MembershipSummary>,
}

/// The current user (from a user or a workspace token) and their workspaces.
#[utoipa::path(
    get, path = "/auth/me", tag = "auth",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The current user", body = MeResponse),
        (status = 401, description = "Missing, invalid or expired token", body = crate::error::Problem,
            content_type = "application/problem+json"),
    )
)]
pub async fn me(
    State(state): State<AppState>,
    AnyToken(claims): AnyToken,
) -> Result<AppJson<MeResponse>> {
    let (user, memberships) = tokio::try_join!(
        users::find(&state.db, claims.sub),
        memberships_of(&state.db, claims.sub),
    )?;
    let user = user.ok_or(Error::Unauthorized("the account no longer exists"))?;
    Ok(AppJson(MeResponse {
        user: user.into(),
        workspaces: memberships,
    }))
}
