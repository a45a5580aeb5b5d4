//! Settings → Webhooks in a real browser: Debian's Chromium, driven by Playwright from
//! `tests/browser/webhooks.mjs`, against this test's API and the dashboard as built for
//! production. The API allows plain http and 127.0.0.0/8 for endpoints; no worker runs, so
//! what the Owner asks for stays pending. The workspace has two endpoints as the worker would
//! have left them: one failing for two hours, its failed attempt in the log (status 500, the
//! receiver's answer) after a page's worth of successes, and one the product disabled (410
//! Gone). In the browser the Owner reads their states, opens the failing one's delivery log,
//! loads its older page and retries the failed attempt; adds an endpoint (a refused URL first:
//! the API's messages beside the fields), sees its secret once, sends it a test event (pending
//! in its log), rotates its secret, disables and enables it, edits it to receive all events
//! and deletes it; at the workspace's limit of 20 endpoints (filled over the API, and emptied
//! again), adding one is refused in the dialog (409). Afterwards this test reads the API and
//! the workspace's tables: the retry is queued for the same event, the added endpoint is gone
//! with its test request, the two others are as they were. Screenshots under
//! `<target>/artifacts/webhooks/`, each checked with axe (WCAG 2.1 A/AA).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use supportdesk_test_support::free_port;
use supportdesk_test_support::web::{
    NextServer, artifacts, chromium, require_browser_tools, run_driver,
};

use crate::helpers::{PASSWORD, TestApp, assert_problem, spawn_app_with, unique_email};

const FAILING_URL: &str = "https://crm.example.com/hooks/support";
const FAILING_DESCRIPTION: &str = "CRM sync";
const LAST_ERROR: &str = "the receiver answered 500 Internal Server Error";
const RESPONSE_BODY: &str = r#"{"error":"database is down"}"#;
/// Succeeded attempts in the failing endpoint's log before its failure: the log's first page
/// (20 rows) does not hold them all.
const OLDER_ATTEMPTS: i32 = 20;
const DISABLED_URL: &str = "https://legacy.example.com/hooks";
const DISABLED_DESCRIPTION: &str = "Legacy CRM";
const DISABLED_REASON: &str = "the receiver answered 410 Gone";

/// An endpoint made over the API, as an Owner would; its id.
async fn add_endpoint(app: &TestApp, token: &str, url: &str, description: &str) -> String {
    let created = app
        .json_ok(
            Method::POST,
            "/api/webhooks",
            &json!({"url": url, "description": description, "eventTypes": ["*"]}),
            token,
            StatusCode::CREATED,
        )
        .await;
    created["id"].as_str().expect("id").to_owned()
}

async fn count(app: &TestApp, sql: String, id: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_one(&app.db)
        .await
        .expect("count")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_manages_webhook_endpoints_in_the_browser() {
    require_browser_tools(&["dashboard"]);
    let dashboard_port = free_port();
    let dashboard_origin = format!("http://localhost:{dashboard_port}");
    let app = spawn_app_with(&[
        ("APP_URL", dashboard_origin.as_str()),
        ("WEBHOOK_ALLOW_HTTP", "true"),
        ("WEBHOOK_ALLOWED_PRIVATE_RANGES", "127.0.0.0/8"),
    ])
    .await;

    // The Owner: a verified user who signs in through the dashboard's own form.
    let email = unique_email();
    let (user_token, user_id) = app.verified_user(&email).await;
    let owner = app
        .owned_workspace(user_token, user_id, "Hooks", "hooks-browser")
        .await;
    let workspace_id = owner.workspace_id.to_string();
    let token = owner.workspace_token.clone();
    let (schema,): (String,) =
        sqlx::query_as("SELECT schema_name FROM public.workspaces WHERE id = $1::uuid")
            .bind(&workspace_id)
            .fetch_one(&app.db)
            .await
            .expect("schema");

    // Two endpoints as the worker would have left them (no worker runs here): one failing for
    // two hours with its failed attempt in the log, one disabled by the product.
    let failing_id = add_endpoint(&app, &token, FAILING_URL, FAILING_DESCRIPTION).await;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE {schema}.webhook_endpoints
            SET failing_since = now() - interval '2 hours', last_error = $2
          WHERE id = $1::uuid"
    )))
    .bind(&failing_id)
    .bind(LAST_ERROR)
    .execute(&app.db)
    .await
    .expect("failing");
    // Before it failed, it took OLDER_ATTEMPTS message.created events (more than the log's
    // first page holds).
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO {schema}.webhook_attempts
                (id, endpoint_id, event_id, event_seq, event_type, attempt, status,
                 response_status, latency_ms, response_excerpt, error, created_at)
         SELECT gen_random_uuid(), $1::uuid, gen_random_uuid(), NULL, 'message.created', 1,
                'succeeded', 200, 80 + n, 'ok', NULL,
                now() - interval '1 day' - n * interval '1 minute'
           FROM generate_series(1, $2) AS n"
    )))
    .bind(&failing_id)
    .bind(OLDER_ATTEMPTS)
    .execute(&app.db)
    .await
    .expect("older attempts");
    let (event_id,): (String,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO {schema}.webhook_attempts
                (id, endpoint_id, event_id, event_seq, event_type, attempt, status,
                 response_status, latency_ms, response_excerpt, error, created_at)
         VALUES (gen_random_uuid(), $1::uuid, gen_random_uuid(), NULL, 'webhook.test', 1,
                 'failed', 500, 132, $2, $3, now() - interval '2 hours')
         RETURNING event_id::text"
    )))
    .bind(&failing_id)
    .bind(RESPONSE_BODY)
    .bind(LAST_ERROR)
    .fetch_one(&app.db)
    .await
    .expect("a failed attempt");
    let disabled_id = add_endpoint(&app, &token, DISABLED_URL, DISABLED_DESCRIPTION).await;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE {schema}.webhook_endpoints
            SET enabled = false, disabled_reason = $2,
                failing_since = now() - interval '1 day', last_error = $2
          WHERE id = $1::uuid"
    )))
    .bind(&disabled_id)
    .bind(DISABLED_REASON)
    .execute(&app.db)
    .await
    .expect("disabled");

    let api = app.address.clone();
    let hub = format!("{api}/hubs/chat");
    let runtime = [
        ("NEXT_PUBLIC_API_URL", api.as_str()),
        ("NEXT_PUBLIC_SIGNALR_URL", hub.as_str()),
    ];
    let _dashboard = NextServer::start("dashboard", dashboard_port, &runtime).await;

    // Nothing listens there: no worker sends anything in this test.
    let endpoint_url = format!("http://127.0.0.1:{}/hooks/orders", free_port());
    let screenshots = artifacts("webhooks");
    let result_file = screenshots.join("result.json");
    let _ = std::fs::remove_file(&result_file);
    let config = json!({
        "api": api,
        "dashboard": dashboard_origin,
        "agent": {"email": email, "password": PASSWORD},
        "workspaceName": "Hooks",
        "workspaceToken": token,
        "endpointUrl": endpoint_url,
        "refusedUrl": "http://10.0.0.8/hooks",
        "failing": {
            "id": failing_id,
            "url": FAILING_URL,
            "description": FAILING_DESCRIPTION,
            "eventId": event_id,
            "lastError": LAST_ERROR,
            "responseBody": RESPONSE_BODY,
            "olderAttempts": OLDER_ATTEMPTS,
        },
        "disabled": {
            "id": disabled_id,
            "url": DISABLED_URL,
            "description": DISABLED_DESCRIPTION,
            "reason": DISABLED_REASON,
        },
        "result": result_file,
        "screenshots": screenshots,
        "chromium": chromium(),
    });
    let stdout = run_driver(
        "webhooks.mjs",
        "WEBHOOKS_TEST_CONFIG",
        &config.to_string(),
        Duration::from_secs(240),
    )
    .await;
    println!("{stdout}");
    std::fs::write(screenshots.join("run.txt"), stdout.as_bytes()).unwrap();
    let made: Value =
        serde_json::from_slice(&std::fs::read(&result_file).expect("the journey's result"))
            .expect("JSON");
    let added = made["endpointId"].as_str().expect("endpointId");
    let test_event = made["testEventId"].as_str().expect("testEventId");
    assert_eq!(made["retriedEventId"], event_id.as_str(), "{made}");

    // The endpoint the Owner added is gone, with its test request; the two others remain.
    let listed = app.get_ok("/api/webhooks", &token).await;
    let urls: Vec<&str> = listed["webhooks"]
        .as_array()
        .expect("webhooks")
        .iter()
        .map(|w| w["url"].as_str().expect("url"))
        .collect();
    assert_eq!(urls, [FAILING_URL, DISABLED_URL], "{listed}");
    let response = app
        .send(
            Method::GET,
            &format!("/api/webhooks/{added}"),
            None,
            Some(&token),
        )
        .await;
    assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
    let requests =
        format!("SELECT count(*) FROM {schema}.webhook_requests WHERE event_id = $1::uuid");
    assert_eq!(count(&app, requests.clone(), test_event).await, 0);
    let endpoints = format!("SELECT count(*) FROM {schema}.webhook_endpoints WHERE id = $1::uuid");
    assert_eq!(count(&app, endpoints, added).await, 0);
    let (listed_endpoints,): (i32,) = sqlx::query_as(
        "SELECT endpoints FROM public.webhook_workspaces WHERE workspace_id = $1::uuid",
    )
    .bind(&workspace_id)
    .fetch_one(&app.db)
    .await
    .expect("the control plane still lists the workspace");
    assert_eq!(listed_endpoints, 2);

    // The Retry asked for the failed attempt's event again: pending at the top of its log.
    let log = app
        .get_ok(&format!("/api/webhooks/{failing_id}/deliveries"), &token)
        .await;
    let rows = log["deliveries"].as_array().expect("deliveries");
    assert_eq!(rows.len(), 2 + OLDER_ATTEMPTS as usize, "{log}");
    assert_eq!(rows[0]["status"], "pending", "{log}");
    assert_eq!(rows[0]["eventId"], event_id.as_str(), "{log}");
    assert_eq!(rows[0]["eventType"], "webhook.test", "{log}");
    assert_eq!(rows[1]["status"], "failed", "{log}");
    assert_eq!(rows[1]["responseStatus"], 500, "{log}");
    assert!(
        rows[2..].iter().all(|r| r["status"] == "succeeded"),
        "{log}"
    );
    assert_eq!(count(&app, requests, &event_id).await, 1);

    // Reading and retrying changed neither seeded endpoint.
    let failing = app
        .get_ok(&format!("/api/webhooks/{failing_id}"), &token)
        .await;
    assert_eq!(failing["state"], "failing", "{failing}");
    assert_eq!(failing["lastError"], LAST_ERROR, "{failing}");
    let disabled = app
        .get_ok(&format!("/api/webhooks/{disabled_id}"), &token)
        .await;
    assert_eq!(disabled["state"], "disabled", "{disabled}");
    assert_eq!(disabled["disabledReason"], DISABLED_REASON, "{disabled}");
}

/// The event types Settings → Webhooks offers (`web/dashboard/src/lib/webhooks.ts`) are the
/// event log's catalogue, in its order.
#[test]
fn the_dashboards_event_types_are_the_catalogues() {
    let source = std::fs::read_to_string(
        supportdesk_test_support::web::repo().join("web/dashboard/src/lib/webhooks.ts"),
    )
    .expect("the dashboard's webhooks module");
    let offered: Vec<&str> = source
        .split("{ type: \"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert_eq!(
        offered,
        supportdesk::events::catalogue::DomainEvent::TYPES,
        "EVENT_TYPES in web/dashboard/src/lib/webhooks.ts"
    );
}
