//! The chat hub `/hubs/chat`: the ASP.NET Core SignalR protocol (JSON hub protocol 1 over
//! WebSockets, with negotiate), so the official clients connect unchanged
//! (`../shared/design/REALTIME.md`). No maintained Rust SignalR server exists; the part of the
//! protocol a hub of plain methods and events needs is small, and `crate::hub::protocol`
//! holds all of it.
//!
//! - `negotiate`: `POST /hubs/chat/negotiate` and the WebSocket request.
//! - `connection`: one connection's task: handshake, calls, events, pings, close.
//! - `methods`: the methods agents call, each the REST route's action.
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

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(negotiate::negotiate))
        .require(state, Rule::members(Permission::HandleConversations))
        .layer(negotiate_cors(&state.settings.application.app_url))
        // The WebSocket request authenticates itself (connection token or Authorization).
        .route("/hubs/chat", get(negotiate::connect))
}

/// Browsers negotiate across origins: the dashboard's (`APP_URL`) may, with the headers the
/// official client sends. Credentials are allowed as the client asks for them, though ours
/// travel in `Authorization`, never in cookies.
fn negotiate_cors(app_url: &str) -> CorsLayer {
    let origin = url::Url::parse(app_url)
        .ok()
        .map(|u| u.origin().ascii_serialization())
        .and_then(|o| HeaderValue::from_str(&o).ok());
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(origin))
        .allow_credentials(true)
        .allow_methods([Method::POST])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            HeaderName::from_static("x-requested-with"),
            HeaderName::from_static("x-signalr-user-agent"),
        ])
}
