//! The chat widget's API: what an Owner sets (`settings`: site key, allowed origins, identity
//! verification) and what a website visitor does (`sessions`, then `routes` and the hub's
//! visitor methods, all through `actions`). `../shared/design/REALTIME.md`, "Widget API".
//!
//! Visitors are strangers on the internet, so their side grants little and checks much: a
//! session needs a site key used from an allowed origin (and a signed identity when the
//! workspace asks for one); a visitor token is its own JWT audience, which no `/api` route
//! accepts, and reaches one workspace's one contact (`visitor`); every write is rate limited.
//!
//! - `site_key`: the `SiteKey` and `AllowedOrigin` newtypes.
//! - `contacts`: how a session maps to a contact.

pub mod actions;
pub mod contacts;
pub mod routes;
pub mod sessions;
pub mod settings;
pub mod site_key;
pub mod visitor;

use axum::http::{HeaderName, Method, header};
use tower_http::cors::{AllowOrigin, CorsLayer};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::http::cross_origin;
use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    let owner = OpenApiRouter::new()
        .routes(routes!(settings::get, settings::update))
        .routes(routes!(settings::regenerate_site_key))
        .routes(routes!(settings::regenerate_identity_secret))
        .require(state, Rule::members(Permission::ManageSettings));
    let sessions = OpenApiRouter::new()
        .routes(cross_origin(routes!(sessions::create)))
        .layer(cors(sessions::allowed_origins(state)));
    let widget_origin = state
        .settings
        .application
        .widget_url
        .as_deref()
        .and_then(crate::chat::origin_of);
    let visitor = OpenApiRouter::new()
        .routes(cross_origin(routes!(routes::conversation)))
        .routes(cross_origin(routes!(routes::send)))
        .routes(cross_origin(routes!(routes::contact)))
        .layer(cors(AllowOrigin::list(widget_origin)));
    owner.merge(sessions).merge(visitor)
}

/// Visitors' browsers call across origins; credentials travel in `Authorization`, never in
/// cookies. A 429's `Retry-After` is readable by the widget.
fn cors(origins: AllowOrigin) -> CorsLayer {
    CorsLayer::new()
        .allow_origin(origins)
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            HeaderName::from_static("x-requested-with"),
        ])
        .expose_headers([header::RETRY_AFTER])
        .max_age(std::time::Duration::from_secs(600))
}
