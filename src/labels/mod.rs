//! Labels: the workspace's own set of tags (Owners keep it), which agents put on
//! conversations to sort and find them (`GET /api/conversations?label=`, the search's
//! filter). A conversation carries its labels (`Conversation.labels`), so a change of them
//! is a `conversation.updated` event like any other change.
//!
//! - `record`: the Label record and its queries, and a conversation's set.
//! - `requests`: what the routes accept, checked.
//! - `routes`: `/api/labels*` and `PUT /api/conversations/{id}/labels`.

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
                .require(state, Rule::members(Permission::HandleConversations)),
        )
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::create))
                .routes(routes!(routes::update, routes::delete))
                .require(state, Rule::members(Permission::ManageSettings)),
        )
}
