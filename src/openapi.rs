//! The OpenAPI document, generated from the handlers' annotations: a route cannot exist
//! without being described, because the same `routes!` call registers both.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Support Desk API",
        description = "Multi-tenant customer support. Errors are RFC 9457 problem details \
                       (`application/problem+json`)."
    ),
    modifiers(&BearerAuth),
    components(schemas(crate::error::Problem)),
    tags(
        (name = "auth", description = "Accounts, login and email verification"),
        (name = "workspaces", description = "Workspaces (tenants), selecting one, deleting one"),
        (name = "team", description = "Agents, invitations, roles and each agent's profile"),
        (name = "settings", description = "Workspace settings (Owners)"),
        (name = "api-keys", description = "Secret API keys for integrations (Owners)"),
        (name = "operations", description = "Health and metrics"),
        (name = "conversations", description = "The inbox: conversations with contacts, replies, private notes, assignment"),
        (name = "tickets", description = "Tickets, their status, assignment and comments"),
        (name = "canned-responses", description = "Saved replies: everyone uses them, Owners write them"),
    )
)]
pub struct ApiDoc;

/// `Authorization: Bearer <token>`: a user token, a workspace token or an API key.
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT or API key")
                    .build(),
            ),
        );
    }
}
