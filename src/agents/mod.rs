//! The team of a workspace: agents (members as the team sees them), inviting them,
//! deactivating and reactivating them, their roles, and each agent's own profile.
//!
//! - `record`: the Agent record and its queries.
//! - `lifecycle`: deactivation, reactivation, role changes (at least one Owner stays).
//! - `routes`: `/api/agents*`, which also take the workspace's API keys.
//! - `profile`: `/api/me/profile`.

pub mod lifecycle;
pub mod profile;
pub mod record;
mod routes;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    let team = |permission| Rule::members_or_api_key(permission);
    OpenApiRouter::new()
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::list))
                .routes(routes!(routes::get))
                .require(state, team(Permission::ViewTeam)),
        )
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::invite))
                .require(state, team(Permission::InviteAgents)),
        )
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::deactivate))
                .routes(routes!(routes::reactivate))
                .require(state, team(Permission::DeactivateAgents)),
        )
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::change_role))
                .require(state, team(Permission::ChangeRoles)),
        )
        .merge(
            OpenApiRouter::new()
                .routes(routes!(profile::get, profile::update))
                .require(state, Rule::members(Permission::UpdateOwnProfile)),
        )
}
