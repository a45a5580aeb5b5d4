//! The chat hub `/hubs/chat`: the ASP.NET Core SignalR protocol (JSON hub protocol 1 over
//! WebSockets, with negotiate), so the official clients connect unchanged
//! (`../shared/design/REALTIME.md`). No maintained Rust SignalR server exists; the part of the
//! protocol a hub of plain methods and events needs is small, and `crate::hub::protocol`
//! holds all of it.
//!
//! - `negotiate`: `POST /hubs/chat/negotiate` and the WebSocket request.
//! - `connection`: one connection's task: handshake, calls, events, pings, close.
//! - `methods`: the methods agents and widget visitors call, each the REST route's action.
//! - `access`: a connection's access, checked as REST checks it, and its closing once lost.
//! - `lifecycle`: connections of members who lose access close on every replica.
//! - `projection`: what each logged event becomes on the hub, and who hears it.
//!
//! The connections, events, backplane and presence are `crate::hub`'s; this module is the
//! endpoint in front of them.

pub mod access;
pub mod connection;
pub mod lifecycle;
pub mod methods;
pub mod negotiate;
pub mod projection;

use axum::routing::get;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

/// Negotiate authenticates itself: agents with a workspace token, widget visitors with a
/// visitor token, which no `/api` rule accepts. So does the WebSocket request (connection
/// token or Authorization).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(negotiate::negotiate))
        .route("/hubs/chat", get(negotiate::connect))
}
