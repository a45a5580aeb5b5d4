//! One limit for every conversation message: an agent's reply or note (REST and the hub) and
//! a visitor's message are at most 10,000 characters. Longer is refused naming `body`, never
//! cut, and nothing is stored; the bound is counted in characters, not bytes, and published
//! as the body fields' `maxLength` so the clients can count down to it.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app};
use crate::helpers_conversations::id;
use crate::helpers_widget::SITE;

const LIMIT: usize = 10_000;

/// Exactly at the limit, in two-byte characters: more bytes than the limit, still accepted.
fn at_limit() -> String {
    "ż".repeat(LIMIT)
}

fn over_limit() -> String {
    "x".repeat(LIMIT + 1)
}

async fn assert_body_too_long(response: reqwest::Response) {
    let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    assert_eq!(
        problem["errors"]["body"],
        json!(["must be at most 10000 characters"]),
        "{problem}"
    );
}

async fn message_count(app: &crate::helpers::TestApp, token: &str, conversation: &str) -> usize {
    app.get_ok(
        &format!("/api/conversations/{conversation}/messages"),
        token,
    )
    .await["messages"]
        .as_array()
        .map_or(0, Vec::len)
}

#[tokio::test]
async fn agent_messages_over_ten_thousand_characters_are_refused_over_rest() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("limit-rest").await;
    let token = owner.workspace_token.as_str();

    // A new conversation's first message: refused, no conversation made.
    let before = app.get_ok("/api/conversations", token).await;
    let refused = app
        .post_json(
            "/api/conversations",
            &json!({"contact": {"email": "carla@example.org"}, "body": over_limit()}),
            Some(token),
        )
        .await;
    assert_body_too_long(refused).await;
    assert_eq!(app.get_ok("/api/conversations", token).await, before);

    let conversation = app
        .start_conversation(token, "carla@example.org", &at_limit())
        .await;
    let conversation = id(&conversation);
    assert_eq!(message_count(&app, token, &conversation).await, 1);

    for kind in ["messages", "notes"] {
        let path = format!("/api/conversations/{conversation}/{kind}");
        let refused = app
            .post_json(&path, &json!({"body": over_limit()}), Some(token))
            .await;
        assert_body_too_long(refused).await;
        assert_eq!(message_count(&app, token, &conversation).await, 1, "{kind}");
    }

    // At the limit, whole: not cut.
    for kind in ["messages", "notes"] {
        let path = format!("/api/conversations/{conversation}/{kind}");
        let posted = app
            .json_ok(
                Method::POST,
                &path,
                &json!({"body": at_limit()}),
                token,
                StatusCode::CREATED,
            )
            .await;
        assert_eq!(
            posted["body"].as_str().map(|b| b.chars().count()),
            Some(LIMIT)
        );
    }
    assert_eq!(message_count(&app, token, &conversation).await, 3);
}

#[tokio::test]
async fn hub_messages_and_notes_over_the_limit_complete_with_an_error() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("limit-hub").await;
    let token = owner.workspace_token.as_str();
    let conversation = id(&app
        .start_conversation(token, "carla@example.org", "Hi")
        .await);
    let mut hub = app.hub(token).await;

    for (invocation, method) in [("1", "SendMessage"), ("2", "SendNote")] {
        let completion = hub
            .invoke(invocation, method, json!([conversation, over_limit()]))
            .await;
        assert_eq!(
            completion["error"], "body must be at most 10000 characters",
            "{completion}"
        );
        assert!(completion.get("result").is_none(), "{completion}");
    }
    assert_eq!(message_count(&app, token, &conversation).await, 1);

    let whole = hub
        .invoke("3", "SendMessage", json!([conversation, at_limit()]))
        .await;
    assert_eq!(
        whole["result"]["body"].as_str().map(|b| b.chars().count()),
        Some(LIMIT),
        "{whole}"
    );
}

#[tokio::test]
async fn a_visitor_message_over_the_limit_is_refused_and_opens_nothing() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("limit-widget").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;

    assert_body_too_long(app.visitor_says(&visitor, &over_limit()).await).await;
    assert_eq!(app.visitor_conversation(&visitor).await, Value::Null);

    let conversation = app.visitor_said(&visitor, &at_limit()).await;
    let messages = app
        .get_ok(
            &format!("/api/conversations/{conversation}/messages"),
            &owner.workspace_token,
        )
        .await;
    assert_eq!(
        messages["messages"][0]["body"]
            .as_str()
            .map(|b| b.chars().count()),
        Some(LIMIT)
    );
}

#[tokio::test]
async fn the_openapi_document_publishes_the_limit_on_every_message_body() {
    let app = spawn_app().await;
    let document: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    for schema in ["CreateConversation", "MessageRequest", "NewVisitorMessage"] {
        assert_eq!(
            document["components"]["schemas"][schema]["properties"]["body"]["maxLength"], LIMIT,
            "{schema}"
        );
    }
}

#[tokio::test]
async fn ticket_descriptions_comments_and_canned_bodies_keep_their_longer_bound() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("limit-documents").await;
    let token = owner.workspace_token.as_str();
    let long = over_limit();

    let ticket = app
        .open_ticket(token, "carla@example.org", json!({ "description": long }))
        .await;
    assert_eq!(ticket["description"], long.as_str());
    let comment = app
        .json_ok(
            Method::POST,
            &format!("/api/tickets/{}/comments", id(&ticket)),
            &json!({ "body": long }),
            token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(comment["body"], long.as_str());
    let canned = app
        .json_ok(
            Method::POST,
            "/api/canned-responses",
            &json!({"shortCode": "long", "title": "Long", "body": long}),
            token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(canned["body"], long.as_str());
}
