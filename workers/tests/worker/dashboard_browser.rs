//! The whole product in a real browser: Debian's Chromium, driven by Playwright from
//! `tests/browser/dashboard.mjs`, against the real API, hub and worker of this test (email as
//! `.eml` files), the dashboard (`web/dashboard`) and the widget (`web/widget`) as built for
//! production. The journey: register, verify by the emailed link, create a workspace, invite
//! an agent who joins by the emailed link in a second browser, a visitor on a customer's page
//! writes through the widget and the agent sees it live and replies, the visitor sees the
//! reply, another visitor rates their resolved conversation and the Owner sees the rating
//! live, the Owner turns ratings off and on in Settings, the Owner deactivates the agent and
//! the agent's page leaves the workspace.
//! Screenshots of every main page are kept under `<target>/artifacts/dashboard/`.

use std::time::Duration;

use serde_json::json;
use supportdesk_test_support::free_port;
use supportdesk_test_support::web::{
    NextServer, artifacts, chromium, require_browser_tools, serve_page, try_run_driver,
};

use crate::harness::stack;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_an_agent_and_a_visitor_work_through_the_dashboard_and_the_widget() {
    require_browser_tools(&["dashboard", "widget"]);
    let (dashboard_port, widget_port) = (free_port(), free_port());
    let dashboard_origin = format!("http://localhost:{dashboard_port}");
    let widget_origin = format!("http://localhost:{widget_port}");
    let mail = tempfile_dir("dashboard-mail");
    let mail_dir = mail.display().to_string();
    let mut stack = stack(&[
        ("APP_URL", dashboard_origin.as_str()),
        ("WIDGET_URL", widget_origin.as_str()),
        ("MAIL_TRANSPORT", "file"),
        ("MAIL_DIR", mail_dir.as_str()),
        // The journey registers and signs in a few people from one address.
        ("WORKSPACE_CREATES_PER_HOUR", "0"),
    ])
    .await;

    let page = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Acme Shop</title></head><body><h1>Acme Shop</h1>\
         <script>(function () {{ var s = document.createElement('script');\
         s.src = '{widget_origin}/widget.js'; s.async = true;\
         s.dataset.siteKey = new URLSearchParams(location.search).get('siteKey');\
         document.body.appendChild(s); }})();</script></body></html>"
    );
    let (host_origin, _host) = serve_page(page).await;

    let api = stack.api.clone();
    let hub = format!("{api}/hubs/chat");
    let runtime = [
        ("NEXT_PUBLIC_API_URL", api.as_str()),
        ("NEXT_PUBLIC_SIGNALR_URL", hub.as_str()),
        ("NEXT_PUBLIC_WIDGET_URL", widget_origin.as_str()),
    ];
    let _dashboard = NextServer::start("dashboard", dashboard_port, &runtime).await;
    let _widget = NextServer::start("widget", widget_port, &runtime).await;

    let screenshots = artifacts("dashboard");
    let config = json!({
        "api": api,
        "dashboard": dashboard_origin,
        "widget": widget_origin,
        "host": format!("{host_origin}/"),
        "mailDir": mail_dir,
        "screenshots": screenshots,
        "chromium": chromium(),
    });
    let run = try_run_driver(
        "dashboard.mjs",
        "DASHBOARD_TEST_CONFIG",
        &config.to_string(),
        Duration::from_secs(300),
    )
    .await;
    let stdout = match run {
        Ok(stdout) => stdout,
        Err(failure) => panic!(
            "{failure}\n{}--- emails written to {mail_dir}\n{}",
            stack.explain().await,
            supportdesk_test_support::files::files_under(&mail).join("\n")
        ),
    };
    println!("{stdout}");
    std::fs::write(screenshots.join("run.txt"), stdout.as_bytes()).unwrap();
    let _ = std::fs::remove_dir_all(&mail);
}

/// A fresh directory of this test's own.
fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
