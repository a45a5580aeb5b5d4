//! Settings -> Audit log in a real browser: Debian's Chromium, driven by Playwright from
//! `tests/browser/audit.mjs`, against this test's API and the dashboard as built for
//! production. A verified Owner (Olivia Owner) has a workspace that Maya Patel joined as an
//! agent through an invitation. In the dashboard the Owner signs in, finds her own sign-in in
//! the audit log, makes Maya an Owner in Team, and after a reload reads the role change in the
//! log ("role: Agent → Owner"); she filters the log by that action, by herself and by today,
//! and exports it as CSV (a download of `audit-log.csv`, fetched with `Accept: text/csv` and
//! her workspace token). This test then checks over the API that the role change happened and
//! was recorded once, by her, on Maya, and that the CSV export answers with the same entry.
//! Screenshots under `<target>/artifacts/audit/`; the Audit log section is checked with axe
//! (WCAG 2.1 A/AA).

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::{Value, json};
use supportdesk_test_support::free_port;
use supportdesk_test_support::web::{
    NextServer, artifacts, chromium, require_browser_tools, run_driver,
};
use uuid::Uuid;

use crate::helpers::{PASSWORD, TestApp, spawn_app_with, unique_email};

const OWNER_NAME: &str = "Olivia Owner";
const MEMBER_NAME: &str = "Maya Patel";

/// Registers `email` as `full_name` with [`PASSWORD`]; the user token and the user's id.
async fn registered(app: &TestApp, email: &str, full_name: &str) -> (String, Uuid) {
    let response = app.register(email, PASSWORD, full_name).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    (
        body["token"].as_str().expect("token").to_owned(),
        body["user"]["id"]
            .as_str()
            .expect("id")
            .parse()
            .expect("uuid"),
    )
}

/// The audit log's entries for `query`, as the Owner reads them.
async fn entries(app: &TestApp, token: &str, query: &str) -> Vec<Value> {
    let page = app
        .get_ok(&format!("/api/audit-log?limit=200{query}"), token)
        .await;
    page["entries"].as_array().expect("entries").clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_reads_filters_and_exports_the_audit_log_in_the_browser() {
    require_browser_tools(&["dashboard"]);
    let dashboard_port = free_port();
    let dashboard_origin = format!("http://localhost:{dashboard_port}");
    let app = spawn_app_with(&[("APP_URL", dashboard_origin.as_str())]).await;

    // The Owner: verified (Owners need that to invite), who signs in through the dashboard's
    // own form, and named, so the log's "Who" is hers alone.
    let email = unique_email();
    let (user_token, owner_id) = registered(&app, &email, OWNER_NAME).await;
    let verification = app
        .verification_token(owner_id)
        .await
        .expect("a verification email is queued");
    assert_eq!(
        app.verify_email(&verification).await.status(),
        StatusCode::OK
    );
    let owner = app
        .owned_workspace(user_token, owner_id, "Audited", "audited")
        .await;
    let token = owner.workspace_token.clone();

    // Maya joins as an agent through the invitation flow.
    let member_email = unique_email();
    let (member_token, member_id) = registered(&app, &member_email, MEMBER_NAME).await;
    let invitation = app.invited(&token, &member_email, "agent").await;
    let accepted = app
        .accept(&json!({ "token": invitation }), Some(&member_token))
        .await;
    assert_eq!(accepted.status(), StatusCode::OK);
    let agents = app.agents(&token).await;
    let member = agents
        .iter()
        .find(|a| a["userId"] == member_id.to_string())
        .expect("Maya is an agent of the workspace");
    assert_eq!(member["role"], "agent", "{member}");
    // Team names her select "Role of <display name>"; the log names her by her full name.
    let display_name = member["displayName"]
        .as_str()
        .expect("displayName")
        .to_owned();
    let before = entries(&app, &token, "&action=member.role_changed").await;
    assert!(before.is_empty(), "no role change yet: {before:?}");

    let api = app.address.clone();
    let hub = format!("{api}/hubs/chat");
    let runtime = [
        ("NEXT_PUBLIC_API_URL", api.as_str()),
        ("NEXT_PUBLIC_SIGNALR_URL", hub.as_str()),
    ];
    let _dashboard = NextServer::start("dashboard", dashboard_port, &runtime).await;

    let screenshots = artifacts("audit");
    let config = json!({
        "api": api,
        "dashboard": dashboard_origin,
        "owner": {
            "email": email,
            "password": PASSWORD,
            "name": OWNER_NAME,
            "userId": owner_id.to_string(),
        },
        "workspaceName": "Audited",
        "workspaceToken": token,
        "member": {
            "userId": member_id.to_string(),
            "name": MEMBER_NAME,
            "displayName": display_name,
        },
        "screenshots": screenshots,
        "chromium": chromium(),
    });
    let stdout = run_driver(
        "audit.mjs",
        "AUDIT_TEST_CONFIG",
        &config.to_string(),
        Duration::from_secs(180),
    )
    .await;
    println!("{stdout}");
    std::fs::write(screenshots.join("run.txt"), stdout.as_bytes()).unwrap();

    // What the journey did: Maya is an Owner now, and that was recorded once, by Olivia.
    let agents = app.agents(&token).await;
    let member = agents
        .iter()
        .find(|a| a["userId"] == member_id.to_string())
        .expect("Maya is still a member");
    assert_eq!(member["role"], "admin", "{member}");
    let changes = entries(&app, &token, "&action=member.role_changed").await;
    assert_eq!(changes.len(), 1, "{changes:#?}");
    let change = &changes[0];
    assert_eq!(change["actor"]["kind"], "user", "{change}");
    assert_eq!(change["actor"]["id"], owner_id.to_string(), "{change}");
    assert_eq!(change["actor"]["name"], OWNER_NAME, "{change}");
    assert_eq!(change["target"]["type"], "member", "{change}");
    assert_eq!(change["target"]["id"], member_id.to_string(), "{change}");
    assert_eq!(
        change["changes"]["role"],
        json!({"from": "agent", "to": "admin"}),
        "{change}"
    );
    assert_eq!(change["changes"]["target"]["name"], MEMBER_NAME, "{change}");
    assert!(
        change["ip"].as_str().is_some_and(|ip| !ip.is_empty()),
        "{change}"
    );
    // Olivia signed in twice: this test's selection, and the dashboard's.
    let sign_ins = entries(
        &app,
        &token,
        &format!("&action=member.signed_in&actor={owner_id}"),
    )
    .await;
    assert!(sign_ins.len() >= 2, "{sign_ins:#?}");

    // The export the dashboard downloaded, asked for the same way.
    let response = app
        .client
        .get(app.url("/api/audit-log?action=member.role_changed"))
        .bearer_auth(&token)
        .header(ACCEPT, "text/csv")
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(content_type.starts_with("text/csv"), "{content_type}");
    let csv = response.text().await.expect("body");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 2, "{csv}");
    assert!(
        lines[0].starts_with("id,at,actor_kind,actor_id,actor_name,ip,action"),
        "{csv}"
    );
    assert!(
        lines[1].starts_with(change["id"].as_str().expect("id")),
        "{csv}"
    );
}
