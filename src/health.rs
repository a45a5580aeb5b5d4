//! `GET /healthz` and `GET /metrics`: for probes and scrapers, never behind auth. Metrics are
//! served on a listener of their own (`METRICS_BIND`), apart from the public API. What the
//! probe checks is shared with the worker (`supportdesk_core::health`); the HTTP is here.

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use supportdesk_core::health::{
    HEALTH_CONTENT_TYPE, METRICS_CONTENT_TYPE, database_answers, health_body,
};
use supportdesk_core::telemetry;

use crate::state::AppState;

pub fn health_response(healthy: bool) -> impl IntoResponse {
    let status = if healthy {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        [(header::CONTENT_TYPE, HEALTH_CONTENT_TYPE)],
        health_body(healthy),
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
        [(header::CONTENT_TYPE, METRICS_CONTENT_TYPE)],
        telemetry::prometheus().render(),
    )
}
