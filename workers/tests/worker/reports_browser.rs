//! The Reports page in a real browser: Debian's Chromium, driven by Playwright from
//! `tests/browser/reports.mjs`, against this test's API and the dashboard as built for
//! production. The workspace's log holds three conversations of the last few days (a chat
//! answered, resolved and rated 5; an email answered, resolved, rated 2, reopened by its
//! customer and answered again; a chat nobody answered yet), folded by the worker's reports.
//! The Owner signs in, opens Reports, reads the figures the timeline makes in its tables and
//! summaries, filters by business hours and by channel, downloads the volume as CSV.
//! Screenshots under `<target>/artifacts/reports/`; each is checked with axe (WCAG 2.1 A/AA).

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_test_support::free_port;
use supportdesk_test_support::web::{
    NextServer, artifacts, chromium, require_browser_tools, run_driver,
};
use supportdesk_worker::reports::catch_up;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use uuid::Uuid;

use crate::harness::{PASSWORD, stack_without_worker, unique_email};
use crate::reports::{Shown, append, changed, message, rated};

const WORKSPACE: &str = "Reports";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_reads_filters_and_exports_reports_in_the_browser() {
    require_browser_tools(&["dashboard"]);
    let dashboard_port = free_port();
    let dashboard_origin = format!("http://localhost:{dashboard_port}");
    let stack = stack_without_worker(&[("APP_URL", dashboard_origin.as_str())]).await;

    let email = unique_email();
    let (user_token, _) = stack.register(&email).await;
    let (status, workspace) = stack
        .call(
            Method::POST,
            "/workspaces",
            Some(&user_token),
            Some(json!({"name": WORKSPACE, "slug": "reports-browser"})),
        )
        .await;
    assert_eq!(status, 201, "{workspace}");
    let workspace_id: Uuid = workspace["id"].as_str().unwrap().parse().unwrap();
    let (status, selected) = stack
        .call(
            Method::POST,
            &format!("/workspaces/{workspace_id}/select"),
            Some(&user_token),
            None,
        )
        .await;
    assert_eq!(status, 200, "{selected}");
    let token = selected["token"].as_str().unwrap().to_owned();
    let (_, agents) = stack
        .call(Method::GET, "/api/agents", Some(&token), None)
        .await;
    let owner: Uuid = agents["agents"][0]["id"].as_str().unwrap().parse().unwrap();
    let schema: String =
        sqlx::query_scalar("SELECT schema_name FROM public.workspaces WHERE id = $1")
            .bind(workspace_id)
            .fetch_one(&stack.db)
            .await
            .unwrap();
    let schema = TenantSchema::parse(&schema).unwrap();

    // Times of the last few days, whole minutes from a day's start.
    let today = OffsetDateTime::now_utc().replace_time(time::Time::MIDNIGHT);
    let at = |days: i64, minutes: i64| {
        (today - time::Duration::days(days) + time::Duration::minutes(minutes))
            .format(&Rfc3339)
            .unwrap()
    };
    let answered = Shown::new("chat", at(3, 9 * 60));
    let reopened = Shown::new("email", at(2, 14 * 60));
    let waiting = Shown::new("chat", at(1, 16 * 60));
    let (five, two) = (Uuid::new_v4(), Uuid::new_v4());
    let (first_resolution, second_resolution) = (at(3, 10 * 60), at(2, 16 * 60));
    let events: Vec<(&str, Value)> = vec![
        (
            "conversation.created",
            answered.at("open", None, &[], &answered.created, None),
        ),
        (
            "message.created",
            message(answered.id, "incoming", None, &answered.created),
        ),
        (
            "message.created",
            message(answered.id, "outgoing", Some(owner), &at(3, 9 * 60 + 10)),
        ),
        (
            "conversation.updated",
            changed(
                "status",
                answered.at(
                    "resolved",
                    Some(owner),
                    &[],
                    &first_resolution,
                    Some(&first_resolution),
                ),
            ),
        ),
        (
            "conversation.rated",
            rated(answered.id, five, 5, &first_resolution, &at(3, 10 * 60 + 5)),
        ),
        (
            "conversation.created",
            reopened.at("open", None, &[], &reopened.created, None),
        ),
        (
            "message.created",
            message(reopened.id, "incoming", None, &reopened.created),
        ),
        (
            "message.created",
            message(reopened.id, "outgoing", Some(owner), &at(2, 14 * 60 + 30)),
        ),
        (
            "conversation.updated",
            changed(
                "status",
                reopened.at(
                    "resolved",
                    Some(owner),
                    &[],
                    &second_resolution,
                    Some(&second_resolution),
                ),
            ),
        ),
        (
            "conversation.rated",
            rated(reopened.id, two, 2, &second_resolution, &at(2, 16 * 60 + 5)),
        ),
        (
            "conversation.updated",
            changed(
                "status",
                reopened.at("open", Some(owner), &[], &at(2, 17 * 60), None),
            ),
        ),
        (
            "message.created",
            message(reopened.id, "incoming", None, &at(2, 17 * 60)),
        ),
        (
            "message.created",
            message(reopened.id, "outgoing", Some(owner), &at(2, 17 * 60 + 20)),
        ),
        (
            "conversation.created",
            waiting.at("open", None, &[], &waiting.created, None),
        ),
        (
            "message.created",
            message(waiting.id, "incoming", None, &waiting.created),
        ),
    ];
    append(&stack.db, &schema, &events).await;
    catch_up(&stack.db, &schema).await.unwrap();
    let expected = json!({
        "created": 3, "resolved": 2, "reopened": 1, "firstResponses": 3,
        "ratings": 2, "satisfied": 1,
    });
    // What the page must show is what the API answers.
    let (status, volume) = stack
        .call(Method::GET, "/api/reports/volume", Some(&token), None)
        .await;
    assert_eq!(status, 200, "{volume}");
    assert_eq!(
        volume["total"],
        json!({"created": 3, "resolved": 2, "reopened": 1})
    );

    let api = stack.api.clone();
    let hub = format!("{api}/hubs/chat");
    let runtime = [
        ("NEXT_PUBLIC_API_URL", api.as_str()),
        ("NEXT_PUBLIC_SIGNALR_URL", hub.as_str()),
    ];
    let _dashboard = NextServer::start("dashboard", dashboard_port, &runtime).await;
    let screenshots = artifacts("reports");
    let config = json!({
        "api": api,
        "dashboard": dashboard_origin,
        "owner": {"email": email, "password": PASSWORD, "name": "Ann <Smith>"},
        "workspaceName": WORKSPACE,
        "workspaceToken": token,
        "expected": expected,
        "screenshots": screenshots,
        "chromium": chromium(),
    });
    let stdout = run_driver(
        "reports.mjs",
        "REPORTS_TEST_CONFIG",
        &config.to_string(),
        Duration::from_secs(180),
    )
    .await;
    println!("{stdout}");
    std::fs::write(screenshots.join("run.txt"), stdout.as_bytes()).unwrap();
}
