//! The password-reset journey: the API takes the request, the worker emails the link, and
//! the link sets a new password, once, signing the account out everywhere.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::harness::{PASSWORD, stack, unique_email};

const NEW_PASSWORD: &str = "N3wCorrectHorse";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forgotten_password_is_reset_through_the_emailed_link() {
    let stack = stack(&[]).await;
    let email = unique_email();
    let (old_token, _) = stack.register(&email).await;
    // The verification email comes first; the account stays unverified.
    stack.sink.wait_for(1, Duration::from_secs(15)).await;

    let (status, _) = stack
        .call(
            Method::POST,
            "/auth/forgot-password",
            None,
            Some(json!({ "email": email })),
        )
        .await;
    assert_eq!(status, 202);
    let received = stack.sink.wait_for(2, Duration::from_secs(15)).await;

    let mail = &received[1];
    assert_eq!(mail.rcpt_to, std::slice::from_ref(&email));
    assert_eq!(mail.subject(), "Reset your Support Desk password");
    let (text, html) = (mail.text(), mail.html());
    assert!(text.contains("Hello Ann <Smith>,"), "{text}");
    assert!(text.contains("valid for 1 hour"), "{text}");
    assert!(
        text.contains("If you did not ask, ignore this email; your password is unchanged."),
        "{text}"
    );
    let token = mail
        .token_in_link("http://desk.test/reset-password")
        .expect("a reset link");
    assert_eq!(token.len(), 43);
    assert!(
        html.contains(&format!("http://desk.test/reset-password?token={token}")),
        "{html}"
    );

    let (status, body) = stack
        .call(
            Method::POST,
            "/auth/reset-password",
            None,
            Some(json!({ "token": token, "password": NEW_PASSWORD })),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    let login = |password: &'static str| {
        stack.call(
            Method::POST,
            "/auth/login",
            None,
            Some(json!({ "email": email, "password": password })),
        )
    };
    let (status, logged_in) = login(NEW_PASSWORD).await;
    assert_eq!(status, 200, "{logged_in}");
    let (status, _) = login(PASSWORD).await;
    assert_eq!(status, 401, "the old password no longer works");
    let (status, _) = stack
        .call(Method::GET, "/auth/me", Some(&old_token), None)
        .await;
    assert_eq!(status, 401, "a token issued before the reset is refused");
    let new_token = logged_in["token"].as_str().expect("a token");
    let (status, me) = stack
        .call(Method::GET, "/auth/me", Some(new_token), None)
        .await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["emailVerified"], true, "the reset proved the inbox");

    let (status, body) = stack
        .call(
            Method::POST,
            "/auth/reset-password",
            None,
            Some(json!({ "token": token, "password": "An0therCorrectHorse" })),
        )
        .await;
    assert_eq!(status, 400, "the link works once: {body}");
    let rows = stack.outbox().await;
    assert!(
        rows.iter().all(|r| r.1.as_deref() == Some("done")),
        "{rows:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_address_gets_the_same_answer_and_no_email() {
    let stack = stack(&[]).await;
    let known = unique_email();
    stack.register(&known).await;
    stack.sink.wait_for(1, Duration::from_secs(15)).await;

    let (unknown_status, unknown_body) = stack
        .call(
            Method::POST,
            "/auth/forgot-password",
            None,
            Some(json!({ "email": unique_email() })),
        )
        .await;
    assert_eq!(stack.outbox().await.len(), 1, "nothing queued for nobody");
    let (known_status, known_body) = stack
        .call(
            Method::POST,
            "/auth/forgot-password",
            None,
            Some(json!({ "email": known })),
        )
        .await;
    assert_eq!(known_status, 202);
    assert_eq!(
        (unknown_status, &unknown_body),
        (known_status, &known_body),
        "the same answer either way"
    );

    // The known address's email arrives; nothing else does.
    let received = stack.sink.wait_for(2, Duration::from_secs(15)).await;
    assert_eq!(received[1].rcpt_to, [known]);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(stack.sink.received().len(), 2);
    assert_eq!(stack.outbox().await.len(), 2);
}
