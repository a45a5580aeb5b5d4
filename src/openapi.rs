//! The OpenAPI document, generated from the handlers' annotations: a route cannot exist
//! without being described, because the same `routes!` call registers both.
//!
//! The handlers' annotations describe what is particular to each route. The answers every
//! route shares because of the layers it passes through (a body refused by `AppJson` with
//! 400, 413 or 415, a credential refused with 401, a non-UUID path id with 404, a failure of
//! ours with 500, PostgreSQL or Redis unavailable with 503) are added by [`CommonResponses`]
//! to every operation that can give them, once the routes are collected, so no annotation
//! can forget one. A schema-driven fuzzer found twenty operations answering an undocumented
//! 415 before this existed; `tests/api/openapi_contract.rs` probes every operation and fails
//! on any status the document does not list.

use utoipa::openapi::path::{Operation, ParameterIn, PathItem};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{
    Content, HeaderBuilder, Ref, RefOr, Response, ResponseBuilder, Type, schema::ObjectBuilder,
};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Support Desk API",
        description = "Multi-tenant customer support. Errors are RFC 9457 problem details \
                       (`application/problem+json`)."
    ),
    modifiers(&BearerAuth),
    components(schemas(
        crate::error::Problem,
        crate::chat::projection::HubMessageCreated,
        crate::chat::projection::HubConversation,
        crate::chat::projection::HubContact,
        crate::chat::projection::HubTicket,
        crate::chat::projection::HubTicketComment,
        crate::chat::projection::HubAgent,
        crate::chat::projection::HubConversationRated,
        crate::events::catalogue::MessageCreated,
        crate::events::catalogue::ConversationChanged,
        crate::events::catalogue::TicketCommentCreated,
        crate::events::catalogue::AgentData,
        crate::events::catalogue::ConversationRated,
    )),
    tags(
        (name = "auth", description = "Accounts, login and email verification"),
        (name = "workspaces", description = "Workspaces (tenants), selecting one, deleting one"),
        (name = "team", description = "Agents, invitations, roles and each agent's profile"),
        (name = "settings", description = "Workspace settings (Owners)"),
        (name = "api-keys", description = "Secret API keys for integrations (Owners)"),
        (name = "operations", description = "Health and metrics"),
        (name = "conversations", description = "The inbox: conversations with contacts, replies, private notes, assignment"),
        (name = "contacts", description = "The people writing in, as the contact panel shows them"),
        (name = "tickets", description = "Tickets, their status, assignment and comments"),
        (name = "canned-responses", description = "Saved replies: everyone uses them, Owners write them"),
        (name = "labels", description = "The workspace's labels: Owners keep the set, agents put them on conversations"),
        (name = "views", description = "Saved views: named inbox filters with live counts, personal or shared"),
        (name = "search", description = "One search box over conversations, messages, tickets and contacts"),
        (name = "widget", description = "The chat widget's visitor API: sessions from a site key, the visitor's conversation"),
        (name = "email", description = "The email channel: the support address (Owners) and mail handed over by the MTA"),
        (name = "audit", description = "The audit log of security-relevant changes (Owners)"),
        (name = "reports", description = "How the team is doing: volume, first response and resolution times, CSAT, the incoming heatmap, per agent; JSON or CSV (Owners and API keys; Agents their own)"),
        (name = "webhooks", description = "Signed webhooks (Standard Webhooks): endpoints, secrets, delivery logs (Owners and API keys)"),
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
        components.add_security_scheme(
            "visitor",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("visitor JWT from POST /widget/v1/sessions")
                    .build(),
            ),
        );
        components.add_security_scheme(
            "inbound_secret",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("the deployment's INBOUND_EMAIL_SECRET")
                    .build(),
            ),
        );
    }
}

/// The document as served: `openapi` (the annotations, collected from every route) completed
/// with the answers the routes share. Call once, after the last route is registered.
pub fn complete(openapi: &mut utoipa::openapi::OpenApi) {
    CommonResponses.modify(openapi);
}

/// Paths that neither read PostgreSQL nor Redis, so cannot answer 503 for their sake.
const NO_BACKEND: &[&str] = &["/metrics", "/openapi.json"];

/// The security scheme a bearer credential is described by (see [`BearerAuth`]).
const BEARER: &str = "bearer";

/// Adds to every operation the shared answers it can give and its annotation does not list,
/// as references to `components.responses`. An answer an annotation lists is left as it is:
/// its description is the more specific one.
///
/// - a JSON request body: 400 (malformed, wrong shape, an invalid field, a NUL), 413, 415;
/// - query parameters: 400 (a parameter of the wrong type, or holding a NUL);
/// - path parameters: 404 (no such record, or an id that is not a UUID);
/// - a bearer credential: 401;
/// - every operation: 500; and 503 unless its path is in [`NO_BACKEND`].
///
/// It needs the paths, so it runs on the finished document (see [`complete`]), not as a
/// `modifiers(...)` of [`ApiDoc`], whose paths are still empty when modifiers run.
pub struct CommonResponses;

/// The shared answers: (status, component name, description).
const SHARED: &[(&str, &str, &str)] = &[
    (
        "400",
        "InvalidRequest",
        "The request is not acceptable: malformed JSON, a body or query string of the wrong \
         shape, an invalid field, or text holding the NUL character (U+0000). `code` says \
         which; a validation failure names each field in `errors`.",
    ),
    (
        "401",
        "Unauthorized",
        "Missing, malformed, expired or revoked credentials. Carries `WWW-Authenticate: Bearer`.",
    ),
    (
        "404",
        "NotFound",
        "No such record here, or a path id that is not a UUID.",
    ),
    (
        "413",
        "PayloadTooLarge",
        "The request body is larger than the 1 MiB limit (`body_too_large`).",
    ),
    (
        "415",
        "UnsupportedMediaType",
        "The request body is not `Content-Type: application/json` (`unsupported_media_type`).",
    ),
    (
        "500",
        "InternalError",
        "A failure on our side (`internal_error`); it is logged and nothing of it is disclosed.",
    ),
    (
        "503",
        "Unavailable",
        "PostgreSQL or Redis is unavailable or overloaded, or the database chose this request \
         as a deadlock or serialization victim (`unavailable`); retrying shortly may succeed.",
    ),
];

impl Modify for CommonResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        for (status, name, description) in SHARED {
            components
                .responses
                .entry((*name).to_owned())
                .or_insert_with(|| RefOr::T(problem_response(status, description)));
        }
        let global_bearer = openapi
            .security
            .as_ref()
            .is_some_and(|requirements| requires_bearer(requirements));
        for (path, item) in &mut openapi.paths.paths {
            let item_params = params_in(item.parameters.as_deref());
            let backend = !NO_BACKEND.contains(&path.as_str());
            for operation in operations_mut(item) {
                let params = params_in(operation.parameters.as_deref());
                let body = operation.request_body.is_some();
                let bearer = operation
                    .security
                    .as_ref()
                    .map_or(global_bearer, |requirements| requires_bearer(requirements));
                let statuses = [
                    ("400", body || params.query || item_params.query),
                    ("401", bearer),
                    ("404", params.path || item_params.path),
                    ("413", body),
                    ("415", body),
                    ("500", true),
                    ("503", backend),
                ];
                for (status, applies) in statuses {
                    if applies {
                        add_shared(operation, status);
                    }
                }
            }
        }
    }
}

fn problem_response(status: &str, description: &str) -> Response {
    let mut response = ResponseBuilder::new().description(description).content(
        "application/problem+json",
        Content::new(Some(Ref::from_schema_name("Problem"))),
    );
    if status == "401" {
        response = response.header(
            "WWW-Authenticate",
            HeaderBuilder::new()
                .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
                .description(Some("`Bearer`"))
                .build(),
        );
    }
    response.build()
}

fn add_shared(operation: &mut Operation, status: &str) {
    let Some((_, name, _)) = SHARED.iter().find(|(s, _, _)| *s == status) else {
        return;
    };
    operation
        .responses
        .responses
        .entry(status.to_owned())
        .or_insert_with(|| RefOr::Ref(Ref::from_response_name(*name)));
}

fn requires_bearer(requirements: &[utoipa::openapi::security::SecurityRequirement]) -> bool {
    // The requirement's map is private; its JSON form is `{"bearer": []}`.
    requirements.iter().any(|requirement| {
        serde_json::to_value(requirement)
            .ok()
            .is_some_and(|value| value.get(BEARER).is_some())
    })
}

#[derive(Default)]
struct ParamKinds {
    query: bool,
    path: bool,
}

fn params_in(parameters: Option<&[RefOr<utoipa::openapi::path::Parameter>]>) -> ParamKinds {
    let mut kinds = ParamKinds::default();
    for parameter in parameters.unwrap_or_default() {
        match parameter {
            RefOr::T(parameter) => match parameter.parameter_in {
                ParameterIn::Query => kinds.query = true,
                ParameterIn::Path => kinds.path = true,
                _ => {}
            },
            // A shared parameter we cannot see into: assume the worst of it.
            RefOr::Ref(_) => {
                kinds.query = true;
                kinds.path = true;
            }
        }
    }
    kinds
}

fn operations_mut(item: &mut PathItem) -> impl Iterator<Item = &mut Operation> {
    [
        item.get.as_mut(),
        item.put.as_mut(),
        item.post.as_mut(),
        item.delete.as_mut(),
        item.options.as_mut(),
        item.head.as_mut(),
        item.patch.as_mut(),
        item.trace.as_mut(),
        item.query.as_mut(),
    ]
    .into_iter()
    .flatten()
    .chain(item.additional_operations.values_mut())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterBuilder};
    use utoipa::openapi::request_body::RequestBodyBuilder;
    use utoipa::openapi::security::SecurityRequirement;
    use utoipa::openapi::{OpenApiBuilder, PathsBuilder};

    fn statuses(document: &Value, path: &str, method: &str) -> Vec<String> {
        document["paths"][path][method]["responses"]
            .as_object()
            .unwrap_or_else(|| panic!("{method} {path}"))
            .keys()
            .cloned()
            .collect()
    }

    fn document() -> Value {
        let created = ResponseBuilder::new().description("Created").build();
        let own_400 = ResponseBuilder::new().description("Unknown role").build();
        let paths = PathsBuilder::new()
            .path(
                "/api/things/{id}",
                PathItem::new(
                    HttpMethod::Put,
                    OperationBuilder::new()
                        .parameter(
                            ParameterBuilder::new()
                                .name("id")
                                .parameter_in(ParameterIn::Path),
                        )
                        .request_body(Some(RequestBodyBuilder::new().build()))
                        .security(SecurityRequirement::new(BEARER, Vec::<String>::new()))
                        .response("200", created.clone())
                        .response("400", own_400),
                ),
            )
            .path(
                "/api/things",
                PathItem::new(
                    HttpMethod::Get,
                    OperationBuilder::new()
                        .parameter(
                            ParameterBuilder::new()
                                .name("q")
                                .parameter_in(ParameterIn::Query),
                        )
                        .security(SecurityRequirement::new(BEARER, Vec::<String>::new()))
                        .response("200", created.clone()),
                ),
            )
            .path(
                "/metrics",
                PathItem::new(
                    HttpMethod::Get,
                    OperationBuilder::new().response("200", created),
                ),
            )
            .build();
        let mut openapi = OpenApiBuilder::new().paths(paths).build();
        complete(&mut openapi);
        serde_json::to_value(&openapi).unwrap()
    }

    #[test]
    fn each_operation_gets_the_shared_answers_it_can_give() {
        let document = document();
        assert_eq!(
            statuses(&document, "/api/things/{id}", "put"),
            ["200", "400", "401", "404", "413", "415", "500", "503"]
        );
        assert_eq!(
            statuses(&document, "/api/things", "get"),
            ["200", "400", "401", "500", "503"]
        );
        assert_eq!(statuses(&document, "/metrics", "get"), ["200", "500"]);
    }

    #[test]
    fn an_annotated_answer_is_kept_and_the_added_ones_are_problems() {
        let document = document();
        let put = &document["paths"]["/api/things/{id}"]["put"]["responses"];
        assert_eq!(put["400"], json!({"description": "Unknown role"}));
        assert_eq!(
            put["415"],
            json!({"$ref": "#/components/responses/UnsupportedMediaType"})
        );
        for (_, name, _) in SHARED {
            let response = &document["components"]["responses"][name];
            assert_eq!(
                response["content"]["application/problem+json"]["schema"]["$ref"],
                "#/components/schemas/Problem",
                "{name}"
            );
            assert!(
                response["description"]
                    .as_str()
                    .is_some_and(|d| !d.is_empty())
            );
        }
        assert!(
            document["components"]["responses"]["Unauthorized"]["headers"]
                .get("WWW-Authenticate")
                .is_some()
        );
    }
}
