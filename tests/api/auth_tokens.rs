//! Forged, expired and misplaced tokens.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::StatusCode;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{JWT_SECRET, assert_problem, spawn_app, unique_email};

fn sign(claims: &Value, secret: &str, algorithm: Algorithm) -> String {
    jsonwebtoken::encode(
        &Header::new(algorithm),
        claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap()
}

fn claims(user_id: Uuid, issued_ago: i64, lifetime: i64) -> Value {
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    json!({
        "iss": "supportdesk", "aud": "supportdesk-api", "sub": user_id,
        "iat": now - issued_ago, "exp": now - issued_ago + lifetime,
        "jti": Uuid::new_v4(), "kind": "user",
    })
}

#[tokio::test]
async fn a_well_formed_token_signed_by_us_is_accepted() {
    // The control for the forgeries below: same claims, our key, HS256.
    let app = spawn_app().await;
    let (_, user_id) = app.signed_up(&unique_email()).await;
    let token = sign(&claims(user_id, 0, 3600), JWT_SECRET, Algorithm::HS256);
    assert_eq!(app.me(&token).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn an_expired_token_is_refused() {
    let app = spawn_app().await;
    let (_, user_id) = app.signed_up(&unique_email()).await;
    let token = sign(&claims(user_id, 3601, 3600), JWT_SECRET, Algorithm::HS256);
    let body = assert_problem(
        app.me(&token).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    assert!(
        body["detail"].as_str().unwrap().contains("expired"),
        "{body}"
    );
}

#[tokio::test]
async fn a_token_signed_with_another_key_is_refused() {
    let app = spawn_app().await;
    let (_, user_id) = app.signed_up(&unique_email()).await;
    let token = sign(
        &claims(user_id, 0, 3600),
        "some-other-secret-that-is-long-enough-0123",
        Algorithm::HS256,
    );
    assert_problem(
        app.me(&token).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
}

#[tokio::test]
async fn alg_none_and_other_algorithms_are_refused() {
    let app = spawn_app().await;
    let (_, user_id) = app.signed_up(&unique_email()).await;
    let payload = URL_SAFE_NO_PAD.encode(claims(user_id, 0, 3600).to_string());
    for header in [r#"{"alg":"none","typ":"JWT"}"#, r#"{"alg":"None"}"#] {
        let forged = format!("{}.{payload}.", URL_SAFE_NO_PAD.encode(header));
        assert_problem(
            app.me(&forged).await,
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        )
        .await;
    }
    // Same secret, another HMAC: still refused, the algorithm is pinned.
    let hs512 = sign(&claims(user_id, 0, 3600), JWT_SECRET, Algorithm::HS512);
    assert_problem(
        app.me(&hs512).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
}

#[tokio::test]
async fn wrong_issuer_or_audience_is_refused() {
    let app = spawn_app().await;
    let (_, user_id) = app.signed_up(&unique_email()).await;
    for (field, value) in [("iss", "someone-else"), ("aud", "another-api")] {
        let mut forged = claims(user_id, 0, 3600);
        forged[field] = json!(value);
        let token = sign(&forged, JWT_SECRET, Algorithm::HS256);
        assert_problem(
            app.me(&token).await,
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        )
        .await;
    }
}

#[tokio::test]
async fn a_workspace_token_is_not_a_user_token() {
    let app = spawn_app().await;
    let (_, user_id) = app.signed_up(&unique_email()).await;
    let keys = supportdesk::credentials::jwt::JwtKeys::new(
        app.settings.application.jwt_secret.as_ref().unwrap(),
    );
    let workspace_token = keys
        .issue_workspace(user_id, Uuid::new_v4(), supportdesk::authz::Role::Owner, 0)
        .unwrap()
        .token;

    let response = app.resend_verification(&workspace_token).await;

    assert_problem(response, StatusCode::FORBIDDEN, "wrong_token_type").await;
}

#[tokio::test]
async fn a_user_token_cannot_claim_a_tenant() {
    let app = spawn_app().await;
    let (_, user_id) = app.signed_up(&unique_email()).await;
    let mut forged = claims(user_id, 0, 3600);
    forged["tid"] = json!(Uuid::new_v4());
    forged["role"] = json!("admin");
    let token = sign(&forged, JWT_SECRET, Algorithm::HS256);
    assert_problem(
        app.me(&token).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
}

#[tokio::test]
async fn a_valid_user_token_is_refreshed_and_nothing_else_is() {
    let app = spawn_app().await;
    let (token, user_id) = app.signed_up(&unique_email()).await;
    let refresh = |token: String| {
        let request = app.client.post(app.url("/auth/refresh"));
        async move { request.bearer_auth(token).send().await.unwrap() }
    };

    let response = refresh(token.clone()).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    let fresh = body["token"].as_str().unwrap().to_owned();
    assert_ne!(fresh, token);
    let expires = time::OffsetDateTime::parse(
        body["expiresAt"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let left = expires - time::OffsetDateTime::now_utc();
    assert!(
        left > time::Duration::minutes(59) && left <= time::Duration::hours(1),
        "{left}"
    );
    assert_eq!(app.me(&fresh).await.status(), StatusCode::OK);

    let expired = sign(&claims(user_id, 3601, 3600), JWT_SECRET, Algorithm::HS256);
    assert_problem(
        refresh(expired).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    let missing = app
        .client
        .post(app.url("/auth/refresh"))
        .send()
        .await
        .unwrap();
    assert_problem(missing, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let keys = supportdesk::credentials::jwt::JwtKeys::new(
        app.settings.application.jwt_secret.as_ref().unwrap(),
    );
    let workspace_token = keys
        .issue_workspace(user_id, Uuid::new_v4(), supportdesk::authz::Role::Owner, 0)
        .unwrap()
        .token;
    assert_problem(
        refresh(workspace_token).await,
        StatusCode::FORBIDDEN,
        "wrong_token_type",
    )
    .await;

    // A token whose version is above the account's (a database restored to an earlier
    // state) is refreshed with the account's, so the next password reset revokes it.
    let mut ahead = claims(user_id, 0, 3600);
    ahead["ver"] = json!(7);
    let response = refresh(sign(&ahead, JWT_SECRET, Algorithm::HS256)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    let payload = body["token"].as_str().unwrap().split('.').nth(1).unwrap();
    let payload: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
    assert_eq!(payload["ver"], json!(0));

    // A password reset revokes every earlier token, refreshed ones too.
    sqlx::query("UPDATE public.users SET token_version = token_version + 1 WHERE id = $1")
        .bind(user_id)
        .execute(&app.db)
        .await
        .unwrap();
    assert_problem(
        refresh(fresh).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
}
