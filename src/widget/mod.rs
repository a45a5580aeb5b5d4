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
mod attachments;
mod availability;
pub mod contacts;
mod context;
mod origin_check;
mod rating;
mod rating_links;
pub mod read;
pub mod reply_time;
pub mod routes;
pub mod sessions;
pub mod settings;
pub mod site_key;
pub mod visitor;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

/// The Owner's settings, among the routes people call (`crate::cors::dashboard`).
pub fn owner_router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(settings::get, settings::update))
        .routes(routes!(settings::regenerate_site_key))
        .routes(routes!(settings::regenerate_identity_secret))
        .require(state, Rule::members(Permission::ManageSettings))
}

/// What visitors' browsers call: sessions from the customer's page, the rest from the widget
/// app's origin (`crate::cors`).
pub fn visitor_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(sessions::create))
        .routes(routes!(routes::conversation))
        .routes(routes!(routes::send))
        .routes(routes!(routes::contact))
        .routes(routes!(read::read))
        .routes(routes!(rating::rate))
        .routes(routes!(availability::availability))
        .routes(routes!(rating_links::rate, rating_links::comment))
        .routes(routes!(context::report))
        .routes(routes!(origin_check::check))
        .merge(
            OpenApiRouter::new()
                .routes(routes!(attachments::upload))
                .layer(crate::attachments::upload_limit(
                    crate::attachments::VISITOR_MAX_BYTES,
                )),
        )
        .routes(routes!(attachments::get))
}
