//! `/api/settings/widget`: Owners only; origins checked and normalised; the identity secret
//! shown once and never stored; a regenerated site key stops the old one at once.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app};
use crate::helpers_widget::SITE;

#[tokio::test]
async fn owners_see_a_site_key_and_set_allowed_origins() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-settings").await;
    let token = owner.workspace_token.as_str();

    let first = app.get_ok("/api/settings/widget", token).await;
    let site_key = first["siteKey"].as_str().unwrap();
    assert!(
        site_key.starts_with("swk_") && site_key.len() == 36,
        "{first}"
    );
    assert_eq!(first["allowedOrigins"], json!([]));
    assert_eq!(
        first["identityVerification"],
        json!({"enabled": false, "hasSecret": false})
    );
    assert_eq!(
        app.get_ok("/api/settings/widget", token).await,
        first,
        "stable"
    );

    let patch = json!({"allowedOrigins": ["https://Shop.Example/", "https://shop.example", "http://localhost:8080"]});
    let updated = app
        .json_ok(
            Method::PATCH,
            "/api/settings/widget",
            &patch,
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(
        updated["allowedOrigins"],
        json!(["https://shop.example", "http://localhost:8080"])
    );
    assert_eq!(updated["siteKey"], first["siteKey"]);

    // Bad input: every bad origin named, nothing changed.
    let bad = json!({"allowedOrigins": ["https://ok.example", "https://shop.example/path", "*", "shop.example"]});
    let response = app
        .patch_json("/api/settings/widget", &bad, Some(token))
        .await;
    let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    assert_eq!(
        problem["errors"]["allowedOrigins"]
            .as_array()
            .unwrap()
            .len(),
        3,
        "{problem}"
    );
    let too_many: Vec<String> = (0..51).map(|i| format!("https://s{i}.example")).collect();
    let response = app
        .patch_json(
            "/api/settings/widget",
            &json!({"allowedOrigins": too_many}),
            Some(token),
        )
        .await;
    assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    for body in [
        json!({"allowedOrigins": "https://shop.example"}),
        json!({"siteKey": "swk_x"}),
    ] {
        let response = app
            .patch_json("/api/settings/widget", &body, Some(token))
            .await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
    }
    assert_eq!(app.get_ok("/api/settings/widget", token).await, updated);

    // Agents and the other credentials may not.
    let agent = app.join(&owner, "agent").await;
    for (path, method) in [
        ("/api/settings/widget", Method::GET),
        ("/api/settings/widget/site-key/regenerate", Method::POST),
        (
            "/api/settings/widget/identity-secret/regenerate",
            Method::POST,
        ),
    ] {
        let response = app
            .send(method.clone(), path, None, Some(&agent.token))
            .await;
        assert_problem(response, StatusCode::FORBIDDEN, "owner_only").await;
        let response = app
            .send(method.clone(), path, None, Some(&owner.user_token))
            .await;
        assert_problem(response, StatusCode::FORBIDDEN, "wrong_token_type").await;
        let response = app.send(method, path, None, None).await;
        assert_problem(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
    let response = app
        .patch_json("/api/settings/widget", &patch, Some(&agent.token))
        .await;
    assert_problem(response, StatusCode::FORBIDDEN, "owner_only").await;
}

#[tokio::test]
async fn the_identity_secret_is_shown_once_and_never_stored() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-secret").await;
    let token = owner.workspace_token.as_str();

    let on = json!({"identityVerification": {"enabled": true}});
    let response = app
        .patch_json("/api/settings/widget", &on, Some(token))
        .await;
    assert_problem(response, StatusCode::CONFLICT, "identity_secret_missing").await;
    let settings = app.get_ok("/api/settings/widget", token).await;
    assert_eq!(settings["identityVerification"]["enabled"], false);

    let path = "/api/settings/widget/identity-secret/regenerate";
    let first = app
        .json_ok(Method::POST, path, &json!({}), token, StatusCode::OK)
        .await;
    let secret = first["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("wis_") && secret.len() > 40, "{first}");
    let second = app
        .json_ok(Method::POST, path, &json!({}), token, StatusCode::OK)
        .await;
    assert_ne!(second["secret"], first["secret"], "a new secret each time");

    let updated = app
        .json_ok(
            Method::PATCH,
            "/api/settings/widget",
            &on,
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(
        updated["identityVerification"],
        json!({"enabled": true, "hasSecret": true})
    );
    let shown = app.get_ok("/api/settings/widget", token).await.to_string();
    assert!(
        !shown.contains(&secret[4..]) && !shown.contains("wis_"),
        "{shown}"
    );

    // The database holds a nonce, not the secret in any encoding.
    let row: (Vec<u8>,) = sqlx::query_as(
        "SELECT convert_to(row_to_json(s)::text, 'UTF8') FROM public.widget_sites s WHERE workspace_id = $1",
    )
    .bind(owner.workspace_id)
    .fetch_one(&app.db)
    .await
    .unwrap();
    let dump = String::from_utf8(row.0).unwrap();
    let second_secret = second["secret"].as_str().unwrap();
    let raw = base64::Engine::decode(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        &second_secret[4..],
    )
    .unwrap();
    // bytea columns dump as hex: neither the secret's bytes nor its text appear, in any case.
    for needle in [
        second_secret[4..].to_owned(),
        hex::encode(&raw),
        hex::encode(second_secret.as_bytes()),
        "wis_".to_owned(),
    ] {
        assert!(
            !dump.to_lowercase().contains(&needle.to_lowercase()),
            "{needle} in {dump}"
        );
    }
}

#[tokio::test]
async fn a_regenerated_site_key_stops_the_old_one_at_once() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-regenerate").await;
    let old = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&old, None).await;

    let regenerated = app
        .json_ok(
            Method::POST,
            "/api/settings/widget/site-key/regenerate",
            &json!({}),
            &owner.workspace_token,
            StatusCode::OK,
        )
        .await;
    let new = regenerated["siteKey"].as_str().unwrap();
    assert_ne!(new, old);
    let settings = app
        .get_ok("/api/settings/widget", &owner.workspace_token)
        .await;
    assert_eq!(settings["siteKey"], new);
    assert_eq!(settings["allowedOrigins"], json!([SITE]), "origins kept");

    let response = app
        .start_session(Some(SITE), &json!({"siteKey": old}))
        .await;
    assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
    app.visitor(new, None).await;
    // Sessions already started carry on until their token expires.
    let response = app
        .get("/widget/v1/conversation", Some(&visitor.token))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let _: Value = response.json().await.unwrap();
}
