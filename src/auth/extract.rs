//! Credentials from `Authorization: Bearer`, checked before a handler runs.
//!
//! Each extractor names the one kind of token its route accepts. A token of the other kind
//! is a valid credential used in the wrong place: 403, not 401.

use axum::extract::FromRequestParts;
use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use uuid::Uuid;

use crate::credentials::jwt::{Claims, TokenError, TokenKind};
use crate::error::Error;
use crate::state::AppState;

/// The bearer credential (a JWT or an API key), undecoded. Never logged.
pub fn bearer(headers: &HeaderMap) -> Result<&str, Error> {
    let value = headers
        .get(AUTHORIZATION)
        .ok_or(Error::Unauthorized("missing bearer token"))?
        .to_str()
        .map_err(|_| Error::Unauthorized("malformed Authorization header"))?;
    let (scheme, token) = value
        .split_once(' ')
        .ok_or(Error::Unauthorized("malformed Authorization header"))?;
    if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
        return Err(Error::Unauthorized("expected a Bearer token"));
    }
    Ok(token.trim())
}

/// The verified claims of the request's bearer JWT, whatever its kind.
pub fn bearer_claims(parts: &Parts, state: &AppState) -> Result<Claims, Error> {
    decode(state, bearer(&parts.headers)?)
}

/// A JWT's verified claims, whatever its kind.
pub fn decode(state: &AppState, token: &str) -> Result<Claims, Error> {
    state.jwt.decode(token).map_err(|e| match e {
        TokenError::Expired => Error::Unauthorized("the token has expired"),
        TokenError::Invalid => Error::Unauthorized("the token is invalid"),
        TokenError::WrongAudience => Error::forbidden(
            "wrong_token_type",
            "a widget visitor token is accepted on /widget/v1 and the chat hub only",
        ),
    })
}

/// Refuses a token issued before its account's latest password reset (or whose account is
/// gone). Read from PostgreSQL on every call, so it holds on every replica at once; the
/// routes that take user tokens are not the hot path. Workspace tokens on `/api` are checked
/// against the cached membership instead (`authz`). Gives the account's current version.
pub async fn check_not_revoked(state: &AppState, claims: &Claims) -> Result<i32, Error> {
    let current = sqlx::query_scalar!(
        "SELECT token_version FROM public.users WHERE id = $1",
        claims.sub,
    )
    .fetch_optional(&state.db)
    .await?;
    match current {
        None => Err(Error::Unauthorized("the account no longer exists")),
        Some(current) => revoked_unless_current(claims.ver, current).map(|()| current),
    }
}

/// The token's version against the account's: older means revoked.
pub fn revoked_unless_current(token_version: i32, current: i32) -> Result<(), Error> {
    if token_version < current {
        return Err(Error::Unauthorized(
            "the token was revoked by a password reset; sign in again",
        ));
    }
    Ok(())
}

/// A valid, unrevoked user token.
#[derive(Debug, Clone, Copy)]
pub struct UserToken {
    pub user_id: Uuid,
    /// The account's current token version, as read when the token was checked (not the
    /// one the token carries: a restored database may have moved the account's back).
    pub token_version: i32,
}

impl FromRequestParts<AppState> for UserToken {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let claims = bearer_claims(parts, state)?;
        if claims.kind == TokenKind::Workspace {
            return Err(Error::forbidden(
                "wrong_token_type",
                "this endpoint takes a user token, not a workspace token",
            ));
        }
        let token_version = check_not_revoked(state, &claims).await?;
        Ok(Self {
            user_id: claims.sub,
            token_version,
        })
    }
}

/// A valid, unrevoked user or workspace token; the claims.
#[derive(Debug, Clone)]
pub struct AnyToken(pub Claims);

impl FromRequestParts<AppState> for AnyToken {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let claims = bearer_claims(parts, state)?;
        check_not_revoked(state, &claims).await?;
        Ok(Self(claims))
    }
}
