//! What the health probes check, without the HTTP: whether PostgreSQL and Redis answer in
//! time. The API serves `/healthz` with axum, the worker with a small hyper listener; both
//! ask the same questions here with the same timeout.

use std::time::Duration;

use redis::aio::ConnectionManager;
use sqlx::PgPool;

/// How long a dependency may take to answer before the probe reports `Unhealthy`.
pub const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);

/// Whether the database answers a trivial query within [`HEALTH_TIMEOUT`].
pub async fn database_answers(db: &PgPool) -> bool {
    matches!(
        tokio::time::timeout(HEALTH_TIMEOUT, sqlx::query("SELECT 1").execute(db)).await,
        Ok(Ok(_))
    )
}

/// Whether Redis answers `PING` within [`HEALTH_TIMEOUT`].
pub async fn redis_answers(redis: &ConnectionManager) -> bool {
    let mut conn = redis.clone();
    let ping = redis::cmd("PING");
    let reply = tokio::time::timeout(HEALTH_TIMEOUT, ping.query_async::<String>(&mut conn)).await;
    matches!(reply, Ok(Ok(_)))
}

/// The body and the success of a probe: `Healthy` or `Unhealthy`, as the interface spec
/// and the chart's probes expect.
pub fn health_body(healthy: bool) -> &'static str {
    if healthy { "Healthy" } else { "Unhealthy" }
}

/// The content type of the probe's plain-text body.
pub const HEALTH_CONTENT_TYPE: &str = "text/plain; charset=utf-8";

/// The content type of the Prometheus text exposition format `/metrics` serves.
pub const METRICS_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";
