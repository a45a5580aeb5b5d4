//! The worker's probe endpoints: `Healthy` only when both PostgreSQL and Redis answer.

use axum::Router;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::routing::get;
use redis::aio::ConnectionManager;
use sqlx::PgPool;
use supportdesk::health::{HEALTH_TIMEOUT, database_answers, health_response};

#[derive(Clone)]
pub struct Probes {
    pub db: PgPool,
    pub redis: ConnectionManager,
}

pub fn router(probes: Probes) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(supportdesk::health::metrics))
        .with_state(probes)
}

async fn redis_answers(redis: &ConnectionManager) -> bool {
    let mut conn = redis.clone();
    let ping = redis::cmd("PING");
    let reply = tokio::time::timeout(HEALTH_TIMEOUT, ping.query_async::<String>(&mut conn)).await;
    matches!(reply, Ok(Ok(_)))
}

async fn healthz(State(probes): State<Probes>) -> impl IntoResponse {
    let (db, redis) = tokio::join!(database_answers(&probes.db), redis_answers(&probes.redis));
    health_response(db && redis)
}
