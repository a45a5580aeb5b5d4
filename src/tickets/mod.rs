//! Tickets: work that outlives a chat (a refund, a bug). Each has a per-workspace `number`,
//! a requester (a contact), a status (open, pending, resolved, closed) with `resolvedAt`, a
//! priority, an assignee, an optional link to the conversation it came from, and comments.
//!
//! - `record`: the Ticket record and its queries (the list query included).
//! - `comments`: the team's comments on a ticket.
//! - `requests`: what the routes accept, checked into what they act on.
//! - `routes`: `/api/tickets*`.

pub mod comments;
pub mod record;
mod requests;
mod routes;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(routes::list, routes::create))
        .routes(routes!(routes::get, routes::update))
        .routes(routes!(routes::resolve))
        .routes(routes!(routes::list_comments, routes::add_comment))
        .require(state, Rule::members(Permission::ManageTickets))
}
