//! Workspaces (tenants): creating, listing, selecting and deleting them. A member's
//! workspaces as the rest of the service lists them (`MembershipSummary`) are
//! `memberships`'s.

pub mod provision;
mod routes;
pub mod slug;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(routes::create, routes::list))
        .routes(routes!(routes::select))
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::current))
                .require(state, Rule::members(Permission::ViewWorkspace)),
        )
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::delete))
                .require(state, Rule::members(Permission::DeleteWorkspace)),
        )
}
