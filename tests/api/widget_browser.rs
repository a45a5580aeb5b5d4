//! The widget in a real browser: Debian's Chromium, driven by Playwright (`playwright-core`)
//! from `tests/browser/widget.mjs`, against the real API and hub of this test and the widget
//! app (`web/widget`, as `npm run build` left it) on its own origin. A plain HTML page on a
//! third origin embeds the loader; the visitor writes, an agent (the official SignalR client
//! in Node) replies, the visitor's page shows it live. The same page on an origin the workspace
//! does not allow shows no widget. Screenshots (desktop and phone sizes) are kept under the
//! target directory (`artifacts/widget/`), with the measured round trip; every page is checked
//! with axe (WCAG 2.1 A/AA).
//!
//! `.ci/test` installs Chromium and the Node packages and builds the widget app first.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;
use supportdesk::credentials::widget_identity::signature;
use supportdesk_test_support::free_port;
use supportdesk_test_support::web::{
    NextServer, artifacts, chromium, require_browser_tools, run_driver, serve_page,
};

use crate::helpers::spawn_app_with;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visitor_chats_with_an_agent_through_the_embedded_widget() {
    require_browser_tools(&["widget"]);
    let widget_port = free_port();
    let widget_origin = format!("http://localhost:{widget_port}");
    let app = spawn_app_with(&[("WIDGET_URL", widget_origin.as_str())]).await;
    let owner = app.owner_with_workspace("browser-widget").await;
    let agent = app.owner_agent(&owner).await;
    let branding = json!({"branding": {"name": "Acme Support", "color": "#0b7a75",
        "widgetGreeting": "Hi! Ask us anything."}});
    let response = app
        .patch_json("/api/settings", &branding, Some(&owner.workspace_token))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let secret = app.identity_secret(&owner).await;

    // The customer's page, on an origin of its own, which the workspace allows. Its site key
    // comes in the query string, so the page exists before the key does.
    let page = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Acme Shop</title></head>\
         <body style=\"font-family: serif; background: #fafafa\"><h1>Acme Shop</h1>\
         <p>Welcome to our shop. Questions? Use the chat.</p>\
         <script>(function () {{ var s = document.createElement('script');\
         s.src = '{widget_origin}/widget.js'; s.async = true;\
         s.dataset.siteKey = new URLSearchParams(location.search).get('siteKey');\
         document.body.appendChild(s); }})();</script></body></html>"
    );
    let (host_origin, _host) = serve_page(page.clone()).await;
    // The same page on another origin, which the workspace does not allow.
    let (refused_origin, _refused) = serve_page(page).await;
    let site_key = app.widget_site(&owner, &[&host_origin]).await;

    let api = app.address.clone();
    let hub = format!("{api}/hubs/chat");
    let _widget = NextServer::start(
        "widget",
        widget_port,
        &[
            ("NEXT_PUBLIC_API_URL", &api),
            ("NEXT_PUBLIC_SIGNALR_URL", &hub),
        ],
    )
    .await;

    let screenshots = artifacts("widget");
    let config = json!({
        "api": api,
        "widget": widget_origin,
        "host": format!("{host_origin}/?siteKey={site_key}"),
        "refusedHost": format!("{refused_origin}/?siteKey={site_key}"),
        "agent": {"token": agent.token},
        "greeting": "Hi! Ask us anything.",
        "identity": {"externalId": "customer-7", "email": "hana@example.org", "name": "Hana",
            "hash": signature(&secret, "customer-7")},
        "screenshots": screenshots,
        "chromium": chromium(),
    });
    let stdout = run_driver(
        "widget.mjs",
        "WIDGET_TEST_CONFIG",
        &config.to_string(),
        Duration::from_secs(180),
    )
    .await;
    println!("{stdout}");
    println!("screenshots: {}", screenshots.display());
    std::fs::write(screenshots.join("run.txt"), stdout.as_bytes()).unwrap();
}
