//! Conversations: the inbox where agents talk with contacts. Each has a per-workspace
//! `number`, a status, a priority, an assignee, and messages (incoming, outgoing replies,
//! private notes). The list is ordered by last activity and read a page at a time from an
//! index, so the inbox stays fast at any size.
//!
//! - `actions`: replying, noting, starting and changing a conversation, shared by the REST
//!   routes and the chat hub, each recording its events in the event log.
//! - `intake`: a contact's message into their open conversation (or a new one), for every
//!   channel.
//! - `record`: the Conversation record and its queries (the list query included).
//! - `messages`: messages and notes, and `lastMessageAt`.
//! - `ratings`: customers' ratings of resolutions (CSAT); `rating_links`: the rating links
//!   emailed to the customer of a resolved email conversation.
//! - `reads`: what each agent has read (unread counts), `counts`: the tabs' badges,
//!   `activity`: the activity lines, from the event log.
//! - `filters`: the inbox's filters, which saved views keep too.
//! - `requests`: what the routes accept, checked into what they act on.
//! - `routes`: `/api/conversations*`.
//!
//! Contacts, assignees, priorities and text rules are shared with tickets and canned
//! responses, and live in `crate::inbox`.

pub mod actions;
mod activity;
mod counts;
pub mod filters;
pub mod intake;
pub mod messages;
pub mod rating_links;
pub mod ratings;
mod reads;
pub mod record;
pub mod requests;
mod routes;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(routes::list, routes::create))
        .routes(routes!(counts::counts))
        .routes(routes!(routes::get))
        .routes(routes!(routes::list_messages, routes::reply))
        .routes(routes!(routes::note))
        .routes(routes!(routes::assign))
        .routes(routes!(routes::set_status))
        .routes(routes!(routes::set_priority))
        .routes(routes!(reads::read))
        .routes(routes!(activity::activity))
        .require(state, Rule::members(Permission::HandleConversations))
}
