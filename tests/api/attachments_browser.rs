//! Files on messages in a real browser: Debian's Chromium, driven by Playwright from
//! `tests/browser/attachments.mjs`, against this test's API and hub, the dashboard and the
//! widget as built for production, and a plain HTML page on a third origin that embeds the
//! widget's loader. A visitor starts a chat; the agent, signed in to the dashboard, pastes a
//! screenshot into the reply box and sends it; the visitor's widget shows its thumbnail and
//! opens the full image; the visitor attaches a PDF and sends it; the agent's dashboard shows
//! it live and the agent downloads it, byte for byte. Screenshots under
//! `<target>/artifacts/attachments/`; the pages showing files are checked with axe (WCAG 2.1
//! A/AA).

use std::time::Duration;

use serde_json::{Value, json};
use supportdesk_test_support::free_port;
use supportdesk_test_support::web::{
    NextServer, artifacts, chromium, require_browser_tools, run_driver, serve_page,
};

use crate::helpers::{PASSWORD, spawn_app_with, unique_email};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_and_a_visitor_send_each_other_files() {
    require_browser_tools(&["dashboard", "widget"]);
    let (dashboard_port, widget_port) = (free_port(), free_port());
    let dashboard_origin = format!("http://localhost:{dashboard_port}");
    let widget_origin = format!("http://localhost:{widget_port}");
    let app = spawn_app_with(&[
        ("APP_URL", dashboard_origin.as_str()),
        ("WIDGET_URL", widget_origin.as_str()),
    ])
    .await;

    // The agent: an Owner who signs in through the dashboard's own form.
    let email = unique_email();
    let (user_token, user_id) = app.verified_user(&email).await;
    let owner = app
        .owned_workspace(user_token, user_id, "Files", "files")
        .await;

    // The customer's page, on an origin the workspace allows.
    let page = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Acme Shop</title></head><body><h1>Acme Shop</h1>\
         <script>(function () {{ var s = document.createElement('script');\
         s.src = '{widget_origin}/widget.js'; s.async = true;\
         s.dataset.siteKey = new URLSearchParams(location.search).get('siteKey');\
         document.body.appendChild(s); }})();</script></body></html>"
    );
    let (host_origin, _host) = serve_page(page).await;
    let site_key = app.widget_site(&owner, &[&host_origin]).await;

    let api = app.address.clone();
    let hub = format!("{api}/hubs/chat");
    let runtime = [
        ("NEXT_PUBLIC_API_URL", api.as_str()),
        ("NEXT_PUBLIC_SIGNALR_URL", hub.as_str()),
        ("NEXT_PUBLIC_WIDGET_URL", widget_origin.as_str()),
    ];
    let _dashboard = NextServer::start("dashboard", dashboard_port, &runtime).await;
    let _widget = NextServer::start("widget", widget_port, &runtime).await;

    let screenshots = artifacts("attachments");
    let config = json!({
        "api": api,
        "dashboard": dashboard_origin,
        "widget": widget_origin,
        "host": format!("{host_origin}/?siteKey={site_key}"),
        "agent": {"email": email, "password": PASSWORD},
        "workspaceName": "Files",
        "screenshots": screenshots,
        "chromium": chromium(),
    });
    let stdout = run_driver(
        "attachments.mjs",
        "ATTACHMENTS_TEST_CONFIG",
        &config.to_string(),
        Duration::from_secs(240),
    )
    .await;
    println!("{stdout}");
    std::fs::write(screenshots.join("run.txt"), stdout.as_bytes()).unwrap();

    // What the journey left: the files the API holds for the workspace.
    let storage: Value = app
        .get("/api/settings/storage", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(storage["files"], 2, "{storage}");
}
