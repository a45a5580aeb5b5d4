//! A verification link opened again: `409 already_verified` when the link worked and its
//! address is still the account's verified one (a second click, a mail scanner's visit), and
//! the usual `400 invalid_token` when it never worked or its address is no longer the
//! account's. Opening it again changes nothing.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{PASSWORD, assert_problem, spawn_app, unique_email};

#[tokio::test]
async fn a_used_link_of_the_verified_address_says_already_verified() {
    let app = spawn_app().await;
    let email = unique_email();
    let (user_token, user_id) = app.signed_up(&email).await;
    let token = app.verification_token(user_id).await.unwrap();
    assert_eq!(app.verify_email(&token).await.status(), StatusCode::OK);
    let before: Value = app.me(&user_token).await.json().await.unwrap();

    for _ in 0..2 {
        let problem = assert_problem(
            app.verify_email(&token).await,
            StatusCode::CONFLICT,
            "already_verified",
        )
        .await;
        assert!(
            problem["detail"]
                .as_str()
                .is_some_and(|d| d.contains("already verified")),
            "{problem}"
        );
    }
    let after: Value = app.me(&user_token).await.json().await.unwrap();
    assert_eq!(after, before);
    assert_eq!(after["email"], email);
    assert_eq!(app.count("outbox").await, 1, "nothing new is sent");
}

#[tokio::test]
async fn a_used_link_of_an_address_the_account_left_is_invalid() {
    let app = spawn_app().await;
    let (user_token, user_id) = app.signed_up(&unique_email()).await;
    let first = app.verification_token(user_id).await.unwrap();
    assert_eq!(app.verify_email(&first).await.status(), StatusCode::OK);

    // The account moves to another address and verifies it.
    let moved = app
        .post_json(
            "/auth/change-email",
            &json!({"newEmail": unique_email(), "password": PASSWORD}),
            Some(&user_token),
        )
        .await;
    assert_eq!(moved.status(), StatusCode::ACCEPTED);
    let second = app.verification_token(user_id).await.unwrap();
    assert_eq!(app.verify_email(&second).await.status(), StatusCode::OK);
    let me: Value = app.me(&user_token).await.json().await.unwrap();

    assert_problem(
        app.verify_email(&first).await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
    assert_problem(
        app.verify_email(&second).await,
        StatusCode::CONFLICT,
        "already_verified",
    )
    .await;
    let unchanged: Value = app.me(&user_token).await.json().await.unwrap();
    assert_eq!(unchanged, me);
}

#[tokio::test]
async fn an_unverified_account_with_an_expired_link_is_not_told_it_is_verified() {
    let app = spawn_app().await;
    let (user_token, user_id) = app.signed_up(&unique_email()).await;
    let token = app.verification_token(user_id).await.unwrap();
    sqlx::query("UPDATE public.email_verifications SET expires_at = now() - interval '1 second' WHERE user_id = $1")
        .bind(user_id)
        .execute(&app.db)
        .await
        .unwrap();

    assert_problem(
        app.verify_email(&token).await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
    let me: Value = app.me(&user_token).await.json().await.unwrap();
    assert_eq!(me["emailVerified"], false);
}
