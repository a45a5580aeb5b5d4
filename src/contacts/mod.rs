//! `/api/contacts*`: the workspace's contacts, found by name, address or label, and a contact
//! as the conversation's contact panel shows it (who they are, their labels, what the widget
//! last told us about their visit) with the agents' corrections of their name and email. Contacts themselves are made by intake and by the routes that name
//! them (`crate::inbox::contacts`, `crate::widget::contacts`); this module only reads and
//! corrects them.

mod details;
mod routes;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub use details::{ContactDetails, VisitorContext, find};

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(routes::list))
        .routes(routes!(routes::get, routes::update))
        .require(state, Rule::members(Permission::HandleConversations))
}
