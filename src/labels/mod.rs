//! Labels: the workspace's own set of tags (Owners keep it), which agents put on
//! conversations and contacts to sort and find them (`GET /api/conversations?label=`,
//! `GET /api/contacts?label=`, the search's filter). A conversation and a contact carry their
//! labels, so a change of them is a `conversation.updated` or `contact.updated` event like
//! any other change.
//!
//! - `record`: the Label record and its queries, and the set on a conversation or a contact.
//! - `requests`: what the routes accept, checked.
//! - `routes`: `/api/labels*`, `PUT /api/conversations/{id}/labels` and
//!   `PUT /api/contacts/{id}/labels`.

pub mod record;
mod requests;
mod routes;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub use record::LabelRef;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::list))
                .routes(routes!(routes::set_conversation_labels))
                .routes(routes!(routes::set_contact_labels))
                .require(state, Rule::members(Permission::HandleConversations)),
        )
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::create))
                .routes(routes!(routes::update, routes::delete))
                .require(state, Rule::members(Permission::ManageSettings)),
        )
}
