//! Conversations: the inbox where agents talk with contacts. Each has a per-workspace
//! `number`, a status, a priority, an assignee, and messages (incoming, outgoing replies,
//! private notes). The list is ordered by last activity and read a page at a time from an
//! index, so the inbox stays fast at any size.
//!
//! - `record`: the Conversation record and its queries (the list query included).
//! - `messages`: messages and notes, and `lastMessageAt`.
//! - `contacts`: the people writing in (shared with tickets).
//! - `assignee`: who may be assigned work, and who is acting (shared with tickets).
//! - `text`: free-text field rules (shared with tickets and canned responses).
//! - `routes`: `/api/conversations*`.

pub mod assignee;
pub mod contacts;
pub mod messages;
pub mod record;
mod routes;
pub mod text;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(routes::list, routes::create))
        .routes(routes!(routes::get))
        .routes(routes!(routes::list_messages, routes::reply))
        .routes(routes!(routes::note))
        .routes(routes!(routes::assign))
        .routes(routes!(routes::set_status))
        .routes(routes!(routes::set_priority))
        .require(state, Rule::members(Permission::HandleConversations))
}
