//! Limits on what an account can make the product do for it: unverified accounts neither send
//! invitations nor farm workspaces, workspaces per account are capped and rate-limited,
//! addresses the mailer cannot send to are refused up front, and canned-response rendering
//! is linear and rate-limited (security review, findings 2, 4 and 8).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app, spawn_app_with, unique_email};
use crate::helpers_conversations::id;

#[tokio::test]
async fn an_unverified_owner_can_neither_invite_nor_own_a_second_workspace() {
    let app = spawn_app().await;
    let (token, user_id) = app.signed_up(&unique_email()).await;
    let created = app.create_workspace(&token, "Trial", Some("trial")).await;
    assert_eq!(created.status(), StatusCode::CREATED, "one is allowed");
    let workspace_id = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let selected: Value = app
        .select(&token, &workspace_id)
        .await
        .json()
        .await
        .unwrap();
    let workspace_token = selected["token"].as_str().unwrap();

    assert_problem(
        app.invite(workspace_token, &unique_email(), "agent").await,
        StatusCode::FORBIDDEN,
        "email_not_verified",
    )
    .await;
    assert_eq!(app.count("invitations").await, 0);
    assert_eq!(app.count("outbox").await, 1, "only the verification email");
    // A key minted by the unverified Owner is no way around it.
    let (_, key) = app.api_key(workspace_token).await;
    assert_problem(
        app.invite(&key, &unique_email(), "agent").await,
        StatusCode::FORBIDDEN,
        "email_not_verified",
    )
    .await;

    assert_problem(
        app.create_workspace(&token, "Second", Some("second")).await,
        StatusCode::FORBIDDEN,
        "email_not_verified",
    )
    .await;
    assert_eq!(app.count("workspaces").await, 1);

    // Proving the inbox lifts both.
    let verification = app.verification_token(user_id).await.unwrap();
    assert_eq!(
        app.verify_email(&verification).await.status(),
        StatusCode::OK
    );
    assert_eq!(
        app.invite(workspace_token, &unique_email(), "agent")
            .await
            .status(),
        StatusCode::CREATED
    );
    assert_eq!(
        app.create_workspace(&token, "Second", Some("second"))
            .await
            .status(),
        StatusCode::CREATED
    );
}

#[tokio::test]
async fn workspaces_per_account_are_capped_and_their_creation_rate_limited() {
    let app = spawn_app_with(&[
        ("MAX_WORKSPACES_PER_USER", "3"),
        ("WORKSPACE_CREATES_PER_HOUR", "0"),
    ])
    .await;
    let (token, user_id) = app.verified_user(&unique_email()).await;
    for i in 0..3 {
        let created = app.create_workspace(&token, &format!("W{i}"), None).await;
        assert_eq!(created.status(), StatusCode::CREATED, "{i}");
    }
    let body = assert_problem(
        app.create_workspace(&token, "One too many", None).await,
        StatusCode::FORBIDDEN,
        "workspace_limit_reached",
    )
    .await;
    assert!(body["detail"].as_str().unwrap().contains('3'), "{body}");
    assert_eq!(app.count("workspaces").await, 3);
    // Operators provisioning for the account are not bound by it.
    supportdesk::workspaces::provision::create_workspace(
        &app.db,
        "By the operator",
        None,
        user_id,
        None,
    )
    .await
    .expect("the operator's create is not capped");

    let limited = spawn_app_with(&[
        ("MAX_WORKSPACES_PER_USER", "100"),
        ("WORKSPACE_CREATES_PER_HOUR", "2"),
    ])
    .await;
    let (token, _) = limited.verified_user(&unique_email()).await;
    for i in 0..2 {
        let created = limited
            .create_workspace(&token, &format!("W{i}"), None)
            .await;
        assert_eq!(created.status(), StatusCode::CREATED, "{i}");
    }
    let response = limited.create_workspace(&token, "Third", None).await;
    assert!(response.headers().contains_key("retry-after"));
    assert_problem(response, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    assert_eq!(limited.count("workspaces").await, 2);
}

#[tokio::test]
async fn addresses_the_mailer_refuses_are_refused_at_the_door() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    for bad in ["postmaster@[127.0.0.1]", "\"a b\"@example.com"] {
        let body = assert_problem(
            app.invite(&owner.workspace_token, bad, "agent").await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
        assert!(body["errors"]["email"].is_array(), "{body}");
        assert_problem(
            app.register(bad, crate::helpers::PASSWORD, "Someone").await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
    }
    assert_eq!(app.count("invitations").await, 0);
}

#[tokio::test]
async fn rendering_is_linear_in_the_body_and_rate_limited_per_member() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.as_str();
    // The body that took half a second per render when the search for `}}` was quadratic.
    let body = format!("{}{{{{contact.name}}}}", "{{".repeat(24_990));
    let template = app
        .json_ok(
            Method::POST,
            "/api/canned-responses",
            &json!({"shortCode": "braces", "title": "Braces", "body": body}),
            token,
            StatusCode::CREATED,
        )
        .await;
    let conversation = app
        .start_conversation(token, "carla@example.com", "Hello")
        .await;
    let render = format!("/api/canned-responses/{}/render", id(&template));
    let request = json!({"conversationId": id(&conversation)});
    let rendered = app
        .json_ok(Method::POST, &render, &request, token, StatusCode::OK)
        .await;
    let filled = rendered["body"].as_str().unwrap();
    assert!(
        filled.starts_with(&"{{".repeat(24_990)) && !filled.contains("contact.name"),
        "the openings are copied through and the placeholder filled"
    );
    // The limit is the member's, whatever they render: a short template fills it quickly
    // (the window is a minute), and then the long one is refused too.
    let short = app
        .json_ok(
            Method::POST,
            "/api/canned-responses",
            &json!({"shortCode": "short", "title": "Short", "body": "Hi {{contact.name}}"}),
            token,
            StatusCode::CREATED,
        )
        .await;
    let render_short = format!("/api/canned-responses/{}/render", id(&short));
    for _ in 1..120 {
        let response = app.post_json(&render_short, &request, Some(token)).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
    let response = app.post_json(&render, &request, Some(token)).await;
    assert!(response.headers().contains_key("retry-after"));
    assert_problem(response, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}
