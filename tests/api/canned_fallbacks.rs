//! Canned responses' placeholder fallbacks: `{{contact.name | fallback: "there"}}` renders
//! the fallback for a contact without a name and the name otherwise; a malformed fallback is
//! refused when the body is saved (created or changed), naming `body`, and changes nothing.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app};
use crate::helpers_conversations::id;
use crate::helpers_widget::SITE;

async fn render(app: &TestApp, token: &str, template: &Value, conversation: &str) -> String {
    let rendered = app
        .json_ok(
            Method::POST,
            &format!("/api/canned-responses/{}/render", id(template)),
            &json!({ "conversationId": conversation }),
            token,
            StatusCode::OK,
        )
        .await;
    rendered["body"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_contact_without_a_name_gets_the_fallback() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("fallbacks").await;
    let token = owner.workspace_token.as_str();
    let template = app
        .json_ok(
            Method::POST,
            "/api/canned-responses",
            &json!({
                "shortCode": "hi",
                "title": "Hi",
                "body": "Hi {{ contact.name | fallback: 'there' }}, {{agent.displayName|fallback:\"us\"}} here.",
            }),
            token,
            StatusCode::CREATED,
        )
        .await;
    let named = app
        .start_conversation(token, "carla@example.org", "x")
        .await;
    let unnamed = app
        .json_ok(
            Method::POST,
            "/api/conversations",
            &json!({"contact": {"email": "anon@example.org"}, "body": "x"}),
            token,
            StatusCode::CREATED,
        )
        .await;
    // A widget visitor: no name and no address, only a friendly display name.
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    let chat = app.visitor_said(&visitor, "Hello?").await.to_string();

    assert_eq!(
        render(&app, token, &template, &id(&named)).await,
        "Hi Carla, Test User here."
    );
    assert_eq!(
        render(&app, token, &template, &id(&unnamed)).await,
        "Hi there, Test User here."
    );
    assert_eq!(
        render(&app, token, &template, &chat).await,
        "Hi there, Test User here."
    );
}

#[tokio::test]
async fn a_malformed_fallback_is_refused_on_save_and_changes_nothing() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("fallbacks-bad").await;
    let token = owner.workspace_token.as_str();

    for body in [
        "Hi {{contact.name | fallback: there}}",
        "Hi {{contact.name | fallback: 'there}}",
        "Hi {{contact.name | default: 'there'}}",
        "Hi {{contact.name",
    ] {
        let refused = app
            .post_json(
                "/api/canned-responses",
                &json!({"shortCode": "hi", "title": "Hi", "body": body}),
                Some(token),
            )
            .await;
        let problem = assert_problem(refused, StatusCode::BAD_REQUEST, "validation_failed").await;
        let message = problem["errors"]["body"][0].as_str().unwrap_or_default();
        assert!(message.contains("fallback"), "{body}: {problem}");
    }
    let listed = app.get_ok("/api/canned-responses", token).await;
    assert_eq!(listed["cannedResponses"], json!([]));

    // Unknown names and stray braces stay what they always were: text.
    let saved = app
        .json_ok(
            Method::POST,
            "/api/canned-responses",
            &json!({"shortCode": "hi", "title": "Hi", "body": "{{unknown | x}} {{ }}"}),
            token,
            StatusCode::CREATED,
        )
        .await;
    let path = format!("/api/canned-responses/{}", id(&saved));
    let refused = app
        .patch_json(
            &path,
            &json!({"body": "{{workspace.name | fallback: \"x\" y}}"}),
            Some(token),
        )
        .await;
    assert_problem(refused, StatusCode::BAD_REQUEST, "validation_failed").await;
    assert_eq!(
        app.get_ok(&path, token).await["body"],
        "{{unknown | x}} {{ }}"
    );
}
