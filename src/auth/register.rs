//! `POST /auth/register`: create an account, queue its verification email, sign it in.

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::users::{self, User};
use crate::auth::verification;
use crate::credentials::password::Password;
use crate::email_address::EmailAddress;
use crate::error::{Error, FieldChecks, OnConstraint, Result};
use crate::extract::{AppJson, ClientIp};
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;

const FULL_NAME_MAX_CHARS: usize = 200;

/// Each registration costs an argon2 hash and an email; and answers whether an address has an
/// account. Bounded per client like login, more loosely (shared offices and NATs sign up).
pub const REGISTER_QUOTA: Quota = Quota {
    limit: 30,
    window: Duration::from_secs(600),
};

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegisterRequest {
    #[schema(example = "ann@example.com")]
    email: String,
    /// At least 8 characters with an upper-case letter, a lower-case letter and a digit.
    #[schema(example = "Corr3ctHorse")]
    password: String,
    #[schema(example = "Ann Smith")]
    full_name: String,
}

/// A user token and the user it identifies.
#[derive(Serialize, ToSchema)]
pub struct AuthResponse {
    /// User token (JWT, valid for one hour).
    pub token: String,
    pub user: User,
}

struct NewUser {
    email: EmailAddress,
    password: Password,
    full_name: String,
}

impl TryFrom<RegisterRequest> for NewUser {
    type Error = Error;

    fn try_from(request: RegisterRequest) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let email = checks.check("email", EmailAddress::parse(&request.email));
        let password = Password::parse(request.password)
            .map_err(|messages| {
                for message in messages {
                    checks.add("password", message);
                }
            })
            .ok();
        let full_name = request.full_name.trim().to_owned();
        if full_name.is_empty() {
            checks.add("fullName", "is required");
        } else if full_name.chars().count() > FULL_NAME_MAX_CHARS {
            checks.add(
                "fullName",
                format!("must be at most {FULL_NAME_MAX_CHARS} characters"),
            );
        }
        match (email, password) {
            (Some(email), Some(password)) if checks.is_empty() => Ok(Self {
                email,
                password,
                full_name,
            }),
            _ => Err(checks.failed()),
        }
    }
}

/// Register a new user. The verification email is queued in the same transaction.
#[utoipa::path(
    post, path = "/auth/register", tag = "auth",
    request_body = RegisterRequest,
    responses(
        (status = 201, description = "Registered and signed in", body = AuthResponse),
        (status = 400, description = "Invalid email, password rule or missing field", body = crate::error::Problem,
            content_type = "application/problem+json"),
        (status = 409, description = "A user with this email exists", body = crate::error::Problem,
            content_type = "application/problem+json"),
        (status = 413, description = "Body over 1 MiB", body = crate::error::Problem,
            content_type = "application/problem+json"),
        (status = 415, description = "Body is not application/json", body = crate::error::Problem,
            content_type = "application/problem+json"),
        (status = 429, description = "Too many registrations from this client; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn register(
    State(state): State<AppState>,
    client: ClientIp,
    AppJson(request): AppJson<RegisterRequest>,
) -> Result<(StatusCode, AppJson<AuthResponse>)> {
    let new = NewUser::try_from(request)?;
    let client_key = client.rate_limit_key();
    if let Decision::Limited { retry_after } = state
        .rate_limiter
        .check(&format!("register:{client_key}"), REGISTER_QUOTA)
        .await
    {
        return Err(Error::TooManyRequests { retry_after });
    }
    let password_hash = state.passwords.hash(&new.password).await?;

    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    let user = users::insert(&mut *tx, &new.email, &new.full_name, &password_hash)
        .await
        .on_constraint(users::EMAIL_UNIQUE, users::email_taken)?;
    verification::issue(&mut tx, &state.email_tokens, user.id, &user.email).await?;
    tx.commit().await?;

    let issued = state.jwt.issue_user(user.id, user.token_version)?;
    tracing::info!(user_id = %user.id, "user registered");
    Ok((
        StatusCode::CREATED,
        AppJson(AuthResponse {
            token: issued.token,
            user: user.into(),
        }),
    ))
}
