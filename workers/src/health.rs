//! The worker's probe endpoints: `GET /healthz` (`Healthy` only when both PostgreSQL and Redis
//! answer) and `GET /metrics`, on `WORKER_HEALTH_PORT`.
//!
//! Served with hyper directly rather than axum: two fixed routes do not need a router, and the
//! worker then builds none of the API's web stack. The answers are the API's: the same
//! checks, timeouts, bodies and content types (`supportdesk_core::health`); 404 for any
//! other path, 405 (with `Allow`) for a method other than GET or HEAD.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{ALLOW, CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use redis::aio::ConnectionManager;
use sqlx::PgPool;
use supportdesk_core::health::{
    HEALTH_CONTENT_TYPE, METRICS_CONTENT_TYPE, database_answers, health_body, redis_answers,
};
use supportdesk_core::telemetry;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// How long open probe connections may take to finish after the worker stops.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Clone)]
pub struct Probes {
    pub db: PgPool,
    pub redis: ConnectionManager,
}

/// Serves the probes on `listener` until `stop` is cancelled.
pub async fn serve(listener: TcpListener, probes: Probes, stop: CancellationToken) {
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    // A timer, so a client that never finishes its request headers is dropped (after 30 s).
    http.timer(TokioTimer::new());
    loop {
        let (stream, _) = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, say: pause rather than spin.
                    tracing::warn!(%error, "health listener could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let probes = probes.clone();
        let service = service_fn(move |request| {
            let probes = probes.clone();
            async move { Ok::<_, Infallible>(answer(&probes, &request).await) }
        });
        let connection = http.serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that hangs up mid-request is its own problem, not the worker's.
            let _ = connection.await;
        });
    }
    drop(listener);
    if tokio::time::timeout(DRAIN_TIMEOUT, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("probe connections still open after the drain timeout; closing");
    }
}

async fn answer(probes: &Probes, request: &Request<Incoming>) -> Response<Full<Bytes>> {
    let path = request.uri().path();
    if path != "/healthz" && path != "/metrics" {
        return respond(StatusCode::NOT_FOUND, None, Bytes::new());
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut response = respond(StatusCode::METHOD_NOT_ALLOWED, None, Bytes::new());
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET,HEAD"));
        return response;
    }
    if path == "/metrics" {
        let body = telemetry::prometheus().render();
        return respond(StatusCode::OK, Some(METRICS_CONTENT_TYPE), body.into());
    }
    let (db, redis) = tokio::join!(database_answers(&probes.db), redis_answers(&probes.redis));
    let healthy = db && redis;
    let status = if healthy {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    respond(
        status,
        Some(HEALTH_CONTENT_TYPE),
        Bytes::from_static(health_body(healthy).as_bytes()),
    )
}

fn respond(
    status: StatusCode,
    content_type: Option<&'static str>,
    body: Bytes,
) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    if let Some(content_type) = content_type {
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    }
    response
}
