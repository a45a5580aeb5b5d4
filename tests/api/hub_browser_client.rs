//! The official SignalR client in a real browser: Debian's Chromium, driven by Playwright
//! (`playwright-core`) from `tests/browser/hub-client.mjs`, which serves a plain page on an
//! origin of its own loading `@microsoft/signalr`'s and `@microsoft/signalr-protocol-msgpack`'s
//! browser bundles from `node_modules`. From that page the client negotiates across origins
//! (the API allows the page's origin through `CORS_ALLOWED_ORIGINS`) with the token in its
//! `headers` option and chats over the JSON and the MessagePack hub protocols; a browser app
//! that uses `accessTokenFactory` instead puts the token in the WebSocket's URL and is refused.
//!
//! `.ci/test` installs Chromium and the Node packages (`tests/browser/package-lock.json`).

use std::time::Duration;

use serde_json::json;
use supportdesk_test_support::free_port;
use supportdesk_test_support::web::{chromium, repo, require_browser_tools, run_driver};

use crate::helpers::spawn_app_with;
use crate::helpers_conversations::id;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_client_in_a_browser_chats_over_json_and_messagepack() {
    require_browser_tools(&[]);
    assert!(
        repo()
            .join("tests/browser/node_modules/@microsoft/signalr-protocol-msgpack")
            .is_dir(),
        "run `npm ci` in tests/browser (.ci/test does it)"
    );
    let port = free_port();
    let page_origin = format!("http://127.0.0.1:{port}");
    let app = spawn_app_with(&[("CORS_ALLOWED_ORIGINS", page_origin.as_str())]).await;
    let owner = app.owner_with_workspace("browser-hub-client").await;
    let conversation = app
        .start_conversation(&owner.workspace_token, "ivy@example.org", "Hi there")
        .await;
    let config = json!({
        "api": app.address,
        "port": port,
        "token": owner.workspace_token,
        "conversationId": id(&conversation),
        "chromium": chromium(),
    });
    let stdout = run_driver(
        "hub-client.mjs",
        "HUB_BROWSER_TEST_CONFIG",
        &config.to_string(),
        Duration::from_secs(120),
    )
    .await;
    println!("{stdout}");
    assert!(
        stdout.contains("all passed"),
        "hub-client.mjs did not finish\n{stdout}"
    );
}
