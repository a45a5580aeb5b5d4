//! Webhooks: HTTPS endpoints of a workspace's integrations (Slack alerts, CRM sync, bots) that
//! receive the workspace's events as they are recorded, signed as the Standard Webhooks
//! specification says, so any of its verifier libraries works unchanged.
//!
//! The API keeps the endpoints (`endpoints`: their URL, types, secret sealed at rest) and the
//! delivery log and hand-made requests (`deliveries`). The worker delivers: each endpoint is a
//! durable reader of the event log with its own place in it (one delivery in flight per
//! endpoint, in `seq` order, retried on a schedule), so nothing is copied per endpoint and a
//! slow receiver holds up only itself.

mod deliveries;
pub mod endpoints;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

/// `/api/webhooks*` (Owners and API keys).
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(endpoints::list, endpoints::create))
        .routes(routes!(
            endpoints::get,
            endpoints::update,
            endpoints::delete
        ))
        .routes(routes!(endpoints::rotate))
        .routes(routes!(deliveries::test))
        .routes(routes!(deliveries::list))
        .routes(routes!(deliveries::retry))
        .require(state, Rule::members_or_api_key(Permission::ManageWebhooks))
}
