//! Secret API keys: credentials an Owner issues to an integration. A key acts with Owner
//! rights on agent management (`/api/agents*`) only, and never manages keys.
//!
//! Keys are looked up on every use, without a cache: a regenerated or revoked key is refused
//! at once on every replica. The lookup is one indexed query on a low-volume path (agent
//! management), and `last_used_at` is written at most about once a minute per key. The form of
//! a key is `credentials::api_key`; authenticating one is `authz::api_key`.

mod routes;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(routes::list, routes::create))
        .routes(routes!(routes::regenerate))
        .routes(routes!(routes::revoke))
        .require(state, Rule::members(Permission::ManageApiKeys))
}
