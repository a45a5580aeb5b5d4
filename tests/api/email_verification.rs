use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{assert_problem, spawn_app, unique_email};

#[tokio::test]
async fn the_emailed_token_verifies_the_address_once() {
    let app = spawn_app().await;
    let (user_token, user_id) = app.signed_up(&unique_email()).await;
    let token = app
        .verification_token(user_id)
        .await
        .expect("a pending verification");

    let response = app.verify_email(&token).await;

    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert!(!body["message"].as_str().unwrap().is_empty());
    assert_eq!(body["status"], "verified");
    let me: Value = app.me(&user_token).await.json().await.unwrap();
    assert_eq!(me["emailVerified"], true);

    // Opened again (or first by a mail scanner): the address is already verified, and says so.
    let again = app.verify_email(&token).await;
    assert_eq!(again.status(), StatusCode::OK);
    let body: Value = again.json().await.unwrap();
    assert_eq!(body["status"], "already_verified");
    assert_eq!(body["message"], "Your email address is already verified.");
}

#[tokio::test]
async fn a_used_link_for_an_address_the_account_left_is_refused() {
    let app = spawn_app().await;
    let (user_token, user_id) = app.signed_up(&unique_email()).await;
    let first = app.verification_token(user_id).await.unwrap();
    assert_eq!(app.verify_email(&first).await.status(), StatusCode::OK);
    // The account moves to another address and verifies it.
    let response = app
        .post_json(
            "/auth/change-email",
            &serde_json::json!({"newEmail": unique_email(), "password": crate::helpers::PASSWORD}),
            Some(&user_token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let second = app.verification_token(user_id).await.unwrap();
    assert_eq!(app.verify_email(&second).await.status(), StatusCode::OK);
    // The old link names an address the account no longer has: no "already verified".
    assert_problem(
        app.verify_email(&first).await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
}

#[tokio::test]
async fn concurrent_uses_of_one_token_succeed_once() {
    let app = spawn_app().await;
    let (_, user_id) = app.signed_up(&unique_email()).await;
    let token = app.verification_token(user_id).await.unwrap();

    let responses = futures::future::join_all((0..8).map(|_| app.verify_email(&token))).await;

    let mut statuses = Vec::new();
    for response in responses {
        assert_eq!(response.status(), StatusCode::OK);
        let body: Value = response.json().await.unwrap();
        statuses.push(body["status"].as_str().unwrap().to_owned());
    }
    // One verified it; the others found it done.
    assert_eq!(
        statuses.iter().filter(|s| *s == "verified").count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| *s == "already_verified").count(),
        7
    );
}

#[tokio::test]
async fn an_expired_token_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let (user_token, user_id) = app.signed_up(&unique_email()).await;
    let token = app.verification_token(user_id).await.unwrap();
    sqlx::query("UPDATE public.email_verifications SET expires_at = now() - interval '1 second'")
        .execute(&app.db)
        .await
        .unwrap();

    let body = assert_problem(
        app.verify_email(&token).await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;

    assert!(
        body["detail"].as_str().unwrap().contains("new one"),
        "{body}"
    );
    let me: Value = app.me(&user_token).await.json().await.unwrap();
    assert_eq!(me["emailVerified"], false);
}

#[tokio::test]
async fn tokens_expire_after_24_hours() {
    let app = spawn_app().await;
    let (_, user_id) = app.signed_up(&unique_email()).await;
    let lifetime: f64 = sqlx::query_scalar(
        "SELECT extract(epoch FROM expires_at - created_at)::float8 FROM public.email_verifications WHERE user_id = $1",
    )
    .bind(user_id)
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert!((lifetime - 86_400.0).abs() < 5.0, "{lifetime}");
}

#[tokio::test]
async fn invalid_or_missing_tokens_are_a_bad_request() {
    let app = spawn_app().await;
    assert_problem(
        app.verify_email("not-a-token").await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
    assert_problem(
        app.verify_email("").await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
    assert_problem(
        app.get("/auth/verify-email", None).await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
}

#[tokio::test]
async fn a_malformed_query_string_is_a_problem_not_plain_text() {
    let app = spawn_app().await;
    let response = app.get("/auth/verify-email?token=a&token=b", None).await;
    assert_problem(response, StatusCode::BAD_REQUEST, "invalid_query").await;
}

#[tokio::test]
async fn verifying_and_resending_at_once_never_fails() {
    // Verify locks the user row before the token rows, as resend does; opposite orders
    // would deadlock under this interleaving.
    let app = spawn_app().await;
    for _ in 0..5 {
        let (user_token, user_id) = app.signed_up(&unique_email()).await;
        let token = app.verification_token(user_id).await.unwrap();
        let (verified, resent) = tokio::join!(
            app.verify_email(&token),
            app.resend_verification(&user_token)
        );
        assert!(
            [StatusCode::OK, StatusCode::BAD_REQUEST].contains(&verified.status()),
            "verify: {}",
            verified.status()
        );
        assert!(
            [StatusCode::ACCEPTED, StatusCode::CONFLICT].contains(&resent.status()),
            "resend: {}",
            resent.status()
        );
    }
}

#[tokio::test]
async fn the_database_never_holds_a_usable_token() {
    let app = spawn_app().await;
    let (_, user_id) = app.signed_up(&unique_email()).await;
    let token = app.verification_token(user_id).await.unwrap();

    let dump: String = sqlx::query_scalar(
        "SELECT concat_ws('|',
             (SELECT string_agg(t::text, '|') FROM public.email_verifications t),
             (SELECT string_agg(o::text, '|') FROM public.outbox o))",
    )
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert!(!dump.contains(&token), "the plaintext token is stored");
}

#[tokio::test]
async fn resending_voids_the_older_token() {
    let app = spawn_app().await;
    let (user_token, user_id) = app.signed_up(&unique_email()).await;
    let first = app.verification_token(user_id).await.unwrap();

    let response = app.resend_verification(&user_token).await;

    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let body: Value = response.json().await.unwrap();
    assert!(body["message"].is_string());
    let second = app.verification_token(user_id).await.unwrap();
    assert_ne!(first, second);
    assert_eq!(app.count("outbox").await, 2, "a second email is queued");
    assert_problem(
        app.verify_email(&first).await,
        StatusCode::BAD_REQUEST,
        "invalid_token",
    )
    .await;
    assert_eq!(app.verify_email(&second).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn resending_after_verification_is_a_conflict() {
    let app = spawn_app().await;
    let (user_token, user_id) = app.signed_up(&unique_email()).await;
    let token = app.verification_token(user_id).await.unwrap();
    app.verify_email(&token).await;

    let response = app.resend_verification(&user_token).await;

    assert_problem(response, StatusCode::CONFLICT, "already_verified").await;
    assert_eq!(app.count("outbox").await, 1);
}

#[tokio::test]
async fn resending_needs_a_user_token() {
    let app = spawn_app().await;
    let response = app
        .client
        .post(app.url("/auth/resend-verification"))
        .send()
        .await
        .unwrap();
    assert_problem(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn resending_is_rate_limited_per_user() {
    let app = spawn_app().await;
    let (user_token, _) = app.signed_up(&unique_email()).await;
    for _ in 0..5 {
        assert_eq!(
            app.resend_verification(&user_token).await.status(),
            StatusCode::ACCEPTED
        );
    }
    let response = app.resend_verification(&user_token).await;
    assert!(response.headers().contains_key("retry-after"));
    assert_problem(response, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    assert_eq!(
        app.count("outbox").await,
        6,
        "the refused resend queued nothing"
    );
}
