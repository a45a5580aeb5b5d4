//! The chat hub `/hubs/chat`: the ASP.NET Core SignalR protocol (JSON hub protocol 1 over
//! WebSockets, with negotiate), so the official clients connect unchanged
//! (`../shared/design/REALTIME.md`). No maintained Rust SignalR server exists; the part of the
//! protocol a hub of plain methods and events needs is small, and `crate::hub::protocol`
//! holds all of it.
//!
//! - `negotiate`: `POST /hubs/chat/negotiate` and the WebSocket request.
//! - `connection`: one connection's task: handshake, calls, events, pings, close.
//! - `methods`: the methods agents and widget visitors call, each the REST route's action.
//! - `lifecycle`: connections of members who lose access close on every replica.
//!
//! The connections, events, backplane and presence are `crate::hub`'s; this module is the
//! endpoint in front of them.

pub mod connection;
pub mod lifecycle;
pub mod methods;
pub mod negotiate;

use axum::http::{HeaderName, HeaderValue, Method, header};
use axum::routing::get;
use tower_http::cors::{AllowOrigin, CorsLayer};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::cross_origin;
use crate::state::AppState;

/// Negotiate authenticates itself: agents with a workspace token, widget visitors with a
/// visitor token, which no `/api` rule accepts. So does the WebSocket request (connection
/// token or Authorization).
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    let application = &state.settings.application;
    let origins = [
        Some(application.app_url.as_str()),
        application.widget_url.as_deref(),
    ];
    OpenApiRouter::new()
        .routes(cross_origin(routes!(negotiate::negotiate)))
        .layer(negotiate_cors(origins.into_iter().flatten()))
        .route("/hubs/chat", get(negotiate::connect))
}

/// The origin of a configured address (`APP_URL`, `WIDGET_URL`), as browsers send it.
pub fn origin_of(url: &str) -> Option<HeaderValue> {
    url::Url::parse(url)
        .ok()
        .map(|u| u.origin().ascii_serialization())
        .and_then(|o| HeaderValue::from_str(&o).ok())
}

/// Browsers negotiate across origins: the dashboard's (`APP_URL`) and the widget's
/// (`WIDGET_URL`) may, with the headers the official client sends. Credentials are allowed as
/// the client asks for them, though ours travel in `Authorization`, never in cookies.
fn negotiate_cors<'a>(urls: impl Iterator<Item = &'a str>) -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(urls.filter_map(origin_of)))
        .allow_credentials(true)
        .allow_methods([Method::POST])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            HeaderName::from_static("x-requested-with"),
            HeaderName::from_static("x-signalr-user-agent"),
        ])
}
