//! `POST /invitations/preview`: the join page learns, from the link's token alone, which
//! workspace, who invited, the invited address and role, and until when. A token that accept
//! would refuse is refused the same way, and previewing changes nothing.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app, unique_email};

async fn preview(app: &TestApp, token: &str) -> reqwest::Response {
    app.post_json("/invitations/preview", &json!({ "token": token }), None)
        .await
}

#[tokio::test]
async fn the_link_names_the_workspace_the_inviter_and_the_role() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("preview").await;
    let email = unique_email();
    let token = app.invited(&owner.workspace_token, &email, "agent").await;

    let response = preview(&app, &token).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["workspaceName"], "Workspace preview", "{body}");
    assert_eq!(
        body["invitedBy"],
        json!({"displayName": "Test User"}),
        "{body}"
    );
    assert_eq!(body["email"], email);
    assert_eq!(body["role"], "agent");
    assert!(
        body["expiresAt"]
            .as_str()
            .is_some_and(|at| at.ends_with('Z')),
        "{body}"
    );
    let keys: Vec<&String> = body.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 5, "nothing more than the email told: {body}");

    // Previewing twice changes nothing: the invitation can still be accepted.
    assert_eq!(preview(&app, &token).await.status(), StatusCode::OK);
    let accepted = app
        .accept(
            &json!({"token": token, "fullName": "Bea Jones", "password": "Corr3ctHorse"}),
            None,
        )
        .await;
    assert_eq!(accepted.status(), StatusCode::CREATED);
    // Used: refused as accept refuses it.
    assert_problem(
        preview(&app, &token).await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
}

#[tokio::test]
async fn an_invitation_sent_with_an_api_key_has_no_inviter() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("preview-key").await;
    let (_, key) = app.api_key(&owner.workspace_token).await;
    let token = app.invited(&key, &unique_email(), "agent").await;

    let body: Value = preview(&app, &token).await.json().await.unwrap();
    assert_eq!(body["invitedBy"], Value::Null, "{body}");
}

#[tokio::test]
async fn unknown_expired_and_revoked_tokens_are_refused_like_accept() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("preview-dead").await;
    for token in ["", "not-a-token", &"x".repeat(200)] {
        assert_problem(
            preview(&app, token).await,
            StatusCode::BAD_REQUEST,
            "invalid_token",
        )
        .await;
    }

    let expired = app
        .invited(&owner.workspace_token, &unique_email(), "agent")
        .await;
    sqlx::query("UPDATE public.invitations SET expires_at = now() - interval '1 second'")
        .execute(&app.db)
        .await
        .unwrap();
    assert_problem(
        preview(&app, &expired).await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;

    // Re-inviting the address revokes the first link.
    let email = unique_email();
    let first = app.invited(&owner.workspace_token, &email, "agent").await;
    let second = app.invited(&owner.workspace_token, &email, "admin").await;
    assert_problem(
        preview(&app, &first).await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
    let body: Value = preview(&app, &second).await.json().await.unwrap();
    assert_eq!(body["role"], "admin");

    // The body is checked like any other.
    let response = app
        .post_json(
            "/invitations/preview",
            &json!({"token": second, "x": 1}),
            None,
        )
        .await;
    assert_problem(response, StatusCode::BAD_REQUEST, "invalid_body").await;
}

#[tokio::test]
async fn previews_are_rate_limited_per_client() {
    let app = spawn_app().await;
    for _ in 0..60 {
        let response = preview(&app, "not-a-token").await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    }
    let limited = preview(&app, "not-a-token").await;
    assert!(limited.headers().contains_key("retry-after"));
    assert_problem(limited, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}
