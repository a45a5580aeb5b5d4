//! Reports (`GET /api/reports/*`): how the team is doing, from the tables the worker's
//! reports subscriber folds from the event log (`workers/src/reports`), never from the
//! conversations themselves, so a year's report costs what its cycles cost.
//!
//! The definitions are the worker's (`docs/reports.md` writes them down); here each report
//! is cut into periods of the workspace's days (`range`), read (`figures`) and shown as JSON
//! or CSV (`routes`). Owners and API keys see every figure; Agents their own.

pub mod figures;
pub mod range;
pub mod routes;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(routes::volume))
        .routes(routes!(routes::first_response_time))
        .routes(routes!(routes::resolution_time))
        .routes(routes!(routes::csat))
        .routes(routes!(routes::heatmap))
        .routes(routes!(routes::agents))
        .require(state, Rule::members_or_api_key(Permission::ViewWorkspace))
}
