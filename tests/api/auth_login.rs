use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{PASSWORD, assert_problem, spawn_app, spawn_app_with, unique_email};

#[tokio::test]
async fn login_with_valid_credentials_returns_a_user_token() {
    let app = spawn_app().await;
    let email = unique_email();
    let (_, user_id) = app.signed_up(&email).await;

    let response = app.login(&email.to_uppercase(), PASSWORD).await;

    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["user"]["id"], user_id.to_string());
    assert_eq!(body["user"]["email"], email);
    let token = body["token"].as_str().unwrap();
    assert_eq!(app.me(token).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn wrong_password_and_unknown_email_are_indistinguishable() {
    let app = spawn_app().await;
    let email = unique_email();
    app.signed_up(&email).await;

    let wrong_password = app.login(&email, "Wr0ngPassword").await;
    assert_eq!(
        wrong_password.headers()["www-authenticate"],
        "Bearer",
        "401 carries WWW-Authenticate"
    );
    let wrong_password =
        assert_problem(wrong_password, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let unknown = assert_problem(
        app.login(&unique_email(), PASSWORD).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    let malformed = assert_problem(
        app.login("not an email", PASSWORD).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    assert_eq!(wrong_password["detail"], unknown["detail"]);
    assert_eq!(wrong_password["detail"], malformed["detail"]);
}

#[tokio::test]
async fn an_unknown_email_still_pays_for_one_password_verify() {
    let app = spawn_app().await;
    let email = unique_email();
    app.signed_up(&email).await;
    let hasher = &app.state.passwords;

    for (login_email, password) in [
        (email.as_str(), "Wr0ngPassword"),
        ("nobody@example.com", PASSWORD),
        ("not an email", PASSWORD),
    ] {
        let before = hasher.operations();
        let response = app.login(login_email, password).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(hasher.operations(), before + 1, "{login_email}");
    }
}

#[tokio::test]
async fn ipv6_clients_share_a_limit_across_their_64() {
    let app = spawn_app_with(&[("TRUSTED_PROXIES", "127.0.0.1/32,::1")]).await;
    let email = unique_email();
    for host in 1..=10 {
        let client = format!("2001:db8:aa:bb::{host:x}");
        let response = app.login_via(&email, PASSWORD, Some(&client)).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{client}");
    }
    let same_network = app
        .login_via(&email, PASSWORD, Some("2001:db8:aa:bb:ffff::1"))
        .await;
    assert_eq!(same_network.status(), StatusCode::TOO_MANY_REQUESTS);
    let other_network = app
        .login_via(&email, PASSWORD, Some("2001:db8:aa:bc::1"))
        .await;
    assert_eq!(other_network.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_proxy_that_appends_ports_does_not_merge_its_clients() {
    let app = spawn_app_with(&[("TRUSTED_PROXIES", "127.0.0.1/32,::1")]).await;
    let email = unique_email();
    for client in 1..=12 {
        let hop = format!("203.0.113.{client}:4{client:04}");
        let response = app.login_via(&email, PASSWORD, Some(&hop)).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{hop}");
    }
}

#[tokio::test]
async fn tokens_from_register_and_login_are_one_hour_user_tokens() {
    let app = spawn_app().await;
    let email = unique_email();
    let (registered, _) = app.signed_up(&email).await;
    let logged_in: Value = app.login(&email, PASSWORD).await.json().await.unwrap();
    for token in [registered.as_str(), logged_in["token"].as_str().unwrap()] {
        let claims = app.state.jwt.decode(token).unwrap();
        assert_eq!(claims.exp - claims.iat, 3600);
        assert_eq!(claims.kind, supportdesk::credentials::jwt::TokenKind::User);
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        assert!((claims.iat - now).abs() < 60);
    }
}

fn retry_after(response: &reqwest::Response) -> u64 {
    response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn the_eleventh_attempt_in_five_minutes_is_refused_with_retry_after() {
    let app = spawn_app().await;
    let email = unique_email();
    app.signed_up(&email).await;

    for attempt in 1..=10 {
        let response = app.login(&email, "Wr0ngPassword").await;
        assert_eq!(
            response.status(),
            StatusCode::UNAUTHORIZED,
            "attempt {attempt}"
        );
    }
    // Even the right password is refused once the limit is reached.
    let response = app.login(&email, PASSWORD).await;
    let wait = retry_after(&response);
    assert!((1..=300).contains(&wait), "Retry-After {wait}");
    assert_problem(response, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}

#[tokio::test]
async fn parallel_attempts_cannot_slip_past_the_limit() {
    let app = spawn_app().await;
    let email = unique_email();
    let attempts = (0..25).map(|_| app.login(&email, "Wr0ngPassword"));
    let statuses: Vec<StatusCode> = futures::future::join_all(attempts)
        .await
        .iter()
        .map(reqwest::Response::status)
        .collect();
    let allowed = statuses
        .iter()
        .filter(|s| **s != StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert_eq!(allowed, 10, "{statuses:?}");
}

#[tokio::test]
async fn a_spoofed_forwarded_for_from_an_untrusted_peer_is_ignored() {
    let app = spawn_app().await;
    let email = unique_email();
    for attempt in 1..=10 {
        let spoofed = format!("203.0.113.{attempt}");
        let response = app.login_via(&email, PASSWORD, Some(&spoofed)).await;
        assert_eq!(
            response.status(),
            StatusCode::UNAUTHORIZED,
            "attempt {attempt}"
        );
    }
    let response = app.login_via(&email, PASSWORD, Some("198.51.100.99")).await;
    assert_problem(response, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_client_ip_has_its_own_limit() {
    let app = spawn_app_with(&[("TRUSTED_PROXIES", "127.0.0.1/32,::1")]).await;
    let email = unique_email();
    for _ in 0..10 {
        let response = app.login_via(&email, PASSWORD, Some("203.0.113.7")).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    let limited = app.login_via(&email, PASSWORD, Some("203.0.113.7")).await;
    assert_eq!(limited.status(), StatusCode::TOO_MANY_REQUESTS);
    // A client forging an extra hop on the left is still counted by its real address.
    let forged = app
        .login_via(&email, PASSWORD, Some("198.51.100.1, 203.0.113.7"))
        .await;
    assert_eq!(forged.status(), StatusCode::TOO_MANY_REQUESTS);
    let other_client = app.login_via(&email, PASSWORD, Some("203.0.113.8")).await;
    assert_eq!(other_client.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn with_redis_down_login_works_and_is_still_throttled() {
    // Nothing listens on port 1: every Redis call fails at once.
    let app = spawn_app_with(&[("REDIS_URL", "redis://127.0.0.1:1")]).await;
    let email = unique_email();
    app.signed_up(&email).await;

    let response = app.login(&email, PASSWORD).await;
    assert_eq!(response.status(), StatusCode::OK);
    for _ in 0..9 {
        assert_eq!(
            app.login(&email, "Wr0ngPassword").await.status(),
            StatusCode::UNAUTHORIZED
        );
    }
    let response = app.login(&email, PASSWORD).await;
    assert_problem(response, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}

#[tokio::test]
async fn the_limit_is_shared_by_every_replica() {
    let first = spawn_app().await;
    let email = unique_email();
    // A second API process on the same Redis namespace (and its own database).
    let namespace = first.settings.redis.namespace.clone();
    let second = spawn_app_with(&[("REDIS_NAMESPACE", &namespace)]).await;
    for i in 0..10 {
        let app = if i % 2 == 0 { &first } else { &second };
        assert_eq!(
            app.login(&email, PASSWORD).await.status(),
            StatusCode::UNAUTHORIZED
        );
    }
    let response = second.login(&email, PASSWORD).await;
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
}
