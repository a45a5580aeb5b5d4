//! Canned responses: saved replies an agent finds by short code or title and fills in for a
//! conversation (`{{contact.name}}`, `{{agent.displayName}}`, `{{workspace.name}}`). Every
//! member uses them; writing them is a workspace setting, for Owners.
//!
//! - `record`: the CannedResponse record and its queries.
//! - `template`: filling in the placeholders.
//! - `requests`: what the routes accept, checked into what they act on.
//! - `routes`: `/api/canned-responses*`.

pub mod record;
mod requests;
mod routes;
pub mod template;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::list))
                .routes(routes!(routes::get))
                .routes(routes!(routes::render))
                .require(state, Rule::members(Permission::UseCannedResponses)),
        )
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::create))
                .routes(routes!(routes::update, routes::delete))
                .require(state, Rule::members(Permission::ManageSettings)),
        )
}
