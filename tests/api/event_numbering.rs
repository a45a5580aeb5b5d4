//! Events numbered after their commit: a writer that finds the log's head busy writes its
//! events without numbers; they stay out of every reader's sight until a pass numbers them,
//! after the events before them, and nothing is numbered twice or skipped.

use std::time::{Duration, Instant};

use futures::future::join_all;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{TestApp, spawn_app};
use crate::helpers_conversations::id;
use crate::helpers_hub::hub_at;

fn schema(workspace_id: Uuid) -> String {
    format!("ws_{}", workspace_id.simple())
}

async fn waiting(app: &TestApp, workspace_id: Uuid) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM {}.events WHERE seq IS NULL",
        schema(workspace_id)
    )))
    .fetch_one(&app.db)
    .await
    .unwrap()
}

/// What a replica that stopped between its commit and its pass leaves: a copy of the newest
/// event, committed without a number. (Statements of their own, as the API's are on Citus.)
async fn leave_waiting(app: &TestApp, workspace_id: Uuid) -> Uuid {
    let schema = schema(workspace_id);
    let (kind, actor_kind, actor_id, data, conversation_id): (
        String,
        String,
        Option<Uuid>,
        String,
        Option<Uuid>,
    ) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT type, actor_kind, actor_id, data::text, conversation_id FROM {schema}.events
          WHERE seq IS NOT NULL ORDER BY seq DESC LIMIT 1"
    )))
    .fetch_one(&app.db)
    .await
    .unwrap();
    let arrival: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT nextval('{schema}.event_arrivals')"
    )))
    .fetch_one(&app.db)
    .await
    .unwrap();
    let id = Uuid::now_v7();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO {schema}.events (arrival, id, type, actor_kind, actor_id, data, conversation_id)
         VALUES ($1, $2, $3, $4, $5, $6::json, $7)"
    )))
    .bind(arrival)
    .bind(id)
    .bind(kind)
    .bind(actor_kind)
    .bind(actor_id)
    .bind(data)
    .bind(conversation_id)
    .execute(&app.db)
    .await
    .unwrap();
    id
}

fn seqs(events: &[Value]) -> Vec<i64> {
    events.iter().map(|e| e["seq"].as_i64().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_written_while_the_head_is_held_answers_at_once_and_is_numbered_after_it() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.clone();
    let conversation = app
        .start_conversation(&token, "carla@example.org", "Hello")
        .await;
    let start = app.head(&token).await;
    let mut hub = hub_at(&app.client, &app.address, &token).await;

    // Another writer holds the head: it took the next number and has not committed yet.
    let schema = schema(owner.workspace_id);
    let mut holder = app.db.begin().await.unwrap();
    let held: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "UPDATE {schema}.event_log_head SET seq = seq + 1 RETURNING seq"
    )))
    .fetch_one(&mut *holder)
    .await
    .unwrap();
    // The reply commits without waiting for the head, and answers: its event waits for its
    // number.
    let reply = app
        .post_json(
            &format!("/api/conversations/{}/messages", id(&conversation)),
            &json!({"body": "While the head was held"}),
            Some(&token),
        )
        .await;
    assert_eq!(reply.status(), StatusCode::CREATED);
    let reply: Value = reply.json().await.unwrap();
    assert_eq!(waiting(&app, owner.workspace_id).await, 1);

    // A reader at the tail waits for it to be numbered, which waits for the holder.
    let reader = {
        let client = app.client.clone();
        let url = app.url(&format!("/api/events?after={start}&limit=100"));
        let token = token.clone();
        tokio::spawn(async move {
            let response = client.get(url).bearer_auth(token).send().await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            response.json::<Value>().await.unwrap()
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !reader.is_finished(),
        "the reader answered without the reply's event"
    );

    // The holder commits an event with its number; the reply's comes next.
    let contact: String = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT data::text FROM {schema}.events WHERE type = 'contact.created'"
    )))
    .fetch_one(&mut *holder)
    .await
    .unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO {schema}.events (seq, id, type, actor_kind, data)
         VALUES ($1, $2, 'contact.updated', 'system', $3::json)"
    )))
    .bind(held)
    .bind(Uuid::now_v7())
    .bind(contact)
    .execute(&mut *holder)
    .await
    .unwrap();
    holder.commit().await.unwrap();
    let page = reader.await.unwrap();
    let events = page["events"].as_array().unwrap();
    assert_eq!(seqs(events), [start + 1, start + 2]);
    assert_eq!(events[1]["type"], "message.created");
    assert_eq!(events[1]["data"]["id"], reply["id"]);
    assert_eq!(page["head"], start + 2);
    assert_eq!(waiting(&app, owner.workspace_id).await, 0);
    // The hub hears it once numbered, with its number (after the conversation's first
    // message, when that was still on its way as the hub connected).
    let created = loop {
        let created = hub.event_named("MessageCreated").await;
        if created["message"]["id"] == reply["id"] {
            break created;
        }
    };
    assert_eq!(created["seq"], start + 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn writers_at_once_in_one_workspace_get_every_number_once_each_in_their_order() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.clone();
    let mut conversations = Vec::new();
    for n in 0..4 {
        let conversation = app
            .start_conversation(&token, &format!("c{n}@example.org"), "Hello")
            .await;
        conversations.push(id(&conversation));
    }
    let start = app.head(&token).await;

    const WRITERS: usize = 16;
    const REPLIES: usize = 8;
    let writers = (0..WRITERS).map(|w| {
        let (client, token) = (app.client.clone(), token.clone());
        let url = app.url(&format!(
            "/api/conversations/{}/messages",
            conversations[w % conversations.len()]
        ));
        async move {
            for r in 0..REPLIES {
                let response = client
                    .post(&url)
                    .bearer_auth(&token)
                    .json(&json!({"body": format!("{w}.{r}")}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status(), StatusCode::CREATED);
            }
        }
    });
    join_all(writers).await;

    // A reader at the tail finds every write (what still waited is numbered for it).
    let events = app.events_after(start, &token).await;
    assert_eq!(waiting(&app, owner.workspace_id).await, 0);
    let expected: Vec<i64> = (start + 1..=start + (WRITERS * REPLIES) as i64).collect();
    assert_eq!(seqs(&events), expected, "every number once, none skipped");
    // A writer's replies, each sent after the one before was answered, in its order.
    for w in 0..WRITERS {
        let mine: Vec<&str> = events
            .iter()
            .filter_map(|e| e["data"]["body"].as_str())
            .filter(|body| body.split('.').next() == Some(&w.to_string()))
            .collect();
        let sent: Vec<String> = (0..REPLIES).map(|r| format!("{w}.{r}")).collect();
        assert_eq!(mine, sent, "writer {w}");
    }
}

#[tokio::test]
async fn events_left_waiting_are_numbered_by_a_tail_reader_the_sweep_or_the_next_write() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.clone();
    let conversation = app
        .start_conversation(&token, "carla@example.org", "Hello")
        .await;
    let start = app.head(&token).await;

    // A reader at the tail numbers what was left before it answers.
    let left = leave_waiting(&app, owner.workspace_id).await;
    assert_eq!(waiting(&app, owner.workspace_id).await, 1);
    let events = app.events_after(start, &token).await;
    assert_eq!(seqs(&events), [start + 1]);
    assert_eq!(events[0]["id"], left.to_string());
    assert_eq!(waiting(&app, owner.workspace_id).await, 0);

    // The sweep numbers what was left.
    let left = leave_waiting(&app, owner.workspace_id).await;
    assert_eq!(app.state.events.sweep().await.unwrap(), 1);
    assert_eq!(waiting(&app, owner.workspace_id).await, 0);
    let events = app.events_after(start + 1, &token).await;
    assert_eq!(seqs(&events), [start + 2]);
    assert_eq!(events[0]["id"], left.to_string());
    assert_eq!(app.state.events.sweep().await.unwrap(), 0);

    // The next write waits behind what was left, and its pass numbers both, in their order.
    let left = leave_waiting(&app, owner.workspace_id).await;
    let reply = app
        .post_json(
            &format!("/api/conversations/{}/messages", id(&conversation)),
            &json!({"body": "After the leftover"}),
            Some(&token),
        )
        .await;
    assert_eq!(reply.status(), StatusCode::CREATED);
    let deadline = Instant::now() + Duration::from_secs(10);
    while waiting(&app, owner.workspace_id).await > 0 {
        assert!(
            Instant::now() < deadline,
            "the write's pass never numbered them"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let events = app.events_after(start + 2, &token).await;
    assert_eq!(seqs(&events), [start + 3, start + 4]);
    assert_eq!(events[0]["id"], left.to_string());
    assert_eq!(events[1]["data"]["body"], "After the leftover");
}

#[tokio::test]
async fn a_webhook_endpoint_made_while_events_wait_starts_after_them() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.clone();
    app.start_conversation(&token, "carla@example.org", "Hello")
        .await;
    let start = app.head(&token).await;
    let left = leave_waiting(&app, owner.workspace_id).await;

    let created = app
        .json_ok(
            Method::POST,
            "/api/webhooks",
            &json!({"url": "https://hooks.example.com/in", "eventTypes": ["*"]}),
            &token,
            StatusCode::CREATED,
        )
        .await;

    // What waited was numbered first, and the endpoint starts after it: it hears only what
    // happens once it exists.
    let events = app.events_after(start, &token).await;
    assert_eq!(seqs(&events), [start + 1]);
    assert_eq!(events[0]["id"], left.to_string());
    let cursor: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT cursor FROM {}.webhook_endpoints WHERE id = $1",
        schema(owner.workspace_id)
    )))
    .bind(id(&created).parse::<Uuid>().unwrap())
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(cursor, start + 1);
}
