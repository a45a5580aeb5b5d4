//! The permission matrix: every `/api` route x every kind of caller, against the spec's
//! Owner/Agent table. A route missing from `ROUTES` fails the test, so new routes must state
//! who may call them. Run with `--nocapture` to print the matrix as implemented.

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{TestApp, spawn_app, unique_email};

/// What a caller gets: the success status of the route (with the body and ids below), or a
/// refusal with its problem code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Allowed(u16),
    Denied(u16, &'static str),
}
use Outcome::{Allowed, Denied};

const OWNER_ONLY: Outcome = Denied(403, "owner_only");
const NO_KEYS: Outcome = Denied(403, "api_key_not_allowed");

struct Route {
    method: Method,
    /// `{id}` is replaced by an id that exists nowhere (so allowed calls on one thing 404).
    path: &'static str,
    body: fn() -> Option<Value>,
    owner: Outcome,
    agent: Outcome,
    api_key: Outcome,
}

fn none() -> Option<Value> {
    None
}
fn empty() -> Option<Value> {
    Some(json!({}))
}
fn no_labels() -> Option<Value> {
    Some(json!({"labelIds": []}))
}
fn invite() -> Option<Value> {
    Some(json!({"email": unique_email(), "role": "agent"}))
}
fn role() -> Option<Value> {
    Some(json!({"role": "agent"}))
}
fn key_name() -> Option<Value> {
    Some(json!({"name": "matrix"}))
}
fn conversation() -> Option<Value> {
    Some(json!({"contact": {"email": unique_email()}, "body": "Hello"}))
}
fn text() -> Option<Value> {
    Some(json!({"body": "Thanks for writing in"}))
}
fn unassign() -> Option<Value> {
    Some(json!({"assigneeId": null}))
}
fn status() -> Option<Value> {
    Some(json!({"status": "open"}))
}
fn priority() -> Option<Value> {
    Some(json!({"priority": null}))
}
fn ticket() -> Option<Value> {
    Some(json!({"subject": "Refund", "requester": {"email": unique_email()}}))
}
fn canned() -> Option<Value> {
    let code = Uuid::new_v4().simple().to_string();
    Some(json!({"shortCode": &code[..12], "title": "Greeting", "body": "Hi {{contact.name}}"}))
}
fn render() -> Option<Value> {
    Some(json!({"conversationId": Uuid::new_v4()}))
}

fn routes() -> Vec<Route> {
    let route = |method: Method,
                 path: &'static str,
                 body: fn() -> Option<Value>,
                 owner: Outcome,
                 agent: Outcome,
                 api_key: Outcome| Route {
        method,
        path,
        body,
        owner,
        agent,
        api_key,
    };
    vec![
        // Every member.
        route(
            Method::GET,
            "/api/workspace",
            none,
            Allowed(200),
            Allowed(200),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/me/profile",
            none,
            Allowed(200),
            Allowed(200),
            NO_KEYS,
        ),
        route(
            Method::PATCH,
            "/api/me/profile",
            empty,
            Allowed(200),
            Allowed(200),
            NO_KEYS,
        ),
        // Viewing the team: every member, and API keys.
        route(
            Method::GET,
            "/api/agents",
            none,
            Allowed(200),
            Allowed(200),
            Allowed(200),
        ),
        route(
            Method::GET,
            "/api/agents/{id}",
            none,
            Allowed(404),
            Allowed(404),
            Allowed(404),
        ),
        // Managing the team: Owners and API keys.
        route(
            Method::POST,
            "/api/agents/invite",
            invite,
            Allowed(201),
            OWNER_ONLY,
            Allowed(201),
        ),
        route(
            Method::POST,
            "/api/agents/{id}/deactivate",
            empty,
            Allowed(404),
            OWNER_ONLY,
            Allowed(404),
        ),
        route(
            Method::POST,
            "/api/agents/{id}/reactivate",
            empty,
            Allowed(404),
            OWNER_ONLY,
            Allowed(404),
        ),
        route(
            Method::PUT,
            "/api/agents/{id}/role",
            role,
            Allowed(404),
            OWNER_ONLY,
            Allowed(404),
        ),
        // Owners only.
        route(
            Method::GET,
            "/api/invitations",
            none,
            Allowed(200),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::DELETE,
            "/api/invitations/{id}",
            none,
            Allowed(404),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/settings",
            none,
            Allowed(200),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::PATCH,
            "/api/settings",
            empty,
            Allowed(200),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/settings/business-hours",
            none,
            Allowed(200),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::PATCH,
            "/api/settings/business-hours",
            empty,
            Allowed(200),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/settings/api-keys",
            none,
            Allowed(200),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/settings/api-keys",
            key_name,
            Allowed(201),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/settings/api-keys/{id}/regenerate",
            empty,
            Allowed(404),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::DELETE,
            "/api/settings/api-keys/{id}",
            none,
            Allowed(404),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/settings/widget",
            none,
            Allowed(200),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::PATCH,
            "/api/settings/widget",
            empty,
            Allowed(200),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/settings/widget/site-key/regenerate",
            empty,
            Allowed(200),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/settings/widget/identity-secret/regenerate",
            empty,
            Allowed(200),
            OWNER_ONLY,
            NO_KEYS,
        ),
        // The event log: every member, and the workspace's API keys.
        route(
            Method::GET,
            "/api/events",
            none,
            Allowed(200),
            Allowed(200),
            Allowed(200),
        ),
        // Labels: every member reads the set and labels conversations; Owners keep the set.
        route(
            Method::GET,
            "/api/labels",
            none,
            Allowed(200),
            Allowed(200),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/labels",
            empty,
            Allowed(400),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::PATCH,
            "/api/labels/{id}",
            empty,
            Allowed(404),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::DELETE,
            "/api/labels/{id}",
            none,
            Allowed(404),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::PUT,
            "/api/conversations/{id}/labels",
            no_labels,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::PUT,
            "/api/contacts/{id}/labels",
            no_labels,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/contacts",
            none,
            Allowed(200),
            Allowed(200),
            NO_KEYS,
        ),
        // Saved views: every member keeps their own (a shared one is the Owners', checked
        // in the handler: tests/api/views.rs); never an API key.
        route(
            Method::GET,
            "/api/views",
            none,
            Allowed(200),
            Allowed(200),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/views",
            empty,
            Allowed(400),
            Allowed(400),
            NO_KEYS,
        ),
        route(
            Method::PATCH,
            "/api/views/{id}",
            empty,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::DELETE,
            "/api/views/{id}",
            none,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        // Search: every member, and the workspace's API keys (without `q`, a 400 after the
        // permission check).
        route(
            Method::GET,
            "/api/search",
            none,
            Allowed(400),
            Allowed(400),
            Allowed(400),
        ),
        // Reports: Owners and API keys see the team's, Agents their own; the heatmap is the
        // team's only.
        route(
            Method::GET,
            "/api/reports/volume",
            none,
            Allowed(200),
            Allowed(200),
            Allowed(200),
        ),
        route(
            Method::GET,
            "/api/reports/first-response-time",
            none,
            Allowed(200),
            Allowed(200),
            Allowed(200),
        ),
        route(
            Method::GET,
            "/api/reports/resolution-time",
            none,
            Allowed(200),
            Allowed(200),
            Allowed(200),
        ),
        route(
            Method::GET,
            "/api/reports/csat",
            none,
            Allowed(200),
            Allowed(200),
            Allowed(200),
        ),
        route(
            Method::GET,
            "/api/reports/heatmap",
            none,
            Allowed(200),
            OWNER_ONLY,
            Allowed(200),
        ),
        route(
            Method::GET,
            "/api/reports/agents",
            none,
            Allowed(200),
            Allowed(200),
            Allowed(200),
        ),
        // The audit log: Owners only, never an API key.
        route(
            Method::GET,
            "/api/audit-log",
            none,
            Allowed(200),
            OWNER_ONLY,
            NO_KEYS,
        ),
        // Webhooks: Owners and API keys.
        route(
            Method::GET,
            "/api/webhooks",
            none,
            Allowed(200),
            OWNER_ONLY,
            Allowed(200),
        ),
        route(
            Method::POST,
            "/api/webhooks",
            empty,
            Allowed(400),
            OWNER_ONLY,
            Allowed(400),
        ),
        route(
            Method::GET,
            "/api/webhooks/{id}",
            none,
            Allowed(404),
            OWNER_ONLY,
            Allowed(404),
        ),
        route(
            Method::PATCH,
            "/api/webhooks/{id}",
            empty,
            Allowed(404),
            OWNER_ONLY,
            Allowed(404),
        ),
        route(
            Method::DELETE,
            "/api/webhooks/{id}",
            none,
            Allowed(404),
            OWNER_ONLY,
            Allowed(404),
        ),
        route(
            Method::POST,
            "/api/webhooks/{id}/rotate-secret",
            none,
            Allowed(404),
            OWNER_ONLY,
            Allowed(404),
        ),
        route(
            Method::POST,
            "/api/webhooks/{id}/test",
            none,
            Allowed(404),
            OWNER_ONLY,
            Allowed(404),
        ),
        route(
            Method::GET,
            "/api/webhooks/{id}/deliveries",
            none,
            Allowed(404),
            OWNER_ONLY,
            Allowed(404),
        ),
        route(
            Method::POST,
            "/api/webhooks/{id}/deliveries/{deliveryId}/retry",
            none,
            Allowed(404),
            OWNER_ONLY,
            Allowed(404),
        ),
        // Conversations, tickets and canned responses: every member; never an API key.
        route(
            Method::GET,
            "/api/conversations",
            none,
            Allowed(200),
            Allowed(200),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/conversations",
            conversation,
            Allowed(201),
            Allowed(201),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/conversations/{id}",
            none,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/conversations/{id}/messages",
            none,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/conversations/{id}/messages",
            text,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/conversations/{id}/notes",
            text,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/conversations/{id}/assign",
            unassign,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/conversations/{id}/status",
            status,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/conversations/{id}/priority",
            priority,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/conversations/counts",
            none,
            Allowed(200),
            Allowed(200),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/conversations/{id}/read",
            none,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/conversations/{id}/attachments",
            none,
            // Past the authorization, a body that is not multipart.
            Allowed(415),
            Allowed(415),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/conversations/{id}/attachments/{attachmentId}",
            none,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/settings/storage",
            none,
            Allowed(200),
            Allowed(200),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/settings/email",
            none,
            Allowed(200),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::PUT,
            "/api/settings/email",
            empty,
            // Past the authorization, `{}` changes nothing.
            Allowed(200),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/settings/email/test",
            none,
            Allowed(202),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/conversations/{id}/activity",
            none,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/contacts/{id}",
            none,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::PATCH,
            "/api/contacts/{id}",
            empty,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/tickets",
            none,
            Allowed(200),
            Allowed(200),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/tickets",
            ticket,
            Allowed(201),
            Allowed(201),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/tickets/{id}",
            none,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::PATCH,
            "/api/tickets/{id}",
            empty,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/tickets/{id}/resolve",
            empty,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/tickets/{id}/comments",
            none,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/tickets/{id}/comments",
            text,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/canned-responses",
            none,
            Allowed(200),
            Allowed(200),
            NO_KEYS,
        ),
        route(
            Method::GET,
            "/api/canned-responses/{id}",
            none,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/canned-responses/{id}/render",
            render,
            Allowed(404),
            Allowed(404),
            NO_KEYS,
        ),
        route(
            Method::POST,
            "/api/canned-responses",
            canned,
            Allowed(201),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::PATCH,
            "/api/canned-responses/{id}",
            empty,
            Allowed(404),
            OWNER_ONLY,
            NO_KEYS,
        ),
        route(
            Method::DELETE,
            "/api/canned-responses/{id}",
            none,
            Allowed(404),
            OWNER_ONLY,
            NO_KEYS,
        ),
        // Last: it deletes the workspace.
        route(
            Method::DELETE,
            "/api/workspace",
            none,
            Allowed(202),
            OWNER_ONLY,
            NO_KEYS,
        ),
    ]
}

async fn call(app: &TestApp, route: &Route, token: Option<&str>) -> (u16, String) {
    let path = route.path.replace("{id}", &Uuid::new_v4().to_string());
    let mut request = app.client.request(route.method.clone(), app.url(&path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = (route.body)() {
        request = request.json(&body);
    }
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or_default();
    (status, body["code"].as_str().unwrap_or_default().to_owned())
}

fn matches(outcome: Outcome, (status, code): &(u16, String)) -> bool {
    match outcome {
        Allowed(expected) => *status == expected,
        Denied(expected, expected_code) => *status == expected && code == expected_code,
    }
}

fn show(outcome: Outcome) -> String {
    match outcome {
        Allowed(status) => format!("yes ({status})"),
        Denied(status, code) => format!("no: {status} {code}"),
    }
}

#[tokio::test]
async fn every_api_route_enforces_the_permission_table_for_every_kind_of_caller() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let agent = app.member(&owner, "agent").await;
    let gone = app.member(&owner, "agent").await;
    let deactivated = app
        .post_json(
            &format!("/api/agents/{}/deactivate", gone.agent_id),
            &json!({}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(deactivated.status(), StatusCode::OK);
    let (_, api_key) = app.api_key(&owner.workspace_token).await;

    // The table covers exactly the /api routes the service serves.
    let openapi: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let served: BTreeSet<(String, String)> = openapi["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(path, _)| path.starts_with("/api/"))
        .flat_map(|(path, item)| {
            item.as_object()
                .unwrap()
                .keys()
                .map(move |method| (method.to_uppercase(), path.clone()))
        })
        .collect();
    let routes = routes();
    let listed: BTreeSet<(String, String)> = routes
        .iter()
        .map(|r| (r.method.to_string(), r.path.to_owned()))
        .collect();
    assert_eq!(served, listed, "every /api route needs a row in the matrix");

    let mut table = vec![
        "| route | Owner | Agent | API key | user token | deactivated agent | no token |"
            .to_owned(),
        "|---|---|---|---|---|---|---|".to_owned(),
    ];
    let mut failures = Vec::new();
    for route in &routes {
        let callers: [(&str, Option<&str>, Outcome); 6] = [
            ("no token", None, Denied(401, "unauthorized")),
            (
                "user token",
                Some(&owner.user_token),
                Denied(403, "wrong_token_type"),
            ),
            (
                "deactivated agent",
                Some(&gone.workspace_token),
                Denied(403, "membership_deactivated"),
            ),
            ("API key", Some(&api_key), route.api_key),
            ("Agent", Some(&agent.workspace_token), route.agent),
            ("Owner", Some(&owner.workspace_token), route.owner),
        ];
        for (caller, token, expected) in callers {
            let got = call(&app, route, token).await;
            if !matches(expected, &got) {
                failures.push(format!(
                    "{} {} as {caller}: expected {expected:?}, got {got:?}",
                    route.method, route.path
                ));
            }
        }
        table.push(format!(
            "| `{} {}` | {} | {} | {} | no: 403 | no: 403 | no: 401 |",
            route.method,
            route.path,
            show(route.owner),
            show(route.agent),
            show(route.api_key),
        ));
    }
    println!("{}", table.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
