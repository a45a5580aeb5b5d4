//! The widget in a real browser: Debian's Chromium, driven by Playwright (`playwright-core`)
//! from `tests/browser/widget.mjs`, against the real API and hub of this test and the widget
//! app (`web/widget`, as `npm run build` left it) on its own origin. A plain HTML page on a
//! third origin embeds the loader; the visitor writes, an agent (the official SignalR client
//! in Node) replies, the visitor's page shows it live. Screenshots are kept under the target
//! directory (`artifacts/widget/`), with the measured round trip.
//!
//! `.ci/test` installs Chromium and the Node packages and builds the widget app first.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use axum::response::Html;
use reqwest::StatusCode;
use serde_json::json;
use supportdesk::credentials::widget_identity::signature;

use crate::helpers::spawn_app_with;

/// The widget app's server, stopped with its whole process group.
struct WidgetServer(Child);

impl Drop for WidgetServer {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visitor_chats_with_an_agent_through_the_embedded_widget() {
    let widget_dir = repo().join("web/widget");
    let browser_dir = repo().join("tests/browser");
    assert!(
        widget_dir.join(".next/BUILD_ID").is_file(),
        "build the widget app first: `npm ci && npm run build` in web/widget (.ci/test does it)"
    );
    assert!(
        browser_dir.join("node_modules/playwright-core").is_dir(),
        "run `npm ci` in tests/browser (.ci/test does it)"
    );
    assert!(
        chromium().is_file(),
        "install Debian's chromium (.ci/test does it)"
    );

    let widget_port = free_port();
    let widget_origin = format!("http://localhost:{widget_port}");
    let app = spawn_app_with(&[("WIDGET_URL", widget_origin.as_str())]).await;
    let owner = app.owner_with_workspace("browser-widget").await;
    let agent = app.owner_agent(&owner).await;

    // The customer's page, on an origin of its own.
    let host = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let host_origin = format!("http://127.0.0.1:{}", host.local_addr().unwrap().port());
    let site_key = app.widget_site(&owner, &[&host_origin]).await;
    let branding = json!({"branding": {"name": "Acme Support", "color": "#0b7a75",
        "widgetGreeting": "Hi! Ask us anything."}});
    let response = app
        .patch_json("/api/settings", &branding, Some(&owner.workspace_token))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let secret = app.identity_secret(&owner).await;
    let page = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Acme Shop</title></head>\
         <body style=\"font-family: serif; background: #fafafa\"><h1>Acme Shop</h1>\
         <p>Welcome to our shop. Questions? Use the chat.</p>\
         <script src=\"{widget_origin}/widget.js\" data-site-key=\"{site_key}\" async></script>\
         </body></html>"
    );
    let host_server = tokio::spawn(async move {
        let router =
            axum::Router::new().route("/", axum::routing::get(move || async move { Html(page) }));
        axum::serve(host, router).await
    });

    let _widget = WidgetServer(
        Command::new("node")
            .args(["node_modules/next/dist/bin/next", "start", "-p"])
            .arg(widget_port.to_string())
            .current_dir(&widget_dir)
            .env("PORT", widget_port.to_string())
            .env("NEXT_PUBLIC_API_URL", &app.address)
            .env(
                "NEXT_PUBLIC_SIGNALR_URL",
                format!("{}/hubs/chat", app.address),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("node runs the widget app"),
    );
    let ready = async {
        loop {
            let healthy = app
                .client
                .get(format!("{widget_origin}/healthz"))
                .send()
                .await;
            if healthy.is_ok_and(|r| r.status() == StatusCode::OK) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(60), ready)
        .await
        .expect("the widget app answers /healthz within 60 s");

    let screenshots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../artifacts/widget");
    std::fs::create_dir_all(&screenshots).unwrap();
    let config = json!({
        "api": app.address,
        "widget": widget_origin,
        "host": format!("{host_origin}/"),
        "agent": {"token": agent.token},
        "greeting": "Hi! Ask us anything.",
        "identity": {"externalId": "customer-7", "email": "hana@example.org", "name": "Hana",
            "hash": signature(&secret, "customer-7")},
        "screenshots": screenshots,
        "chromium": chromium(),
    });
    let run = tokio::process::Command::new("node")
        .arg("widget.mjs")
        .current_dir(&browser_dir)
        .env("WIDGET_TEST_CONFIG", config.to_string())
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(180), run)
        .await
        .expect("the browser test finished within 3 minutes")
        .expect("node runs (Node 20 is required)");
    host_server.abort();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the browser test failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    println!("{stdout}");
    std::fs::write(screenshots.join("run.txt"), stdout.as_bytes()).unwrap();
}
