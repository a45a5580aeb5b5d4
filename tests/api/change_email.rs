//! `POST /auth/change-email`: the password again, a verification to the new address, and no
//! change until it is verified.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{PASSWORD, assert_problem, spawn_app, unique_email};

#[tokio::test]
async fn the_email_changes_only_when_the_new_address_is_verified() {
    let app = spawn_app().await;
    let old = unique_email();
    let (token, user_id) = app.signed_up(&old).await;
    let new = unique_email();
    let response = app
        .post_json(
            "/auth/change-email",
            &json!({"newEmail": new.to_uppercase(), "password": PASSWORD}),
            Some(&token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert!(response.json::<Value>().await.unwrap()["message"].is_string());

    // Not yet: the account still signs in with the old address only.
    let me: Value = app.me(&token).await.json().await.unwrap();
    assert_eq!(me["email"], old);
    assert_eq!(
        app.login(&new, PASSWORD).await.status(),
        StatusCode::UNAUTHORIZED
    );

    let verification: String = sqlx::query_scalar(
        "SELECT email FROM public.email_verifications WHERE user_id = $1 AND consumed_at IS NULL",
    )
    .bind(user_id)
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(
        verification, new,
        "the verification goes to the new address"
    );
    let link_token = app.verification_token(user_id).await.unwrap();
    assert_eq!(app.verify_email(&link_token).await.status(), StatusCode::OK);

    let me: Value = app.me(&token).await.json().await.unwrap();
    assert_eq!(me["email"], new);
    assert_eq!(me["emailVerified"], true);
    assert_eq!(app.login(&new, PASSWORD).await.status(), StatusCode::OK);
    assert_eq!(
        app.login(&old, PASSWORD).await.status(),
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn wrong_password_taken_or_same_address_change_nothing() {
    let app = spawn_app().await;
    let email = unique_email();
    let (token, _) = app.signed_up(&email).await;
    let (_, _) = app.signed_up("taken@example.com").await;
    let outbox = app.count("outbox").await;

    assert_problem(
        app.post_json(
            "/auth/change-email",
            &json!({"newEmail": unique_email(), "password": "Wr0ngPassword"}),
            Some(&token),
        )
        .await,
        StatusCode::FORBIDDEN,
        "wrong_password",
    )
    .await;
    assert_problem(
        app.post_json(
            "/auth/change-email",
            &json!({"newEmail": "Taken@Example.com", "password": PASSWORD}),
            Some(&token),
        )
        .await,
        StatusCode::CONFLICT,
        "email_taken",
    )
    .await;
    for body in [
        json!({"newEmail": email, "password": PASSWORD}),
        json!({"newEmail": "not an email", "password": PASSWORD}),
    ] {
        assert_problem(
            app.post_json("/auth/change-email", &body, Some(&token))
                .await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
    }
    assert_problem(
        app.post_json(
            "/auth/change-email",
            &json!({"newEmail": unique_email()}),
            Some(&token),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "invalid_body",
    )
    .await;
    assert_eq!(app.count("outbox").await, outbox);

    // A workspace token is the wrong credential; none at all is unauthorised.
    let owner = app.owner_with_workspace("acme").await;
    assert_problem(
        app.post_json(
            "/auth/change-email",
            &json!({"newEmail": unique_email(), "password": PASSWORD}),
            Some(&owner.workspace_token),
        )
        .await,
        StatusCode::FORBIDDEN,
        "wrong_token_type",
    )
    .await;
    assert_problem(
        app.post_json(
            "/auth/change-email",
            &json!({"newEmail": unique_email(), "password": PASSWORD}),
            None,
        )
        .await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
}
