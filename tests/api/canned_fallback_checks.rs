//! A canned response whose known placeholder carries a filter that is not a readable
//! fallback is refused when saved (created or changed), naming `body`, and nothing changes:
//! left as written it would reach a contact verbatim. Unknown names and other braces stay
//! text, as they always were.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::{assert_problem, spawn_app};
use crate::helpers_conversations::id;

#[tokio::test]
async fn an_unreadable_fallback_is_refused_on_create_and_update() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("fallback-checks").await;
    let token = owner.workspace_token.as_str();

    for body in [
        "Hi {{contact.name | fallback: there}}",
        "Hi {{contact.name | fallback: 'there}}",
        "Hi {{ workspace.name | default: 'us' }}",
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
        assert!(message.contains("fallback: \"there\""), "{body}: {problem}");
    }
    let listed = app.get_ok("/api/canned-responses", token).await;
    assert_eq!(listed["cannedResponses"], json!([]));

    let saved = app
        .json_ok(
            Method::POST,
            "/api/canned-responses",
            &json!({"shortCode": "hi", "title": "Hi", "body": "{{unknown | x}} {{ }} {{contact.name | fallback: 'there'}}"}),
            token,
            StatusCode::CREATED,
        )
        .await;
    let path = format!("/api/canned-responses/{}", id(&saved));
    let refused = app
        .patch_json(
            &path,
            &json!({"body": "{{agent.displayName | fallback: \"x\" y}}"}),
            Some(token),
        )
        .await;
    assert_problem(refused, StatusCode::BAD_REQUEST, "validation_failed").await;
    assert_eq!(
        app.get_ok(&path, token).await["body"],
        "{{unknown | x}} {{ }} {{contact.name | fallback: 'there'}}"
    );
}
