//! The dashboard catches up through the event log: in Debian's Chromium, driven by
//! `tests/browser/event-resync.mjs`, against this test's API and hub and the dashboard as
//! built for production. The page's hub connection is cut, 20 changes are made through the
//! REST API meanwhile, and once the page has reconnected its inbox must equal what
//! `GET /api/conversations` returns, without a reload. Screenshots under
//! `<target>/artifacts/event-resync/`; the inbox is checked with axe (WCAG 2.1 A/AA) at each.

use std::time::Duration;

use serde_json::json;
use supportdesk_test_support::free_port;
use supportdesk_test_support::web::{
    NextServer, artifacts, chromium, require_browser_tools, run_driver,
};

use crate::helpers::{PASSWORD, spawn_app_with, unique_email};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_catches_up_on_what_it_missed_while_disconnected() {
    require_browser_tools(&["dashboard"]);
    let dashboard_port = free_port();
    let dashboard_origin = format!("http://localhost:{dashboard_port}");
    let app = spawn_app_with(&[("APP_URL", dashboard_origin.as_str())]).await;
    let email = unique_email();
    let (user_token, _) = app.verified_user(&email).await;
    let created = app
        .create_workspace(&user_token, "Resync", Some("resync"))
        .await;
    assert_eq!(created.status(), 201);
    let workspace: serde_json::Value = created.json().await.unwrap();

    let api = app.address.clone();
    let hub = format!("{api}/hubs/chat");
    let runtime = [
        ("NEXT_PUBLIC_API_URL", api.as_str()),
        ("NEXT_PUBLIC_SIGNALR_URL", hub.as_str()),
    ];
    let _dashboard = NextServer::start("dashboard", dashboard_port, &runtime).await;

    let screenshots = artifacts("event-resync");
    let config = json!({
        "api": api,
        "dashboard": dashboard_origin,
        "agent": {"email": email, "password": PASSWORD},
        "workspaceId": workspace["id"],
        "screenshots": screenshots,
        "chromium": chromium(),
    });
    let stdout = run_driver(
        "event-resync.mjs",
        "EVENT_RESYNC_TEST_CONFIG",
        &config.to_string(),
        Duration::from_secs(240),
    )
    .await;
    println!("{stdout}");
    std::fs::write(screenshots.join("run.txt"), stdout.as_bytes()).unwrap();
}
