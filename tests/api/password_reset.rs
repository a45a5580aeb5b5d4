//! `POST /auth/forgot-password` and `POST /auth/reset-password`: the same answer for known
//! and unknown addresses, throttled; a reset proves the inbox and revokes every earlier
//! token, user and workspace tokens alike, on every replica (security review, finding 3).

use reqwest::StatusCode;
use serde_json::{Value, json};
use supportdesk_core::email_tokens::EmailTokenKey;
use supportdesk_core::outbox::messages::password_reset;
use uuid::Uuid;

use crate::helpers::{PASSWORD, TestApp, assert_problem, spawn_app, spawn_replica, unique_email};

const NEW_PASSWORD: &str = "N3wCorrectHorse";

impl TestApp {
    async fn forgot(&self, email: &str) -> reqwest::Response {
        self.post_json("/auth/forgot-password", &json!({ "email": email }), None)
            .await
    }

    async fn reset(&self, token: &str, password: &str) -> reqwest::Response {
        self.post_json(
            "/auth/reset-password",
            &json!({ "token": token, "password": password }),
            None,
        )
        .await
    }

    /// The token of the newest reset email queued for `user_id`, derived as the worker does.
    async fn reset_token(&self, user_id: Uuid) -> Option<String> {
        let id = self
            .newest_email_row(
                "password_reset_email",
                "resetId",
                "password_resets",
                user_id,
            )
            .await?;
        let key = EmailTokenKey::derive(&self.settings.email.token_secret);
        password_reset::pending(&self.db, &key, id)
            .await
            .expect("pending reset")
            .map(|p| p.token)
    }
}

#[tokio::test]
async fn known_and_unknown_addresses_get_the_same_answer() {
    let app = spawn_app().await;
    let email = unique_email();
    let (_, user_id) = app.signed_up(&email).await;

    let known = app.forgot(&email.to_uppercase()).await;
    assert_eq!(known.status(), StatusCode::ACCEPTED);
    let known: Value = known.json().await.unwrap();
    let unknown = app.forgot(&unique_email()).await;
    assert_eq!(unknown.status(), StatusCode::ACCEPTED);
    assert_eq!(unknown.json::<Value>().await.unwrap(), known);

    assert_eq!(app.count("password_resets").await, 1);
    assert!(app.reset_token(user_id).await.is_some());
    let queued: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM public.outbox WHERE kind = 'password_reset_email'",
    )
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(queued, 1, "nothing is queued for the unknown address");

    assert_problem(
        app.forgot("not an address").await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
    )
    .await;
}

#[tokio::test]
async fn requests_are_throttled_per_address_whether_or_not_it_has_an_account() {
    let app = spawn_app().await;
    for email in [unique_email(), {
        let email = unique_email();
        app.signed_up(&email).await;
        email
    }] {
        for _ in 0..5 {
            assert_eq!(app.forgot(&email).await.status(), StatusCode::ACCEPTED);
        }
        let response = app.forgot(&email).await;
        assert!(response.headers().contains_key("retry-after"));
        assert_problem(response, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    }
}

#[tokio::test]
async fn a_reset_sets_the_password_verifies_the_email_and_revokes_every_earlier_token() {
    let app = spawn_app().await;
    let replica = spawn_replica(&app).await;
    // Somebody registered the address first (squatting), and set up a workspace.
    let email = unique_email();
    let (squatter_token, user_id) = app.signed_up(&email).await;
    let created: Value = app
        .create_workspace(&squatter_token, "Squat", Some("squat"))
        .await
        .json()
        .await
        .unwrap();
    let workspace = created["id"].as_str().unwrap();
    let selected: Value = app
        .select(&squatter_token, workspace)
        .await
        .json()
        .await
        .unwrap();
    let workspace_token = selected["token"].as_str().unwrap().to_owned();
    let on_replica = |path: &str, token: &str| {
        app.client
            .get(format!("{}{path}", replica.address))
            .bearer_auth(token.to_owned())
            .send()
    };
    // Both replicas have the membership cached.
    assert_eq!(
        app.get("/api/agents", Some(&workspace_token))
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        on_replica("/api/agents", &workspace_token)
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );

    // The real owner of the inbox asks for a reset.
    assert_eq!(app.forgot(&email).await.status(), StatusCode::ACCEPTED);
    let token = app.reset_token(user_id).await.expect("a reset email");
    // A password breaking the rule changes nothing and keeps the token usable.
    assert_problem(
        app.reset(&token, "short").await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
    )
    .await;
    let reset = app.reset(&token, NEW_PASSWORD).await;
    assert_eq!(reset.status(), StatusCode::OK);
    assert!(
        reset.json::<Value>().await.unwrap()["message"]
            .as_str()
            .is_some()
    );

    // Every token issued before is refused, here and on the replica.
    for response in [
        app.me(&squatter_token).await,
        app.get("/workspaces", Some(&squatter_token)).await,
        app.get("/api/agents", Some(&workspace_token)).await,
        on_replica("/api/agents", &workspace_token).await.unwrap(),
        on_replica("/auth/me", &squatter_token).await.unwrap(),
    ] {
        assert_problem(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
    // The old password is gone, the new one signs in, and the inbox counts as proved.
    assert_eq!(
        app.login(&email, PASSWORD).await.status(),
        StatusCode::UNAUTHORIZED
    );
    let login = app.login(&email, NEW_PASSWORD).await;
    assert_eq!(login.status(), StatusCode::OK);
    let login: Value = login.json().await.unwrap();
    assert_eq!(login["user"]["emailVerified"], true);
    let fresh = login["token"].as_str().unwrap();
    assert_eq!(app.me(fresh).await.status(), StatusCode::OK);
    let selected: Value = app.select(fresh, workspace).await.json().await.unwrap();
    let fresh_workspace = selected["token"].as_str().unwrap();
    assert_eq!(
        on_replica("/api/agents", fresh_workspace)
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );

    // The link works once.
    assert_problem(
        app.reset(&token, "An0therPassword").await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
}

#[tokio::test]
async fn expired_superseded_and_made_up_tokens_are_refused() {
    let app = spawn_app().await;
    let email = unique_email();
    let (_, user_id) = app.signed_up(&email).await;
    app.forgot(&email).await;
    let first = app.reset_token(user_id).await.unwrap();
    app.forgot(&email).await;
    let second = app.reset_token(user_id).await.unwrap();
    assert_problem(
        app.reset(&first, NEW_PASSWORD).await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
    sqlx::query("UPDATE public.password_resets SET expires_at = now() - interval '1 second'")
        .execute(&app.db)
        .await
        .unwrap();
    assert_problem(
        app.reset(&second, NEW_PASSWORD).await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
    assert_problem(
        app.reset("made-up", NEW_PASSWORD).await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
    assert_eq!(
        app.login(&email, PASSWORD).await.status(),
        StatusCode::OK,
        "the password is unchanged"
    );
}
