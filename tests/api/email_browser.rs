//! The email channel in a real browser: Debian's Chromium, driven by Playwright from
//! `tests/browser/email.mjs`, against this test's API and hub and the dashboard as built for
//! production. A customer's email (text and HTML alternatives) arrives at the workspace's
//! forwarding address; the agent, signed in to the dashboard, finds it marked "Email" in the
//! inbox, reads its header and its HTML in the sandboxed frame, and replies by email with a PDF
//! attached, To and Cc as the thread has them plus an address added to Cc (the reply waits for
//! the mail worker, which this test does not run: "Sending…"). The customer's answer, threaded
//! by `In-Reply-To` to the reply's Message-ID, appears live in the open conversation. In
//! Settings the Owner sets an outgoing SMTP server, which reads "Untested". Screenshots under
//! `<target>/artifacts/email/`; the conversation and the Settings' Email section are checked
//! with axe (WCAG 2.1 A/AA).

use std::time::Duration;

use serde_json::{Value, json};
use supportdesk_test_support::free_port;
use supportdesk_test_support::web::{
    NextServer, artifacts, chromium, require_browser_tools, run_driver,
};

use crate::helpers::{PASSWORD, spawn_app_with, unique_email};
use crate::helpers_email::INBOUND_SECRET;

/// Carla's first email as a mail client writes it: to the support address, her boss in Cc,
/// text and HTML alternatives.
fn carlas_email() -> String {
    "From: Carla Diaz <carla@example.com>\n\
     To: Acme Support <support@acme.test>\n\
     Cc: Dan Boss <dan@example.com>\n\
     Subject: Printer on fire\n\
     Message-ID: <c-1@example.com>\n\
     Date: Tue, 24 Nov 2026 10:00:00 +0000\n\
     MIME-Version: 1.0\n\
     Content-Type: multipart/alternative; boundary=\"alt\"\n\
     \n\
     --alt\n\
     Content-Type: text/plain; charset=utf-8\n\
     \n\
     The printer on the third floor is smoking. What should we do?\n\
     --alt\n\
     Content-Type: text/html; charset=utf-8\n\
     \n\
     <div><p>The printer on the <b>third floor</b> is smoking.</p>\
     <p>What should we do?</p></div>\n\
     --alt--\n"
        .replace('\n', "\r\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_answers_an_email_in_the_browser_and_the_customer_answers_back() {
    require_browser_tools(&["dashboard"]);
    let dashboard_port = free_port();
    let dashboard_origin = format!("http://localhost:{dashboard_port}");
    let app = spawn_app_with(&[
        ("APP_URL", dashboard_origin.as_str()),
        ("INBOUND_EMAIL_SECRET", INBOUND_SECRET),
    ])
    .await;

    // The agent: a verified Owner who signs in through the dashboard's own form.
    let email = unique_email();
    let (user_token, user_id) = app.verified_user(&email).await;
    let owner = app
        .owned_workspace(user_token, user_id, "Printers", "printers")
        .await;
    let token = owner.workspace_token.clone();
    app.set_support_address(&token, "support@acme.test").await;
    let to = app.inbound_address(&owner).await;

    // Carla writes to the support address, which forwards to the workspace.
    let receipt = app.deliver(&carlas_email(), &to).await;
    assert_eq!(receipt["outcome"], "added", "{receipt}");
    assert_eq!(receipt["opened"], true, "{receipt}");
    let conversation_id = receipt["conversationId"]
        .as_str()
        .expect("conversationId")
        .to_owned();

    let api = app.address.clone();
    let hub = format!("{api}/hubs/chat");
    let runtime = [
        ("NEXT_PUBLIC_API_URL", api.as_str()),
        ("NEXT_PUBLIC_SIGNALR_URL", hub.as_str()),
    ];
    let _dashboard = NextServer::start("dashboard", dashboard_port, &runtime).await;

    let screenshots = artifacts("email");
    let config = json!({
        "api": api,
        "dashboard": dashboard_origin,
        "agent": {"email": email, "password": PASSWORD},
        "workspaceName": "Printers",
        "workspaceToken": token,
        "inbound": {"url": format!("{api}/inbound/email"), "secret": INBOUND_SECRET, "to": to},
        "screenshots": screenshots,
        "chromium": chromium(),
    });
    let stdout = run_driver(
        "email.mjs",
        "EMAIL_TEST_CONFIG",
        &config.to_string(),
        Duration::from_secs(240),
    )
    .await;
    println!("{stdout}");
    std::fs::write(screenshots.join("run.txt"), stdout.as_bytes()).unwrap();

    // What the journey left: one conversation, Carla's email, the reply with its PDF, her answer.
    let messages = app.messages_of(&token, &conversation_id).await;
    let kinds: Vec<&str> = messages
        .iter()
        .map(|m| m["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(
        kinds,
        ["incoming", "outgoing", "incoming"],
        "{}",
        Value::from(messages.clone())
    );
    assert_eq!(messages[0]["email"]["subject"], "Printer on fire");
    let reply = &messages[1];
    assert_eq!(reply["email"]["to"][0]["address"], "carla@example.com");
    let cc: Vec<&str> = reply["email"]["cc"]
        .as_array()
        .expect("cc")
        .iter()
        .map(|p| p["address"].as_str().expect("address"))
        .collect();
    assert_eq!(cc.len(), 2, "{reply}");
    assert_eq!(cc[0], "dan@example.com", "{reply}");
    assert!(
        cc[1].starts_with("facilities-") && cc[1].ends_with("@example.com"),
        "{reply}"
    );
    assert_eq!(reply["email"]["delivery"]["status"], "pending", "{reply}");
    let files = reply["attachments"].as_array().expect("attachments");
    assert_eq!(files.len(), 1, "{reply}");
    assert_eq!(files[0]["contentType"], "application/pdf", "{reply}");
    assert!(
        files[0]["name"]
            .as_str()
            .is_some_and(|n| n.ends_with(".pdf")),
        "{reply}"
    );
    let answer = &messages[2];
    assert_eq!(answer["email"]["from"]["address"], "carla@example.com");
    let settings = app.get_ok("/api/settings/email", &token).await;
    assert_eq!(settings["smtp"]["host"], "smtp.acme.test", "{settings}");
    assert_eq!(settings["smtp"]["status"], "untested", "{settings}");
    let list = app.get_ok("/api/conversations?assignee=all", &token).await;
    let emails = list["conversations"]
        .as_array()
        .map(|all| all.iter().filter(|c| c["channel"] == "email").count());
    assert_eq!(emails, Some(1), "one email conversation: {list}");
}
