//! `GET /widget/v1/sites/{siteKey}/origin-check`: the loader learns whether its page's origin
//! may use the site key. Any origin may read the answer; it is `false` alike for another
//! origin, an unknown or malformed key, and no `Origin`, so it reveals nothing else.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};
use crate::helpers_widget::{SITE, WIDGET};

/// The check for `site_key` from a page of `origin` (or none); the CORS header and the body.
async fn check(app: &TestApp, site_key: &str, origin: Option<&str>) -> (Option<String>, Value) {
    let mut request = app
        .client
        .get(app.url(&format!("/widget/v1/sites/{site_key}/origin-check")));
    if let Some(origin) = origin {
        request = request.header("Origin", origin);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let allow_origin = response
        .headers()
        .get("access-control-allow-origin")
        .map(|v| v.to_str().unwrap().to_owned());
    assert!(
        !response
            .headers()
            .contains_key("access-control-allow-credentials"),
        "no credentials"
    );
    (allow_origin, response.json().await.unwrap())
}

#[tokio::test]
async fn only_an_allowed_origin_is_told_yes_and_any_origin_may_read_the_answer() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("origin-check").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;

    let (cors, body) = check(&app, &site_key, Some(SITE)).await;
    assert_eq!(body, json!({"allowed": true}));
    assert_eq!(cors.as_deref(), Some("*"));

    let (cors, body) = check(&app, &site_key, Some("https://elsewhere.example")).await;
    assert_eq!(body, json!({"allowed": false}));
    assert_eq!(
        cors.as_deref(),
        Some("*"),
        "the other origin can read the no"
    );

    // The widget app's own origin, which the widget routes' rule knows, may read it too.
    let (cors, body) = check(&app, &site_key, Some(WIDGET)).await;
    assert_eq!(body, json!({"allowed": false}));
    assert!(cors.is_some_and(|c| c == "*" || c == WIDGET));

    // Near misses are other origins.
    for origin in [
        "https://shop.example:8443",
        "http://shop.example",
        "https://SHOP.example.evil",
    ] {
        let (_, body) = check(&app, &site_key, Some(origin)).await;
        assert_eq!(body, json!({"allowed": false}), "{origin}");
    }
}

#[tokio::test]
async fn unknown_keys_and_missing_origins_answer_false_like_any_other_no() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("origin-check-unknown").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let unknown = format!("swk_{}", "A".repeat(32));

    for key in [unknown.as_str(), "swk_short", "not-a-key"] {
        let (cors, body) = check(&app, key, Some(SITE)).await;
        assert_eq!(body, json!({"allowed": false}), "{key}");
        assert_eq!(cors.as_deref(), Some("*"));
    }
    let (_, body) = check(&app, &site_key, None).await;
    assert_eq!(body, json!({"allowed": false}));
}

#[tokio::test]
async fn an_owners_change_of_origins_shows_within_seconds() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("origin-check-change").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    assert_eq!(check(&app, &site_key, Some(SITE)).await.1["allowed"], true);

    let other = app.widget_site(&owner, &["https://other.example"]).await;
    assert_eq!(other, site_key);
    tokio::time::sleep(Duration::from_millis(5_500)).await;
    assert_eq!(check(&app, &site_key, Some(SITE)).await.1["allowed"], false);
    assert_eq!(
        check(&app, &site_key, Some("https://other.example"))
            .await
            .1["allowed"],
        true
    );
}

#[tokio::test]
async fn the_route_is_in_the_openapi_document() {
    let app = spawn_app().await;
    let document: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let operation = &document["paths"]["/widget/v1/sites/{siteKey}/origin-check"]["get"];
    assert!(operation.is_object(), "{operation}");
    assert_eq!(
        document["components"]["schemas"]["OriginCheck"]["properties"]["allowed"]["type"],
        "boolean"
    );
}
