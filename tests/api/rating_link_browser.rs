//! The rating page of an emailed rating link in a real browser: Debian's Chromium, driven by
//! Playwright from `tests/browser/rating-link.mjs`, against the real API of this test and the
//! widget app (`web/widget`, as `npm run build` left it) on its own origin. An email
//! conversation is resolved, and its five links (as the worker writes them into the email)
//! are opened: one click rates, a comment follows, the other scores are refused, and an
//! expired or altered link says so. Screenshots are kept under `artifacts/rating-link/`.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_test_support::free_port;
use supportdesk_test_support::web::{
    NextServer, artifacts, chromium, require_browser_tools, run_driver,
};

use crate::helpers::spawn_app_with;
use crate::helpers_email::{INBOUND_SECRET, plain};
use crate::rating_links::link_tokens;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_customer_rates_from_the_emailed_links_in_a_browser() {
    require_browser_tools(&["widget"]);
    let widget_port = free_port();
    let widget_origin = format!("http://localhost:{widget_port}");
    let app = spawn_app_with(&[
        ("INBOUND_EMAIL_SECRET", INBOUND_SECRET),
        ("WIDGET_URL", widget_origin.as_str()),
    ])
    .await;
    let owner = app.owner_with_workspace("browser-rating").await;
    let token = &owner.workspace_token;
    let to = app.inbound_address(&owner).await;
    let mut conversations = Vec::new();
    for (from, id) in [
        ("jo@example.com", "j-1@example.com"),
        ("kai@example.com", "k-1@example.com"),
    ] {
        let receipt = app
            .deliver(&plain(from, id, "Lamp", "", "It flickers."), &to)
            .await;
        let conversation: uuid::Uuid = receipt["conversationId"].as_str().unwrap().parse().unwrap();
        app.json_ok(
            Method::POST,
            &format!("/api/conversations/{conversation}/status"),
            &json!({"status": "resolved"}),
            token,
            StatusCode::OK,
        )
        .await;
        conversations.push(conversation);
    }
    let link = |link_token: &str, score: u8| {
        format!(
            "{widget_origin}/rate?w={}&t={link_token}&r={score}",
            owner.workspace_id
        )
    };
    let rated = link_tokens(&app, &owner, conversations[0]).await.remove(0);
    let links: serde_json::Map<String, Value> = (1..=5u8)
        .map(|score| (score.to_string(), Value::String(link(&rated, score))))
        .collect();
    // The second conversation's link, expired.
    let expired = link_tokens(&app, &owner, conversations[1]).await.remove(0);
    let schema = TenantSchema::for_workspace(owner.workspace_id);
    sqlx::query(
        schema
            .sql("UPDATE {schema}.rating_requests SET expires_at = $2 WHERE conversation_id = $1"),
    )
    .bind(conversations[1])
    .bind(time::OffsetDateTime::now_utc() - time::Duration::minutes(1))
    .execute(&app.db)
    .await
    .unwrap();
    let mut altered = rated.clone();
    let last = altered.pop().unwrap();
    altered.push(if last == 'A' { 'B' } else { 'A' });

    let api = app.address.clone();
    let _widget = NextServer::start("widget", widget_port, &[("NEXT_PUBLIC_API_URL", &api)]).await;
    let screenshots = artifacts("rating-link");
    let config = json!({
        "api": api,
        "widget": widget_origin,
        "links": links,
        "expiredLink": link(&expired, 3),
        "tamperedLink": link(&altered, 3),
        "screenshots": screenshots,
        "chromium": chromium(),
    });
    let stdout = run_driver(
        "rating-link.mjs",
        "RATING_LINK_TEST_CONFIG",
        &config.to_string(),
        Duration::from_secs(120),
    )
    .await;
    println!("{stdout}");
    std::fs::write(screenshots.join("run.txt"), stdout.as_bytes()).unwrap();

    let seen = app
        .get_ok(&format!("/api/conversations/{}", conversations[0]), token)
        .await;
    let ratings = seen["ratings"].as_array().unwrap();
    assert_eq!(ratings.len(), 1, "{seen}");
    assert_eq!(ratings[0]["rating"], 4, "the link opened first: {seen}");
    assert!(
        ratings[0]["comment"].is_string(),
        "the comment sent: {seen}"
    );
    let expired_seen = app
        .get_ok(&format!("/api/conversations/{}", conversations[1]), token)
        .await;
    assert_eq!(expired_seen["ratings"], json!([]));
}
