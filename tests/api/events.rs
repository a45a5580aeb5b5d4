//! The workspace event log (`GET /api/events`): every change recorded once, in commit order,
//! numbered without gaps, readable a page at a time by members and API keys, and never
//! another workspace's.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{Owner, TestApp, assert_problem, spawn_app};
use crate::helpers_conversations::id;

impl TestApp {
    /// `GET /api/events` with `query`, asserting 200; the page.
    pub async fn events_page(&self, query: &str, token: &str) -> Value {
        self.get_ok(&format!("/api/events{query}"), token).await
    }

    /// Every event after `after`, read page by page.
    pub async fn events_after(&self, after: i64, token: &str) -> Vec<Value> {
        let mut after = after;
        let mut all = Vec::new();
        loop {
            let page = self
                .events_page(&format!("?after={after}&limit=3"), token)
                .await;
            let events = page["events"].as_array().unwrap().clone();
            let next = page["nextAfter"].as_i64().unwrap();
            if events.is_empty() {
                assert_eq!(next, after, "an empty page keeps the cursor");
                return all;
            }
            assert_eq!(next, events.last().unwrap()["seq"].as_i64().unwrap());
            all.extend(events);
            after = next;
        }
    }

    /// The workspace's newest seq.
    pub async fn head(&self, token: &str) -> i64 {
        let page = self.events_page("", token).await;
        assert_eq!(page["events"], json!([]));
        assert_eq!(page["nextAfter"], page["head"]);
        page["head"].as_i64().unwrap()
    }
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

fn seqs(events: &[Value]) -> Vec<i64> {
    events.iter().map(|e| e["seq"].as_i64().unwrap()).collect()
}

#[tokio::test]
async fn every_change_is_recorded_once_in_commit_order_without_gaps() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let me = app.owner_agent(&owner).await;
    let token = owner.workspace_token.as_str();
    let start = app.head(token).await;

    let conversation = app
        .start_conversation(token, "carla@example.org", "Hello")
        .await;
    let conversation_id = id(&conversation);
    let reply = app
        .json_ok(
            Method::POST,
            &format!("/api/conversations/{conversation_id}/messages"),
            &json!({"body": "A reply"}),
            token,
            StatusCode::CREATED,
        )
        .await;
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{conversation_id}/notes"),
        &json!({"body": "Internal"}),
        token,
        StatusCode::CREATED,
    )
    .await;
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{conversation_id}/status"),
        &json!({"status": "pending"}),
        token,
        StatusCode::OK,
    )
    .await;
    let ticket = app.open_ticket(token, "carla@example.org", json!({})).await;
    let ticket_id = id(&ticket);
    app.json_ok(
        Method::POST,
        &format!("/api/tickets/{ticket_id}/comments"),
        &json!({"body": "Looking"}),
        token,
        StatusCode::CREATED,
    )
    .await;
    app.json_ok(
        Method::POST,
        &format!("/api/tickets/{ticket_id}/resolve"),
        &json!({}),
        token,
        StatusCode::OK,
    )
    .await;

    let events = app.events_after(start, token).await;
    assert_eq!(
        types(&events),
        [
            "contact.created",
            "conversation.created",
            "message.created",
            "message.created",
            "message.created",
            "conversation.updated",
            "ticket.created",
            "ticket_comment.created",
            "ticket.updated",
        ]
    );
    let expected: Vec<i64> = (start + 1..=start + 9).collect();
    assert_eq!(seqs(&events), expected, "numbered without gaps");
    for event in &events {
        assert_eq!(event["actor"], json!({"kind": "agent", "id": me.agent_id}));
        assert!(event["id"].as_str().unwrap().parse::<Uuid>().is_ok());
        assert!(event["occurredAt"].as_str().unwrap().ends_with('Z'));
    }
    // The resource as the REST API shows it.
    assert_eq!(events[1]["data"], conversation);
    let replied = &events[3]["data"];
    assert_eq!(replied["conversationId"], conversation["id"]);
    assert_eq!(replied["contactId"], conversation["contact"]["id"]);
    for field in ["id", "kind", "body", "authorAgentId", "createdAt"] {
        assert_eq!(replied[field], reply[field], "{field}");
    }
    assert_eq!(events[4]["data"]["kind"], "note");
    assert_eq!(events[5]["data"]["status"], "pending");
    assert_eq!(events[6]["data"], ticket);
    assert_eq!(events[8]["data"]["status"], "resolved");
    assert_eq!(app.head(token).await, start + 9);
}

#[tokio::test]
async fn a_refused_change_records_nothing() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.as_str();
    let conversation = app
        .start_conversation(token, "carla@example.org", "Hello")
        .await;
    let head = app.head(token).await;
    let refused = app
        .post_json(
            &format!("/api/conversations/{}/assign", id(&conversation)),
            &json!({"assigneeId": Uuid::new_v4()}),
            Some(token),
        )
        .await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    let missing = app
        .post_json(
            &format!("/api/conversations/{}/messages", Uuid::new_v4()),
            &json!({"body": "into nothing"}),
            Some(token),
        )
        .await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert_eq!(app.head(token).await, head);
    assert!(app.events_after(head, token).await.is_empty());
}

#[tokio::test]
async fn pages_follow_the_cursor_and_queries_are_checked() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.as_str();
    for n in 0..3 {
        app.start_conversation(token, &format!("c{n}@example.org"), "Hi")
            .await;
    }
    let page = app.events_page("?after=0&limit=4", token).await;
    assert_eq!(seqs(page["events"].as_array().unwrap()), [1, 2, 3, 4]);
    assert_eq!(page["nextAfter"], 4);
    assert_eq!(page["head"], 9);
    let rest = app.events_page("?after=4", token).await;
    assert_eq!(seqs(rest["events"].as_array().unwrap()), [5, 6, 7, 8, 9]);
    let past_the_end = app.events_page("?after=9", token).await;
    assert_eq!(past_the_end["events"], json!([]));
    assert_eq!(past_the_end["nextAfter"], 9);

    for query in [
        "?limit=0",
        "?limit=1001",
        "?after=-1",
        "?after=abc",
        "?after=1&after=2",
        "?since=3",
    ] {
        let response = app.get(&format!("/api/events{query}"), Some(token)).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{query}");
    }
}

#[tokio::test]
async fn events_older_than_what_is_kept_answer_410() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.as_str();
    for n in 0..2 {
        app.start_conversation(token, &format!("c{n}@example.org"), "Hi")
            .await;
    }
    // What the retention pass (the worker's, tested there) leaves behind.
    let schema = format!("ws_{}", owner.workspace_id.simple());
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "WITH gone AS (DELETE FROM {schema}.events WHERE seq <= 3)
         UPDATE {schema}.event_log_head SET pruned_through = 3"
    )))
    .execute(&app.db)
    .await
    .unwrap();
    let expired = app.get("/api/events?after=2", Some(token)).await;
    let problem = assert_problem(expired, StatusCode::GONE, "events_expired").await;
    assert!(problem["detail"].as_str().unwrap().contains("reload"));
    let kept = app.events_page("?after=3", token).await;
    assert_eq!(seqs(kept["events"].as_array().unwrap()), [4, 5, 6]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prune_committed_while_a_page_is_read_answers_410_not_a_page_with_a_hole() {
    if supportdesk_test_support::citus::cluster_mode() {
        // The interleaving below is forced with a table lock taken on one PostgreSQL.
        return;
    }
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.clone();
    for n in 0..2 {
        app.start_conversation(&token, &format!("c{n}@example.org"), "Hi")
            .await;
    }
    // A prune in flight: events up to 3 deleted, `pruned_through` moved, not yet committed,
    // and the log's table held so that a reader of it waits for the commit.
    let schema = format!("ws_{}", owner.workspace_id.simple());
    let mut prune = app.db.begin().await.unwrap();
    for statement in [
        format!("LOCK TABLE {schema}.events IN ACCESS EXCLUSIVE MODE"),
        format!("DELETE FROM {schema}.events WHERE seq <= 3"),
        format!("UPDATE {schema}.event_log_head SET pruned_through = 3"),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(statement))
            .execute(&mut *prune)
            .await
            .unwrap();
    }
    // `after=2` is still answerable before the prune commits.
    let reader = {
        let client = app.client.clone();
        let url = app.url("/api/events?after=2");
        tokio::spawn(async move { client.get(url).bearer_auth(token).send().await })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let waiting: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .fetch_one(&app.db)
        .await
        .unwrap();
        if waiting > 0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the reader never waited"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    prune.commit().await.unwrap();
    let response = reader.await.unwrap().unwrap();
    assert_problem(response, StatusCode::GONE, "events_expired").await;
}

#[tokio::test]
async fn members_and_api_keys_read_their_own_workspace_only() {
    let app = spawn_app().await;
    let acme = app.owner_with_workspace("acme").await;
    let globex = app.owner_with_workspace("globex").await;
    app.start_conversation(&acme.workspace_token, "carla@example.org", "Hi")
        .await;
    let agent = app.member(&acme, "agent").await;
    let (_, key) = app.api_key(&acme.workspace_token).await;

    let by_agent = app.events_after(0, &agent.workspace_token).await;
    let by_key = app.events_after(0, &key).await;
    assert_eq!(by_agent, by_key);
    assert!(types(&by_agent).contains(&"conversation.created"));
    assert!(
        types(&by_agent).contains(&"agent.updated"),
        "the agent joined"
    );
    let joined = by_agent
        .iter()
        .find(|e| e["type"] == "agent.updated")
        .unwrap();
    assert_eq!(joined["data"]["change"], "joined");
    assert_eq!(joined["data"]["id"], json!(agent.agent_id));
    assert!(joined["data"].get("presence").is_none());

    // Another workspace has its own log, which says nothing of acme's.
    assert!(
        app.events_after(0, &globex.workspace_token)
            .await
            .is_empty()
    );
    check_refusals(&app, &acme).await;
}

async fn check_refusals(app: &TestApp, owner: &Owner) {
    let none = app.get("/api/events?after=0", None).await;
    assert_eq!(none.status(), StatusCode::UNAUTHORIZED);
    let user_token = app
        .get("/api/events?after=0", Some(&owner.user_token))
        .await;
    assert_eq!(user_token.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_visitor_is_recorded_as_the_actor_of_what_they_write() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.as_str();
    let site_key = app.widget_site(&owner, &["https://shop.example"]).await;
    let head = app.head(token).await;
    let visitor = app.visitor(&site_key, None).await;
    app.visitor_said(&visitor, "Hello from the shop").await;
    app.visitor_said(&visitor, "Anyone?").await;
    let events = app.events_after(head, token).await;
    assert_eq!(
        types(&events),
        [
            "contact.created",
            "conversation.created",
            "message.created",
            "message.created"
        ]
    );
    let contact_id = events[0]["data"]["id"].clone();
    for event in &events {
        assert_eq!(event["actor"], json!({"kind": "visitor", "id": contact_id}));
    }
    assert_eq!(events[2]["data"]["kind"], "incoming");
    assert_eq!(events[3]["data"]["conversationId"], events[1]["data"]["id"]);
    // The visitor's token reads no log.
    let refused = app.get("/api/events?after=0", Some(&visitor.token)).await;
    assert!(refused.status().is_client_error());
}

/// The reply path writes `message.created`'s time in SQL, and the events API hands that text
/// out as it is: it must be exactly what the REST API writes for the same instant.
#[tokio::test]
async fn times_written_in_sql_read_as_the_rest_api_writes_them() {
    use supportdesk::conversations::messages::rfc3339_utc;
    use time::OffsetDateTime;
    let app = spawn_app().await;
    for micros in [0_i64, 5, 100_000, 123_450, 999_999, 1_764_182_637_123_456] {
        let at = OffsetDateTime::UNIX_EPOCH + time::Duration::microseconds(micros);
        let sql: String = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT {} FROM (SELECT $1::timestamptz AS t) x",
            rfc3339_utc("x.t")
        )))
        .bind(at)
        .fetch_one(&app.db)
        .await
        .unwrap();
        let rest = at
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap();
        assert_eq!(sql, rest, "{micros} µs");
    }
}

#[tokio::test]
async fn the_log_reads_back_typed() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.as_str();
    let conversation = app
        .start_conversation(token, "carla@example.org", "Hello")
        .await;
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{}/messages", id(&conversation)),
        &json!({"body": "A \"quoted\" reply\nwith a newline"}),
        token,
        StatusCode::CREATED,
    )
    .await;
    let schema = supportdesk_core::tenancy::TenantSchema::for_workspace(owner.workspace_id);
    let mut conn = app.db.acquire().await.unwrap();
    let typed = supportdesk::events::log::read(&mut conn, &schema, 0, None, 100)
        .await
        .unwrap();
    let api = app.events_after(0, token).await;
    assert_eq!(typed.len(), api.len());
    for (typed, shown) in typed.iter().zip(&api) {
        assert_eq!(
            serde_json::to_value(typed).unwrap(),
            *shown,
            "read typed, shown again"
        );
    }
}
