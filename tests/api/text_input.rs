//! Text the database cannot store is refused at the edge, for every handler at once.
//!
//! PostgreSQL `text` cannot hold U+0000: a NUL that reached a query failed there, as a 500.
//! `AppJson` and `AppQuery` now answer it with a 400 validation error naming the field; these
//! tests go through routes of different capabilities (search, conversations, registration)
//! to show the check is not per handler, and that nothing is stored.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app, unique_email};

const NUL_MESSAGE: &str = "must not contain the NUL character (U+0000)";

/// Asserts a validation problem whose `errors` names exactly `fields`; the body.
async fn assert_nul_refused(response: reqwest::Response, fields: &[&str]) -> Value {
    let body = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    let errors = body["errors"].as_object().expect("errors names the fields");
    let named: Vec<&str> = errors.keys().map(String::as_str).collect();
    assert_eq!(named, fields, "{body}");
    for field in fields {
        assert_eq!(errors[*field], json!([NUL_MESSAGE]), "{body}");
        assert!(
            body["detail"]
                .as_str()
                .is_some_and(|d| d.contains(&format!("{field} {NUL_MESSAGE}"))),
            "{body}"
        );
    }
    body
}

async fn tenant_count(app: &crate::helpers::TestApp, workspace: uuid::Uuid, table: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM \"ws_{}\".{table}",
        workspace.simple()
    )))
    .fetch_one(&app.db)
    .await
    .expect("count")
}

#[tokio::test]
async fn a_nul_in_a_search_query_is_a_bad_request_naming_q() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("nul-search").await;
    let token = owner.workspace_token.as_str();

    assert_nul_refused(
        app.get("/api/canned-responses?q=t%00x", Some(token)).await,
        &["q"],
    )
    .await;
    // Everywhere in the query: other parameters, other routes, a NUL alone.
    assert_nul_refused(
        app.get("/api/conversations?limit=5&status=%00", Some(token))
            .await,
        &["status"],
    )
    .await;
    assert_nul_refused(
        app.get("/auth/verify-email?token=%00", None).await,
        &["token"],
    )
    .await;

    // What merely looks like one is text like any other.
    let found = app.get("/api/canned-responses?q=%2500", Some(token)).await;
    assert_eq!(found.status(), StatusCode::OK);
    let plain = app.get("/api/canned-responses?q=t", Some(token)).await;
    assert_eq!(plain.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_nul_in_a_conversation_subject_is_refused_and_nothing_is_stored() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("nul-subject").await;
    let token = owner.workspace_token.as_str();

    let response = app
        .post_json(
            "/api/conversations",
            &json!({"contact": {"email": "carla@example.com", "name": "Carla"},
                    "subject": "\u{0}", "body": "Where is my order?"}),
            Some(token),
        )
        .await;
    assert_nul_refused(response, &["subject"]).await;

    // Nested fields are named by their path; every field holding one is named.
    let response = app
        .post_json(
            "/api/conversations",
            &json!({"contact": {"email": "carla@example.com", "name": "Car\u{0}la"},
                    "subject": "Order", "body": "x\u{0}"}),
            Some(token),
        )
        .await;
    assert_nul_refused(response, &["body", "contact.name"]).await;

    for table in ["contacts", "conversations", "messages"] {
        assert_eq!(
            tenant_count(&app, owner.workspace_id, table).await,
            0,
            "{table}"
        );
    }

    // An escaped backslash followed by "u0000" is text, and is stored as such.
    let response = app
        .post_json(
            "/api/conversations",
            &json!({"contact": {"email": "carla@example.com"},
                    "subject": "C:\\u0000", "body": "path"}),
            Some(token),
        )
        .await;
    let status = response.status();
    let created: Value = response.json().await.expect("json");
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["subject"], "C:\\u0000");
    assert_eq!(
        tenant_count(&app, owner.workspace_id, "conversations").await,
        1
    );
}

#[tokio::test]
async fn a_nul_in_a_registration_name_creates_no_user() {
    let app = spawn_app().await;
    let response = app
        .register(&unique_email(), "Corr3ctHorse", "Ann\u{0}")
        .await;
    assert_nul_refused(response, &["fullName"]).await;
    // Also in a key the handler would ignore.
    let response = app
        .post_json(
            "/auth/register",
            &json!({"email": unique_email(), "password": "Corr3ctHorse", "fullName": "Ann",
                    "x\u{0}": 1}),
            None,
        )
        .await;
    assert_nul_refused(response, &["x\\u0000"]).await;
    assert_eq!(app.count("users").await, 0);
    assert_eq!(app.count("outbox").await, 0);
}

/// The hub follows the same rule: a call whose text holds a NUL is refused as REST refuses
/// the body, naming the argument, for visitors and agents alike, and stores nothing.
#[tokio::test]
async fn hub_calls_holding_nul_are_refused_like_rest_bodies() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-nul").await;
    let site_key = app
        .widget_site(&owner, &[crate::helpers_widget::SITE])
        .await;
    let visitor = app.visitor(&site_key, None).await;
    let mut widget = app.hub(&visitor.token).await;
    let refused = widget.invoke("1", "SendMessage", json!(["a\u{0}b"])).await;
    assert_eq!(
        refused["error"],
        format!("'SendMessage' argument [0] {NUL_MESSAGE}"),
        "{refused}"
    );
    assert_eq!(
        tenant_count(&app, owner.workspace_id, "messages").await,
        0,
        "nothing stored"
    );

    let conversation = app
        .start_conversation(&owner.workspace_token, "nul@example.org", "Hello")
        .await;
    let mut team = app.hub(&owner.workspace_token).await;
    let refused = team
        .invoke("2", "SendNote", json!([conversation["id"], "note\u{0}"]))
        .await;
    assert_eq!(
        refused["error"],
        format!("'SendNote' argument [1] {NUL_MESSAGE}"),
        "{refused}"
    );
    assert_eq!(tenant_count(&app, owner.workspace_id, "messages").await, 1);
}
