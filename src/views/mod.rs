//! Saved views: an inbox filter with a name, in the sidebar with how many conversations it
//! holds. Anyone keeps personal views, seen by them alone; Owners keep the workspace's shared
//! ones, seen by everyone. A view stores the inbox's own filters
//! (`crate::conversations::filters`), so `assignee: me` is whoever looks at it, and its
//! count is the inbox's list query counted.
//!
//! - `record`: the table's queries and the counts.
//! - `requests`: what the routes accept, checked.
//! - `routes`: `/api/views*`.

mod record;
mod requests;
mod routes;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(routes::list, routes::create))
        .routes(routes!(routes::update, routes::delete))
        .require(state, Rule::members(Permission::HandleConversations))
}
