//! The inbox's filters (`GET /api/conversations?channel=&priority=&createdAfter=&unread=...`)
//! and saved views: personal ones for their owner alone, shared ones kept by Owners, each
//! with the count of what it holds for whoever looks.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::helpers::{TestApp, assert_problem, spawn_app, unique_email};
use crate::helpers_conversations::{at, id, ids};
use crate::helpers_widget::SITE;

impl TestApp {
    async fn save_view(&self, token: &str, body: Value) -> Value {
        self.json_ok(
            Method::POST,
            "/api/views",
            &body,
            token,
            StatusCode::CREATED,
        )
        .await
    }

    /// `(name, count)` of each view the caller sees, in order.
    async fn views(&self, token: &str) -> Vec<(String, i64)> {
        self.get_ok("/api/views", token).await["views"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["name"].as_str().unwrap().to_owned(),
                    v["count"].as_i64().unwrap(),
                )
            })
            .collect()
    }
}

fn rfc3339(at: OffsetDateTime) -> String {
    url::form_urlencoded::byte_serialize(at.format(&Rfc3339).unwrap().as_bytes()).collect()
}

#[tokio::test]
async fn the_inbox_combines_channel_priority_ranges_and_unread() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("inbox-filters").await;
    let token = owner.workspace_token.as_str();
    let manual = id(&app.start_conversation(token, &unique_email(), "hi").await);
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{manual}/priority"),
        &json!({"priority": "urgent"}),
        token,
        StatusCode::OK,
    )
    .await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    let chat = app
        .visitor_said(&visitor, "Is anyone there?")
        .await
        .to_string();
    let chat_at = at(
        &app.get_ok(&format!("/api/conversations/{chat}"), token)
            .await,
        "createdAt",
    );

    let list = |query: String| {
        let app = &app;
        async move {
            ids(
                &app.get_ok(&format!("/api/conversations?{query}"), token)
                    .await,
                "conversations",
            )
        }
    };
    assert_eq!(list("channel=chat".into()).await, [chat.as_str()]);
    assert_eq!(
        list("channel=manual&priority=urgent".into()).await,
        [manual.as_str()]
    );
    assert!(list("channel=chat&priority=urgent".into()).await.is_empty());
    assert_eq!(
        list(format!("createdAfter={}", rfc3339(chat_at))).await,
        [chat.as_str()]
    );
    assert_eq!(
        list(format!("createdBefore={}", rfc3339(chat_at))).await,
        [manual.as_str()]
    );
    assert_eq!(
        list(format!(
            "updatedAfter={}",
            rfc3339(chat_at - time::Duration::HOUR)
        ))
        .await
        .len(),
        2
    );
    assert!(
        list(format!(
            "updatedBefore={}",
            rfc3339(chat_at - time::Duration::HOUR)
        ))
        .await
        .is_empty()
    );
    // Unread: the visitor's message, until the owner reads it.
    assert_eq!(list("unread=true".into()).await, [chat.as_str()]);
    let read = app
        .send(
            Method::POST,
            &format!("/api/conversations/{chat}/read"),
            None,
            Some(token),
        )
        .await;
    assert!(read.status().is_success(), "{}", read.status());
    assert!(list("unread=true".into()).await.is_empty());
    assert_eq!(
        list("unread=false".into()).await.len(),
        2,
        "false filters nothing"
    );

    // Bad filters are a 400, naming the field where the check is ours.
    for query in [
        "channel=fax",
        "priority=extreme",
        "createdAfter=yesterday",
        "unread=maybe",
    ] {
        let refused = app
            .get(&format!("/api/conversations?{query}"), Some(token))
            .await;
        assert_problem(refused, StatusCode::BAD_REQUEST, "invalid_query").await;
    }
    for (query, field) in [
        ("assignee=someone", "assignee"),
        (
            "createdAfter=2026-02-01T00:00:00Z&createdBefore=2026-01-01T00:00:00Z",
            "createdBefore",
        ),
    ] {
        let refused = app
            .get(&format!("/api/conversations?{query}"), Some(token))
            .await;
        let body = assert_problem(refused, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert!(body["errors"][field].is_array(), "{query}: {body}");
    }
}

#[tokio::test]
async fn personal_views_are_their_owners_and_shared_ones_the_owners_to_keep() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("views").await;
    let token = owner.workspace_token.as_str();
    let agent = app.join(&owner, "agent").await;
    let bea = app.join(&owner, "agent").await;
    let first = id(&app.start_conversation(token, &unique_email(), "one").await);
    id(&app.start_conversation(token, &unique_email(), "two").await);
    // Each was assigned to the owner who started it; `first` goes to the agent.
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{first}/assign"),
        &json!({"assigneeId": agent.agent_id}),
        token,
        StatusCode::OK,
    )
    .await;

    // A shared "Mine" counts for whoever looks: `me` is the reader.
    let mine = app
        .save_view(
            token,
            json!({"name": "Mine, open", "shared": true,
                   "filters": {"assignee": "me", "status": "open"}}),
        )
        .await;
    assert_eq!(mine["shared"], true);
    assert_eq!(mine["filters"], json!({"assignee": "me", "status": "open"}));
    assert_eq!(
        mine["count"], 1,
        "the owner started both, and holds one: {mine}"
    );
    app.save_view(
        token,
        json!({"name": "Everything", "shared": true, "filters": {}}),
    )
    .await;
    let personal = app
        .save_view(
            &agent.token,
            json!({"name": "Started here", "filters": {"channel": "manual"}}),
        )
        .await;
    assert_eq!(personal["shared"], false);

    assert_eq!(
        app.views(&agent.token).await,
        [
            ("Mine, open".to_owned(), 1),
            ("Everything".to_owned(), 2),
            ("Started here".to_owned(), 2)
        ],
        "shared first, then their own, each in order"
    );
    assert_eq!(
        app.views(&bea.token).await,
        [("Mine, open".to_owned(), 0), ("Everything".to_owned(), 2)],
        "another agent's personal view is not there"
    );

    // An agent keeps their own, never the shared ones; another's view is not found.
    let shared_path = format!("/api/views/{}", id(&mine));
    let personal_path = format!("/api/views/{}", id(&personal));
    let refused = app
        .post_json(
            "/api/views",
            &json!({"name": "Team", "shared": true, "filters": {}}),
            Some(&agent.token),
        )
        .await;
    assert_problem(refused, StatusCode::FORBIDDEN, "owner_only").await;
    let refused = app
        .patch_json(&shared_path, &json!({"name": "Ours"}), Some(&agent.token))
        .await;
    assert_problem(refused, StatusCode::FORBIDDEN, "owner_only").await;
    let refused = app.delete(&shared_path, Some(&agent.token)).await;
    assert_problem(refused, StatusCode::FORBIDDEN, "owner_only").await;
    let refused = app
        .patch_json(&personal_path, &json!({"shared": true}), Some(&agent.token))
        .await;
    assert_problem(refused, StatusCode::FORBIDDEN, "owner_only").await;
    for stranger in [bea.token.as_str(), token] {
        let hidden = app
            .patch_json(&personal_path, &json!({"name": "Mine now"}), Some(stranger))
            .await;
        assert_eq!(hidden.status(), StatusCode::NOT_FOUND);
        assert_eq!(
            app.delete(&personal_path, Some(stranger)).await.status(),
            StatusCode::NOT_FOUND
        );
    }

    // The owner of a view renames, refilters and reorders it.
    let changed = app
        .json_ok(
            Method::PATCH,
            &personal_path,
            &json!({"name": "Urgent", "filters": {"priority": "urgent"}, "position": -1}),
            &agent.token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(changed["name"], "Urgent");
    assert_eq!(changed["filters"], json!({"priority": "urgent"}));
    assert_eq!(changed["count"], 0);

    // Bad views are refused, whole, and nothing is saved.
    let label_elsewhere = app.owner_with_workspace("views-other").await;
    let foreign = app
        .json_ok(
            Method::POST,
            "/api/labels",
            &json!({"name": "Foreign", "color": "#000000"}),
            &label_elsewhere.workspace_token,
            StatusCode::CREATED,
        )
        .await;
    for (body, field) in [
        (json!({"name": "", "filters": {}}), "name"),
        (
            json!({"name": "x", "filters": {"stauts": "open"}}),
            "filters",
        ),
        (
            json!({"name": "x", "filters": {"status": "closed"}}),
            "filters",
        ),
        (json!({"name": "x", "filters": []}), "filters"),
        (
            json!({"name": "x", "filters": {"assignee": "someone"}}),
            "assignee",
        ),
        (
            json!({"name": "x", "filters": {"label": id(&foreign)}}),
            "filters.label",
        ),
        (
            json!({"name": "x", "filters": {"assignee": uuid::Uuid::new_v4()}}),
            "filters.assignee",
        ),
    ] {
        let refused = app.post_json("/api/views", &body, Some(&agent.token)).await;
        let problem = assert_problem(refused, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert!(problem["errors"][field].is_array(), "{body}: {problem}");
    }
    let missing = app
        .post_json("/api/views", &json!({"name": "x"}), Some(&agent.token))
        .await;
    assert_eq!(missing.status(), StatusCode::BAD_REQUEST);
    assert_eq!(app.views(&agent.token).await.len(), 3);

    // Deleted; an API key has no views.
    assert_eq!(
        app.delete(&personal_path, Some(&agent.token))
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(app.views(&agent.token).await.len(), 2);
    let (_, key) = app.api_key(token).await;
    let refused = app.get("/api/views", Some(&key)).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
}
