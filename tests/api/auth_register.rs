use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{PASSWORD, assert_problem, spawn_app, unique_email};

#[tokio::test]
async fn register_returns_a_user_token_and_the_user() {
    let app = spawn_app().await;
    let email = unique_email();

    let response = app.register(&email, PASSWORD, "Ann Smith").await;

    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    assert!(
        body["token"].as_str().unwrap().split('.').count() == 3,
        "a JWT: {body}"
    );
    let user = &body["user"];
    assert_eq!(user["email"], email);
    assert_eq!(user["fullName"], "Ann Smith");
    assert_eq!(user["emailVerified"], false);
    assert!(user["id"].as_str().is_some());
    let created_at = user["createdAt"].as_str().unwrap();
    assert!(created_at.ends_with('Z'), "UTC ISO 8601: {created_at}");
    time::OffsetDateTime::parse(created_at, &time::format_description::well_known::Rfc3339)
        .expect("ISO 8601 timestamp");
}

#[tokio::test]
async fn register_normalises_the_email() {
    let app = spawn_app().await;
    let response = app
        .register("  Ann.Smith@Example.COM ", PASSWORD, "Ann")
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["user"]["email"], "ann.smith@example.com");
}

#[tokio::test]
async fn register_queues_one_verification_email_in_the_same_transaction() {
    let app = spawn_app().await;
    let (_, user_id) = app.signed_up(&unique_email()).await;

    assert_eq!(app.count("outbox").await, 1);
    assert_eq!(app.count("email_verifications").await, 1);
    assert!(app.verification_token(user_id).await.is_some());
}

#[tokio::test]
async fn when_the_email_cannot_be_queued_the_account_is_not_created() {
    let app = spawn_app().await;
    // Every outbox insert now fails: the user row must roll back with it.
    sqlx::query("ALTER TABLE public.outbox ADD CONSTRAINT refuse_all CHECK (false) NOT VALID")
        .execute(&app.db)
        .await
        .unwrap();

    let response = app.register(&unique_email(), PASSWORD, "Ann").await;

    let body = assert_problem(
        response,
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal_error",
    )
    .await;
    assert!(
        !body["detail"].as_str().unwrap().contains("refuse_all"),
        "{body}"
    );
    assert_eq!(app.count("users").await, 0);
    assert_eq!(app.count("email_verifications").await, 0);
}

#[tokio::test]
async fn registrations_are_throttled_per_client() {
    let app = spawn_app().await;
    for i in 0..30 {
        let response = app.register(&unique_email(), PASSWORD, "Ann").await;
        assert_eq!(response.status(), StatusCode::CREATED, "registration {i}");
    }
    let response = app.register(&unique_email(), PASSWORD, "Ann").await;
    assert!(response.headers().contains_key("retry-after"));
    assert_problem(response, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    assert_eq!(app.count("users").await, 30);
}

#[tokio::test]
async fn duplicate_email_in_another_case_is_a_conflict_and_changes_nothing() {
    let app = spawn_app().await;
    app.signed_up("ann@example.com").await;

    let response = app.register("ANN@Example.com", PASSWORD, "Other Ann").await;

    let body = assert_problem(response, StatusCode::CONFLICT, "email_taken").await;
    assert!(body["detail"].as_str().unwrap().contains("already exists"));
    assert_eq!(app.count("users").await, 1);
    assert_eq!(app.count("outbox").await, 1, "no second email queued");
}

#[tokio::test]
async fn each_password_rule_is_enforced_with_its_own_message() {
    let app = spawn_app().await;
    let cases = [
        ("Sh0rtPw", "must be at least 8 characters"),
        ("nouppercase1", "must contain an upper-case letter"),
        ("NOLOWERCASE1", "must contain a lower-case letter"),
        ("NoDigitsHere", "must contain a digit"),
    ];
    for (password, message) in cases {
        let response = app.register(&unique_email(), password, "Ann").await;
        let body = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert_eq!(
            body["errors"]["password"],
            json!([message]),
            "{password}: {body}"
        );
    }
    // Exactly eight characters with all three classes passes.
    let response = app.register(&unique_email(), "Abcdefg1", "Ann").await;
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(app.count("users").await, 1);
}

#[tokio::test]
async fn every_invalid_field_is_reported_at_once() {
    let app = spawn_app().await;
    let response = app.register("not-an-email", "short", "   ").await;
    let body = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    let errors = body["errors"].as_object().unwrap();
    assert!(errors.contains_key("email"), "{body}");
    assert!(errors.contains_key("password"), "{body}");
    assert!(errors.contains_key("fullName"), "{body}");
    assert_eq!(app.count("users").await, 0);
    assert_eq!(app.count("outbox").await, 0);
}

#[tokio::test]
async fn missing_fields_are_a_bad_request() {
    let app = spawn_app().await;
    for body in [
        json!({"password": PASSWORD, "fullName": "Ann"}),
        json!({"email": unique_email(), "fullName": "Ann"}),
        json!({"email": unique_email(), "password": PASSWORD}),
        json!({"email": 42, "password": PASSWORD, "fullName": "Ann"}),
        json!([]),
    ] {
        let response = app.post_json("/auth/register", &body, None).await;
        let problem = assert_problem(response, StatusCode::BAD_REQUEST, "invalid_body").await;
        assert!(
            !problem["detail"].as_str().unwrap().contains("sqlx"),
            "{problem}"
        );
    }
    assert_eq!(app.count("users").await, 0);
}
