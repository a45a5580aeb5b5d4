//! The search box in a real browser: Debian's Chromium, driven by Playwright from
//! `tests/browser/search.mjs`, against this test's API and the dashboard as built for
//! production. The workspace holds a few conversations; one of them, with Carla Mendes, has
//! the agent's reply "We refunded the kettle ...". The Owner signs in, opens the search box
//! with Ctrl+K, types "refunds", reads the reply among the Messages with "refunded" marked,
//! opens it with the keyboard and lands on it in its conversation (scrolled to and focused);
//! then searches "Mendez" from the header's button, opens the contact and sees only her
//! conversations in the inbox. Then labels: the Owner makes one in Settings, puts it on
//! Carla's conversation and filters the inbox by it; then the Priority and Unread filters, a
//! shared saved view with its count (and a second one moved above it and back), and the
//! label on Carla herself (see the driver for
//! every step).
//! Screenshots under `<target>/artifacts/search/`; each view is checked with axe (WCAG 2.1
//! A/AA). This test then checks over the API that the conversation and the contact carry the
//! label and that the view was saved with its filter.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;
use supportdesk_test_support::free_port;
use supportdesk_test_support::web::{
    NextServer, artifacts, chromium, require_browser_tools, run_driver,
};

use crate::helpers::{PASSWORD, spawn_app_with, unique_email};
use crate::helpers_conversations::id;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_searches_labels_and_filters_conversations_in_the_browser() {
    require_browser_tools(&["dashboard"]);
    let dashboard_port = free_port();
    let dashboard_origin = format!("http://localhost:{dashboard_port}");
    let app = spawn_app_with(&[("APP_URL", dashboard_origin.as_str())]).await;
    let email = unique_email();
    let (user_token, user_id) = app.signed_up(&email).await;
    let owner = app
        .owned_workspace(user_token, user_id, "Searchable", "searchable")
        .await;
    let token = owner.workspace_token.as_str();

    let carla = app
        .json_ok(
            Method::POST,
            "/api/conversations",
            &json!({
                "contact": {"email": unique_email(), "name": "Carla Mendes"},
                "subject": "Broken kettle",
                "body": "Sorry to hear the kettle arrived broken.",
            }),
            token,
            StatusCode::CREATED,
        )
        .await;
    let carla_conversation = id(&carla);
    // Enough messages before the reply that the thread has to scroll to it.
    for n in 0..12 {
        app.json_ok(
            Method::POST,
            &format!("/api/conversations/{carla_conversation}/messages"),
            &json!({"body": format!("Update {n}: we are looking into it.")}),
            token,
            StatusCode::CREATED,
        )
        .await;
    }
    let reply = app
        .json_ok(
            Method::POST,
            &format!("/api/conversations/{carla_conversation}/messages"),
            &json!({"body": "We refunded the kettle; the refund arrives in 3 days."}),
            token,
            StatusCode::CREATED,
        )
        .await;
    for n in 0..12 {
        app.json_ok(
            Method::POST,
            &format!("/api/conversations/{carla_conversation}/messages"),
            &json!({"body": format!("Follow-up {n}: anything else?")}),
            token,
            StatusCode::CREATED,
        )
        .await;
    }
    for name in ["Ahmed Khan", "Bea Li"] {
        app.json_ok(
            Method::POST,
            "/api/conversations",
            &json!({
                "contact": {"email": unique_email(), "name": name},
                "subject": "Delivery",
                "body": "Your parcel is on its way.",
            }),
            token,
            StatusCode::CREATED,
        )
        .await;
    }
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{carla_conversation}/priority"),
        &json!({"priority": "urgent"}),
        token,
        StatusCode::OK,
    )
    .await;
    let contact_id = carla["contact"]["id"]
        .as_str()
        .expect("contact id")
        .to_owned();

    let api = app.address.clone();
    let hub = format!("{api}/hubs/chat");
    let runtime = [
        ("NEXT_PUBLIC_API_URL", api.as_str()),
        ("NEXT_PUBLIC_SIGNALR_URL", hub.as_str()),
    ];
    let _dashboard = NextServer::start("dashboard", dashboard_port, &runtime).await;
    let screenshots = artifacts("search");
    let config = json!({
        "api": api,
        "dashboard": dashboard_origin,
        "email": email,
        "password": PASSWORD,
        "workspaceName": "Searchable",
        "conversationId": carla_conversation,
        "messageId": id(&reply),
        "contactId": contact_id,
        "screenshots": screenshots,
        "chromium": chromium(),
    });
    let stdout = run_driver(
        "search.mjs",
        "SEARCH_TEST_CONFIG",
        &config.to_string(),
        Duration::from_secs(180),
    )
    .await;
    println!("{stdout}");
    std::fs::write(screenshots.join("run.txt"), stdout.as_bytes()).unwrap();

    let labelled = app
        .get_ok(&format!("/api/conversations/{carla_conversation}"), token)
        .await;
    assert_eq!(labelled["labels"][0]["name"], "Billing", "{labelled}");
    assert_eq!(labelled["labels"][0]["color"], "#7c3aed", "{labelled}");
    let filtered = app
        .get_ok(
            &format!(
                "/api/conversations?label={}",
                labelled["labels"][0]["id"].as_str().expect("label id")
            ),
            token,
        )
        .await;
    assert_eq!(
        filtered["conversations"].as_array().map(Vec::len),
        Some(1),
        "{filtered}"
    );
    let views = app.get_ok("/api/views", token).await;
    assert_eq!(views["views"][0]["name"], "Urgent", "{views}");
    assert_eq!(views["views"][0]["shared"], true, "{views}");
    assert_eq!(views["views"][0]["filters"], json!({"priority": "urgent"}));
    assert_eq!(views["views"][0]["count"], 1, "{views}");
    assert_eq!(views["views"][1]["name"], "Triage", "{views}");
    let contact = app
        .get_ok(&format!("/api/contacts/{contact_id}"), token)
        .await;
    assert_eq!(contact["labels"][0]["name"], "Billing", "{contact}");
}
