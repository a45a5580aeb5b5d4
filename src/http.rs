//! The router and the middleware every request passes through.
//!
//! Order, outermost first: request id (set, then echoed back), tracing span with the matched
//! route, metrics, panic catcher, body limit. Unknown paths and wrong methods answer in the
//! same problem+json format as handlers do.
//!
//! Every request is counted and timed in `/metrics`; the log has a line only for what needs
//! a look (refusals, server errors, slow responses). A line for every success was the largest
//! single cost of a tenant read (formatting it and one write per request, ~11 µs of the API's
//! ~77 µs); `RUST_LOG=info,supportdesk::http=debug` brings it back.

use std::any::Any;
use std::time::{Duration, Instant};

use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::http::{HeaderName, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Router, body::Body};
use metrics::{Label, SharedString};
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::sensitive_headers::SetSensitiveRequestHeadersLayer;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::Problem;
use crate::health;
use crate::openapi::ApiDoc;
use crate::state::AppState;

/// Request bodies above this are refused with 413.
pub const BODY_LIMIT: usize = 1024 * 1024;

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Every route of the API, with its OpenAPI description. Everything under `/api` sits
/// behind the authorization layer (`authz`), per route group. Which browser origins may call
/// which routes is `crate::cors`, one layer over the whole router.
pub fn api(state: &AppState) -> OpenApiRouter<AppState> {
    let people = OpenApiRouter::new()
        .merge(crate::auth::router())
        .merge(crate::workspaces::router(state))
        .merge(crate::agents::router(state))
        .merge(crate::invitations::router(state))
        .merge(crate::api_keys::router(state))
        .merge(crate::workspace_settings::router(state))
        .merge(crate::business_hours::router(state))
        .merge(crate::widget::owner_router(state))
        .merge(crate::conversations::router(state))
        .merge(crate::attachments::router(state))
        .merge(crate::email_channel::settings_router(state))
        .merge(crate::contacts::router(state))
        .merge(crate::tickets::router(state))
        .merge(crate::events::router(state))
        .merge(crate::webhooks::router(state))
        .merge(crate::audit::router(state))
        .merge(crate::canned_responses::router(state))
        .merge(crate::labels::router(state))
        .merge(crate::search::router(state))
        .merge(crate::views::router(state))
        .merge(crate::reports::router(state));
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(health::healthz))
        .merge(people)
        .merge(crate::chat::router())
        .merge(crate::widget::visitor_router())
        .merge(crate::attachments::files_router())
        .merge(crate::email_channel::inbound_router())
}

pub fn router(state: AppState) -> Router {
    let (router, mut openapi) = api(&state).split_for_parts();
    crate::openapi::complete(&mut openapi);
    // Rendered once; each request shares the same bytes.
    let openapi_json =
        axum::body::Bytes::from(openapi.to_pretty_json().unwrap_or_else(|_| "{}".into()));

    router
        .route(
            "/openapi.json",
            get(move || {
                let body = openapi_json.clone();
                async move { ([(header::CONTENT_TYPE, "application/json")], body) }
            }),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(crate::cors::ByPath::new(&state))
        .layer(
            ServiceBuilder::new()
                .layer(SetSensitiveRequestHeadersLayer::new([
                    header::AUTHORIZATION,
                ]))
                .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
                .layer(
                    TraceLayer::new_for_http()
                        .make_span_with(request_span)
                        .on_response(log_response),
                )
                .layer(PropagateRequestIdLayer::new(REQUEST_ID))
                .layer(middleware::from_fn(record_metrics))
                .layer(CatchPanicLayer::custom(panic_response))
                .layer(DefaultBodyLimit::max(BODY_LIMIT)),
        )
        .with_state(state)
}

/// The span every log line of a request carries. The path, never the query: the verification
/// token travels in a query string and must not reach the logs.
fn request_span(request: &Request<Body>) -> tracing::Span {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("<unmatched>", MatchedPath::as_str);
    let request_id = request
        .headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-");
    tracing::info_span!(
        "request",
        method = %request.method(),
        route,
        path = request.uri().path(),
        request_id,
    )
}

/// A response slower than this is logged as a warning, whatever its status.
const SLOW_RESPONSE: Duration = Duration::from_secs(1);

/// What a response's log line says, and so at which level it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ResponseLine {
    /// `warn`: slow, whatever the status.
    Slow,
    /// `info`: a 4xx, a client to help or a probe to notice.
    Refused,
    /// `debug`: everything else. A 5xx also gets its own `error` line from the trace layer's
    /// failure hook.
    Routine,
}

impl ResponseLine {
    fn of(status: StatusCode, latency: Duration) -> Self {
        if latency >= SLOW_RESPONSE {
            Self::Slow
        } else if status.is_client_error() {
            Self::Refused
        } else {
            Self::Routine
        }
    }
}

/// The line a response leaves in the log, inside the request's span.
fn log_response<B>(response: &Response<B>, latency: Duration, _span: &tracing::Span) {
    let status = response.status().as_u16();
    let latency_ms = latency.as_secs_f64() * 1000.0;
    match ResponseLine::of(response.status(), latency) {
        ResponseLine::Slow => tracing::warn!(status, latency_ms, "slow response"),
        ResponseLine::Refused => tracing::info!(status, latency_ms, "refused"),
        ResponseLine::Routine => tracing::debug!(status, latency_ms, "response"),
    }
}

/// `/metrics` alone, for the separate listener on `METRICS_BIND`: scrapers reach it inside the
/// cluster, and it stays out of the public router (and so out of the Ingress).
pub fn metrics_router() -> Router {
    Router::new()
        .route("/metrics", get(health::metrics))
        .fallback(not_found)
}

async fn record_metrics(request: Request, next: Next) -> Response {
    let started = Instant::now();
    // Label values without a copy: the matched route is shared with the router, methods and
    // statuses are static strings.
    let route: SharedString = request
        .extensions()
        .get::<MatchedPath>()
        .map_or(SharedString::const_str("<unmatched>"), |p| {
            SharedString::from_owned(p.as_str().to_owned())
        });
    let method = method_label(request.method());
    let response = next.run(request).await;
    let labels = [
        Label::from_static_parts("method", method),
        Label::new("route", route),
        Label::new("status", status_label(response.status())),
    ];
    metrics::counter!("http_requests_total", labels.iter()).increment(1);
    metrics::histogram!("http_request_duration_seconds", labels.iter())
        .record(started.elapsed().as_secs_f64());
    response
}

fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

fn status_label(status: StatusCode) -> SharedString {
    match status.as_u16() {
        200 => SharedString::const_str("200"),
        201 => SharedString::const_str("201"),
        202 => SharedString::const_str("202"),
        204 => SharedString::const_str("204"),
        400 => SharedString::const_str("400"),
        401 => SharedString::const_str("401"),
        403 => SharedString::const_str("403"),
        404 => SharedString::const_str("404"),
        409 => SharedString::const_str("409"),
        429 => SharedString::const_str("429"),
        500 => SharedString::const_str("500"),
        503 => SharedString::const_str("503"),
        other => SharedString::from_owned(other.to_string()),
    }
}

async fn not_found() -> Response {
    Problem::new(StatusCode::NOT_FOUND, "not_found", "no such resource").into_response()
}

async fn method_not_allowed() -> Response {
    Problem::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this resource does not support that method",
    )
    .into_response()
}

fn panic_response(_panic: Box<dyn Any + Send + 'static>) -> Response {
    tracing::error!("a request handler panicked");
    Problem::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal_error",
        "something went wrong on our side; it has been logged",
    )
    .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUICK: Duration = Duration::from_millis(3);

    #[test]
    fn a_quick_success_is_routine() {
        for status in [StatusCode::OK, StatusCode::CREATED, StatusCode::NO_CONTENT] {
            assert_eq!(ResponseLine::of(status, QUICK), ResponseLine::Routine);
        }
    }

    #[test]
    fn a_refusal_is_logged_at_info() {
        for status in [
            StatusCode::BAD_REQUEST,
            StatusCode::UNAUTHORIZED,
            StatusCode::NOT_FOUND,
        ] {
            assert_eq!(ResponseLine::of(status, QUICK), ResponseLine::Refused);
        }
    }

    #[test]
    fn a_server_error_is_left_to_the_failure_hook() {
        assert_eq!(
            ResponseLine::of(StatusCode::INTERNAL_SERVER_ERROR, QUICK),
            ResponseLine::Routine
        );
    }

    #[test]
    fn anything_slow_is_a_warning() {
        for status in [
            StatusCode::OK,
            StatusCode::NOT_FOUND,
            StatusCode::SERVICE_UNAVAILABLE,
        ] {
            assert_eq!(ResponseLine::of(status, SLOW_RESPONSE), ResponseLine::Slow);
        }
        assert_eq!(
            ResponseLine::of(StatusCode::OK, SLOW_RESPONSE - Duration::from_millis(1)),
            ResponseLine::Routine
        );
    }
}
