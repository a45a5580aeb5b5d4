//! One limit for every conversation message, 10 000 characters, on both sides of a chat and
//! on every way in (REST, the hub, the widget): at the limit it is sent whole, over it refused
//! with the field named, never cut, and nothing is written.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{TestApp, assert_problem, spawn_app};
use crate::helpers_widget::SITE;

const LIMIT: usize = 10_000;

async fn message_count(app: &TestApp, token: &str, conversation: Uuid) -> usize {
    app.get_ok(
        &format!("/api/conversations/{conversation}/messages?limit=200"),
        token,
    )
    .await["messages"]
        .as_array()
        .map_or(0, Vec::len)
}

async fn problem_field(response: reqwest::Response) -> Value {
    let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    let message = problem["errors"]["body"][0]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("10000"), "{problem}");
    problem
}

#[tokio::test]
async fn every_way_in_takes_ten_thousand_characters_and_refuses_more_whole() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("limits").await;
    let token = owner.workspace_token.as_str();
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;

    // The widget.
    let id = app.visitor_said(&visitor, &"v".repeat(LIMIT)).await;
    problem_field(app.visitor_says(&visitor, &"v".repeat(LIMIT + 1)).await).await;
    // Trimmed first: surrounding spaces do not count.
    app.visitor_said(&visitor, &format!("  {}  ", "w".repeat(LIMIT)))
        .await;

    // REST replies and notes.
    for kind in ["messages", "notes"] {
        let path = format!("/api/conversations/{id}/{kind}");
        let sent = app
            .json_ok(
                Method::POST,
                &path,
                &json!({"body": "a".repeat(LIMIT)}),
                token,
                StatusCode::CREATED,
            )
            .await;
        assert_eq!(sent["body"].as_str().map(str::len), Some(LIMIT));
        for over in [LIMIT + 1, 2 * LIMIT + 1] {
            let response = app
                .post_json(&path, &json!({"body": "a".repeat(over)}), Some(token))
                .await;
            problem_field(response).await;
        }
    }
    // Multi-byte characters count as characters, not bytes.
    let path = format!("/api/conversations/{id}/messages");
    app.json_ok(
        Method::POST,
        &path,
        &json!({"body": "ż".repeat(LIMIT)}),
        token,
        StatusCode::CREATED,
    )
    .await;

    // Starting a conversation.
    let response = app
        .post_json(
            "/api/conversations",
            &json!({"contact": {"email": "carla@example.org"}, "body": "b".repeat(LIMIT + 1)}),
            Some(token),
        )
        .await;
    problem_field(response).await;

    // The hub.
    let mut hub = app.hub(token).await;
    let refused = hub
        .invoke("1", "SendMessage", json!([id, "c".repeat(LIMIT + 1)]))
        .await;
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("10000")),
        "{refused}"
    );
    let refused = hub
        .invoke("2", "SendNote", json!([id, "c".repeat(LIMIT + 1)]))
        .await;
    assert!(
        refused["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{refused}"
    );

    // Nothing refused was written: 2 visitor messages, a reply and a note, one more reply.
    assert_eq!(message_count(&app, token, id).await, 5);
    let conversations = app.get_ok("/api/conversations", token).await;
    assert_eq!(conversations["conversations"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn the_openapi_document_states_the_limit() {
    let app = spawn_app().await;
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    for schema in ["MessageRequest", "NewVisitorMessage", "CreateConversation"] {
        assert_eq!(
            doc["components"]["schemas"][schema]["properties"]["body"]["maxLength"], LIMIT,
            "{schema}"
        );
    }
}
