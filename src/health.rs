//! `GET /healthz` and `GET /metrics`: for probes and scrapers, never behind auth. Metrics are
//! served on a listener of their own (`METRICS_BIND`), apart from the public API.

use std::time::Duration;

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use sqlx::PgPool;

use crate::state::AppState;

pub const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);

/// Whether the database answers a trivial query within two seconds.
pub async fn database_answers(db: &PgPool) -> bool {
    matches!(
        tokio::time::timeout(HEALTH_TIMEOUT, sqlx::query("SELECT 1").execute(db)).await,
        Ok(Ok(_))
    )
}

pub fn health_response(healthy: bool) -> impl IntoResponse {
    let (status, body) = if healthy {
        (StatusCode::OK, "Healthy")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "Unhealthy")
    };
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        body,
    )
}

/// Liveness and readiness: `Healthy` when the database answers within 2 s.
#[utoipa::path(
    get, path = "/healthz", tag = "operations",
    responses(
        (status = 200, description = "The database answers", body = String, content_type = "text/plain",
            example = "Healthy"),
        (status = 503, description = "The database does not answer within 2 s", body = String,
            content_type = "text/plain", example = "Unhealthy"),
    )
)]
pub async fn healthz(State(state): State<AppState>) -> impl IntoResponse {
    health_response(database_answers(&state.db).await)
}

/// Prometheus metrics in the text exposition format, on the metrics listener only
/// (`METRICS_BIND`), never on the public port.
pub async fn metrics() -> impl IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        crate::telemetry::prometheus().render(),
    )
}
