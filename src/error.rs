//! The one error type of the HTTP layer and its single mapping to RFC 9457 problem details.
//!
//! Handlers return `Result<T>`; every failure, from a JSON rejection to a unique-constraint
//! violation, becomes `application/problem+json` here and nowhere else. Internal errors are
//! logged with their whole chain of causes and answered with a generic 500 that leaks nothing.
//!
//! - `field_checks`: checking a request field by field into one validation problem.
//! - `constraint`: `on_constraint`, which names a constraint violation a client can cause at
//!   the statement that can cause it.
//! - `responses`: the OpenAPI response sets of each authorization rule, for annotations.

mod constraint;
mod field_checks;
pub mod responses;

pub use constraint::OnConstraint;
pub use field_checks::FieldChecks;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Field name -> human messages, as in `{"errors": {"password": ["must contain a digit"]}}`.
pub type FieldErrors = BTreeMap<&'static str, Vec<String>>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Input that parsed but broke a rule; answered 400 with the per-field messages.
    #[error("invalid input")]
    Validation(FieldErrors),
    #[error("{detail}")]
    BadRequest { code: &'static str, detail: String },
    /// The body was not acceptable JSON (syntax, shape, content type or size).
    #[error("{detail}")]
    Body {
        status: StatusCode,
        code: &'static str,
        detail: String,
    },
    /// Missing, malformed, expired or revoked credentials.
    #[error("{0}")]
    Unauthorized(&'static str),
    #[error("{detail}")]
    Forbidden { code: &'static str, detail: String },
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("{detail}")]
    Conflict { code: &'static str, detail: String },
    /// What was asked for existed and is no longer kept.
    #[error("{detail}")]
    Gone { code: &'static str, detail: String },
    #[error("too many requests")]
    TooManyRequests { retry_after: Duration },
    #[error("{0}")]
    Unavailable(&'static str),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    /// A database failure of a lookup that concurrent requests shared (a cache load): each
    /// waiter holds the same error, so it is shared rather than owned, and stays the source.
    #[error("a cached lookup failed")]
    CachedLookup(#[from] Arc<sqlx::Error>),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

/// The RFC 9457 body. `code` is a stable machine-readable name; `detail` is for people.
#[derive(Debug, Serialize, ToSchema)]
pub struct Problem {
    #[serde(rename = "type")]
    #[schema(example = "urn:supportdesk:problem:email_taken")]
    pub kind: String,
    #[schema(example = "Conflict")]
    pub title: String,
    #[schema(example = 409)]
    pub status: u16,
    #[schema(example = "an account with this email already exists")]
    pub detail: String,
    #[schema(example = "email_taken")]
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<BTreeMap<String, Vec<String>>>,
}

impl Problem {
    pub fn new(status: StatusCode, code: &str, detail: impl Into<String>) -> Self {
        Self {
            kind: format!("urn:supportdesk:problem:{code}"),
            title: status.canonical_reason().unwrap_or("Error").to_owned(),
            status: status.as_u16(),
            detail: detail.into(),
            code: code.to_owned(),
            errors: None,
        }
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, axum::Json(self)).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        response
    }
}

impl Error {
    pub fn conflict(code: &'static str, detail: impl Into<String>) -> Self {
        Self::Conflict {
            code,
            detail: detail.into(),
        }
    }

    pub fn forbidden(code: &'static str, detail: impl Into<String>) -> Self {
        Self::Forbidden {
            code,
            detail: detail.into(),
        }
    }

    pub fn bad_request(code: &'static str, detail: impl Into<String>) -> Self {
        Self::BadRequest {
            code,
            detail: detail.into(),
        }
    }

    /// One field, one message: the common case of `Validation`.
    pub fn invalid_field(field: &'static str, message: impl Into<String>) -> Self {
        Self::Validation(FieldErrors::from([(field, vec![message.into()])]))
    }

    fn to_problem(&self) -> Problem {
        match self {
            Self::Validation(fields) => {
                let mut problem = Problem::new(
                    StatusCode::BAD_REQUEST,
                    "validation_failed",
                    summarize(fields),
                );
                problem.errors = Some(
                    fields
                        .iter()
                        .map(|(k, v)| ((*k).to_owned(), v.clone()))
                        .collect(),
                );
                problem
            }
            Self::BadRequest { code, detail } => {
                Problem::new(StatusCode::BAD_REQUEST, code, detail.clone())
            }
            Self::Body {
                status,
                code,
                detail,
            } => Problem::new(*status, code, detail.clone()),
            Self::Unauthorized(detail) => {
                Problem::new(StatusCode::UNAUTHORIZED, "unauthorized", *detail)
            }
            Self::Forbidden { code, detail } => {
                Problem::new(StatusCode::FORBIDDEN, code, detail.clone())
            }
            Self::NotFound(what) => Problem::new(
                StatusCode::NOT_FOUND,
                "not_found",
                format!("{what} not found"),
            ),
            Self::Conflict { code, detail } => {
                Problem::new(StatusCode::CONFLICT, code, detail.clone())
            }
            Self::Gone { code, detail } => Problem::new(StatusCode::GONE, code, detail.clone()),
            Self::TooManyRequests { retry_after } => Problem::new(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                format!(
                    "too many attempts; try again in {} seconds",
                    retry_after_secs(*retry_after)
                ),
            ),
            Self::Unavailable(detail) => {
                Problem::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", *detail)
            }
            Self::Database(err) => database_problem(err),
            Self::CachedLookup(err) => database_problem(err),
            Self::Internal(_) => internal_problem(),
        }
    }
}

impl Error {
    /// What a person is told, for answers that are not HTTP responses (the chat hub's
    /// Completion errors): the problem's `detail`, with internals logged and never shown.
    pub fn into_detail(self) -> String {
        let problem = self.to_problem();
        self.log(&problem);
        problem.detail
    }

    fn log(&self, problem: &Problem) {
        match self {
            Self::Database(_) | Self::CachedLookup(_) if problem.status >= 500 => {
                tracing::error!(error = %causes(self), "database error");
            }
            Self::Internal(err) => tracing::error!(error = ?err, "internal error"),
            _ => {}
        }
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let problem = self.to_problem();
        self.log(&problem);
        let mut response = problem.into_response();
        let headers = response.headers_mut();
        match &self {
            Self::Unauthorized(_) => {
                headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            Self::TooManyRequests { retry_after } => {
                headers.insert(
                    header::RETRY_AFTER,
                    HeaderValue::from(retry_after_secs(*retry_after)),
                );
            }
            _ => {}
        }
        response
    }
}

fn internal_problem() -> Problem {
    Problem::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal_error",
        "something went wrong on our side; it has been logged",
    )
}

/// The error and each of its sources, as one line for the log. A source whose text the
/// message before it already quotes (as sqlx's do) is not repeated.
fn causes(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

fn retry_after_secs(duration: Duration) -> u64 {
    duration.as_secs_f64().ceil().max(1.0) as u64
}

fn summarize(fields: &FieldErrors) -> String {
    let parts: Vec<String> = fields
        .iter()
        .map(|(field, messages)| format!("{field} {}", messages.join(", ")))
        .collect();
    if parts.is_empty() {
        "invalid input".into()
    } else {
        parts.join("; ")
    }
}

/// A database failure no statement named (see [`OnConstraint`]): 503 when a retry will
/// likely cure it, else a 500.
fn database_problem(err: &sqlx::Error) -> Problem {
    if is_node_unavailable(err) {
        Problem::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "tenant_unavailable",
            "this workspace's data is unavailable right now; try again shortly",
        )
    } else if is_unavailable(err) {
        Problem::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "the database is unavailable; try again shortly",
        )
    } else {
        internal_problem()
    }
}

/// The database answered, but could not reach the server that holds this workspace's schema:
/// on Citus, the coordinator reports a worker node it cannot connect to, or that went away
/// mid-statement, as a connection failure (SQLSTATE class 08), which PostgreSQL itself never
/// sends about its own session. Only that node's workspaces are affected; the others keep
/// being served.
fn is_node_unavailable(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::Database(db) => db.code().is_some_and(|code| code.starts_with("08")),
        _ => false,
    }
}

/// Failures a retry will likely cure: the database is unreachable or saturated, or it chose
/// this transaction as a deadlock victim or serialization loser (SQLSTATE 40P01, 40001).
fn is_unavailable(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => true,
        sqlx::Error::Database(db) => matches!(db.code().as_deref(), Some("40P01" | "40001")),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_lists_every_field() {
        let mut fields = FieldErrors::new();
        fields.insert("password", vec!["must contain a digit".into()]);
        fields.insert("email", vec!["is not a valid email address".into()]);
        let problem = Error::Validation(fields).to_problem();
        assert_eq!(problem.status, 400);
        assert_eq!(problem.code, "validation_failed");
        assert_eq!(
            problem.detail,
            "email is not a valid email address; password must contain a digit"
        );
        assert_eq!(problem.errors.unwrap().len(), 2);
    }

    #[test]
    fn internal_errors_leak_nothing() {
        let problem =
            Error::Internal(anyhow::anyhow!("relation \"users\" does not exist")).to_problem();
        assert_eq!(problem.status, 500);
        assert!(!problem.detail.contains("relation"));
    }

    #[test]
    fn a_shared_failure_keeps_its_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused by 5432");
        let error = Error::from(Arc::new(sqlx::Error::Io(io)));
        let logged = causes(&error);
        assert!(logged.starts_with("a cached lookup failed: "), "{logged}");
        assert!(logged.contains("refused by 5432"), "{logged}");
        assert_eq!(logged.matches("refused by 5432").count(), 1, "{logged}");
        assert_eq!(error.to_problem().status, 503);
    }

    #[test]
    fn a_database_error_nobody_mapped_is_an_internal_error() {
        let problem = Error::Database(sqlx::Error::RowNotFound).to_problem();
        assert_eq!(problem.status, 500);
    }

    #[test]
    fn retry_after_rounds_up_to_whole_seconds() {
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(29_001)), 30);
    }
}
