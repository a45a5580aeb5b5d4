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

/// Events written without a number that no batch has numbered yet.
async fn waiting(app: &TestApp, workspace_id: Uuid) -> i64 {
    let schema = schema(workspace_id);
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM {schema}.events e
          WHERE e.seq IS NULL
            AND NOT EXISTS (SELECT FROM {schema}.event_batches b WHERE e.arrival = ANY (b.arrivals))"
    )))
    .fetch_one(&app.db)
    .await
    .unwrap()
}

/// A writer's transaction, as the API's go on a busy log: it has its id where the schema is,
/// takes an arrival, and writes a copy of a `conversation.created` event without a number;
/// not committed. Its event's id and arrival. (Statements of their own, as the API's are on
/// Citus.)
async fn begin_writer(
    app: &TestApp,
    workspace_id: Uuid,
) -> (sqlx::Transaction<'static, sqlx::Postgres>, Uuid, i64) {
    let (mut tx, arrival) = take_arrival(app, workspace_id).await;
    let id = write_event(&mut tx, workspace_id, arrival).await;
    (tx, id, arrival)
}

/// The start of [`begin_writer`]: the transaction's id, then its arrival.
async fn take_arrival(
    app: &TestApp,
    workspace_id: Uuid,
) -> (sqlx::Transaction<'static, sqlx::Postgres>, i64) {
    let schema = schema(workspace_id);
    let mut tx = app.db.begin().await.unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT pg_current_xact_id()::text FROM {schema}.event_log_head"
    )))
    .execute(&mut *tx)
    .await
    .unwrap();
    let arrival: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT nextval('{schema}.event_arrivals')"
    )))
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    (tx, arrival)
}

/// The rest of [`begin_writer`]: the event, with the arrival taken.
async fn write_event(tx: &mut sqlx::PgConnection, workspace_id: Uuid, arrival: i64) -> Uuid {
    let schema = schema(workspace_id);
    let (kind, actor_kind, actor_id, data, conversation_id): (
        String,
        String,
        Option<Uuid>,
        String,
        Option<Uuid>,
    ) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT type, actor_kind, actor_id, data::text, conversation_id FROM {schema}.events
          WHERE type = 'conversation.created' LIMIT 1"
    )))
    .fetch_one(&mut *tx)
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
    .execute(&mut *tx)
    .await
    .unwrap();
    id
}

/// What a replica that stopped between its commit and its pass leaves: an event committed
/// without a number.
async fn leave_waiting(app: &TestApp, workspace_id: Uuid) -> Uuid {
    let (tx, id, _) = begin_writer(app, workspace_id).await;
    tx.commit().await.unwrap();
    id
}

/// The log's watermark and the arrivals numbered above it.
async fn watermark(app: &TestApp, workspace_id: Uuid) -> (i64, Vec<i64>) {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT batched_through, above FROM {}.event_log_head",
        schema(workspace_id)
    )))
    .fetch_one(&app.db)
    .await
    .unwrap()
}

/// Whether the event `id` was numbered in its own row (its writer took the head), rather
/// than by a batch after its commit.
async fn numbered_in_its_row(app: &TestApp, workspace_id: Uuid, id: &Value) -> bool {
    let id: Uuid = id.as_str().unwrap().parse().unwrap();
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT seq IS NOT NULL FROM {}.events WHERE id = $1",
        schema(workspace_id)
    )))
    .bind(id)
    .fetch_one(&app.db)
    .await
    .unwrap()
}

/// Passes until the log is settled: every arrival handed out is numbered or settled, none is
/// listed above the watermark, and writers take numbers in their own transactions again.
async fn settled(app: &TestApp, workspace_id: Uuid) {
    let schema = supportdesk_core::tenancy::TenantSchema::for_workspace(workspace_id);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        app.state.events.settle(workspace_id, &schema).await;
        let (through, above) = watermark(app, workspace_id).await;
        let newest: Option<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT max(arrival) FROM {}.events",
            self::schema(workspace_id)
        )))
        .fetch_one(&app.db)
        .await
        .unwrap();
        if above.is_empty() && newest.is_none_or(|newest| newest <= through) {
            return;
        }
        assert!(Instant::now() < deadline, "the log never settled");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Replies, each after the log settled, until one takes its number in its own transaction: a
/// pass still running as the log settled holds the head a moment, and a reply then waits for
/// its number instead. Whether one did within five.
async fn replies_take_numbers_in_their_transactions(
    app: &TestApp,
    workspace_id: Uuid,
    token: &str,
    conversation: &str,
) -> bool {
    for n in 0..5 {
        settled(app, workspace_id).await;
        let answered = reply(app, token, conversation, &format!("Settled {n}")).await;
        let in_row: bool = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT seq IS NOT NULL FROM {}.events
              WHERE type = 'message.created' AND data->>'id' = $1",
            schema(workspace_id)
        )))
        .bind(answered["id"].as_str().unwrap())
        .fetch_one(&app.db)
        .await
        .unwrap();
        if in_row {
            return true;
        }
    }
    false
}

async fn reply(app: &TestApp, token: &str, conversation: &str, body: &str) -> Value {
    let response = app
        .post_json(
            &format!("/api/conversations/{conversation}/messages"),
            &json!({ "body": body }),
            Some(token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    response.json().await.unwrap()
}

/// Waits until no event waits for its number (the writers' passes ran).
async fn numbered(app: &TestApp, workspace_id: Uuid) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while waiting(app, workspace_id).await > 0 {
        assert!(Instant::now() < deadline, "the passes never numbered them");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn seqs(events: &[Value]) -> Vec<i64> {
    events.iter().map(|e| e["seq"].as_i64().unwrap()).collect()
}

/// A new workspace with one conversation: the app, the workspace's id, its owner's workspace
/// token, the conversation's id, and the log's head after it.
async fn workspace_with_a_conversation() -> (TestApp, Uuid, String, String, i64) {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.clone();
    let conversation = app
        .start_conversation(&token, "carla@example.org", "Hello")
        .await;
    let start = app.head(&token).await;
    (app, owner.workspace_id, token, id(&conversation), start)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_written_while_the_head_is_held_answers_at_once_and_is_numbered_after_it() {
    let (app, workspace_id, token, conversation, start) = workspace_with_a_conversation().await;
    let mut hub = hub_at(&app.client, &app.address, &token).await;

    // Another writer holds the head: it took the next number and has not committed yet.
    let schema = schema(workspace_id);
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
            &format!("/api/conversations/{conversation}/messages"),
            &json!({"body": "While the head was held"}),
            Some(&token),
        )
        .await;
    assert_eq!(reply.status(), StatusCode::CREATED);
    let reply: Value = reply.json().await.unwrap();
    assert_eq!(waiting(&app, workspace_id).await, 1);

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
    assert_eq!(waiting(&app, workspace_id).await, 0);
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
    let (app, workspace_id, token, conversation, start) = workspace_with_a_conversation().await;

    // A reader at the tail numbers what was left before it answers.
    let left = leave_waiting(&app, workspace_id).await;
    assert_eq!(waiting(&app, workspace_id).await, 1);
    let events = app.events_after(start, &token).await;
    assert_eq!(seqs(&events), [start + 1]);
    assert_eq!(events[0]["id"], left.to_string());
    assert_eq!(waiting(&app, workspace_id).await, 0);

    // The sweep numbers what was left. (This replica's passes drained first: a pass that
    // settles the log after the reader's would number it too.)
    app.state.events.drain().await;
    let left = leave_waiting(&app, workspace_id).await;
    assert_eq!(app.state.events.sweep().await.unwrap(), 1);
    assert_eq!(waiting(&app, workspace_id).await, 0);
    let events = app.events_after(start + 1, &token).await;
    assert_eq!(seqs(&events), [start + 2]);
    assert_eq!(events[0]["id"], left.to_string());
    assert_eq!(app.state.events.sweep().await.unwrap(), 0);

    // The next write waits behind what was left, and its pass numbers both, in their order.
    let left = leave_waiting(&app, workspace_id).await;
    let reply = app
        .post_json(
            &format!("/api/conversations/{conversation}/messages"),
            &json!({"body": "After the leftover"}),
            Some(&token),
        )
        .await;
    assert_eq!(reply.status(), StatusCode::CREATED);
    let deadline = Instant::now() + Duration::from_secs(10);
    while waiting(&app, workspace_id).await > 0 {
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

#[tokio::test]
async fn a_straggler_is_numbered_once_after_what_was_numbered_while_it_ran() {
    let (app, workspace, token, conversation, start) = workspace_with_a_conversation().await;

    // A writer took its arrival and wrote its event, and has not committed yet; one that
    // arrived after it commits, and is numbered first.
    let (straggler, straggler_id, straggler_arrival) = begin_writer(&app, workspace).await;
    let left = leave_waiting(&app, workspace).await;
    let events = app.events_after(start, &token).await;
    assert_eq!(seqs(&events), [start + 1]);
    assert_eq!(events[0]["id"], left.to_string());

    // The watermark cannot pass the straggler's arrival while it may still commit, so the
    // next reply waits for its number too, and gets it from a batch.
    let answered = reply(&app, &token, &conversation, "While it runs").await;
    numbered(&app, workspace).await;
    let events = app.events_after(start, &token).await;
    assert_eq!(seqs(&events), [start + 1, start + 2]);
    assert_eq!(events[1]["data"]["id"], answered["id"]);
    assert!(!numbered_in_its_row(&app, workspace, &events[1]["id"]).await);
    let (through, _) = watermark(&app, workspace).await;
    assert!(
        through < straggler_arrival,
        "{through} passed {straggler_arrival}"
    );

    // It commits: numbered next, once.
    straggler.commit().await.unwrap();
    let events = app.events_after(start + 2, &token).await;
    assert_eq!(seqs(&events), [start + 3]);
    assert_eq!(events[0]["id"], straggler_id.to_string());

    // Then the log settles, and a reply takes its number in its own transaction again.
    settled(&app, workspace).await;
    let answered = reply(&app, &token, &conversation, "Settled").await;
    let events = app.events_after(start, &token).await;
    assert_eq!(seqs(&events), [start + 1, start + 2, start + 3, start + 4]);
    assert_eq!(events[3]["data"]["id"], answered["id"]);
    assert!(
        replies_take_numbers_in_their_transactions(&app, workspace, &token, &conversation).await
    );
    let ids: std::collections::HashSet<&str> =
        events.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 4, "each event once");
}

#[tokio::test]
async fn an_arrival_whose_transaction_rolled_back_is_passed_over() {
    let (app, workspace, token, conversation, start) = workspace_with_a_conversation().await;

    let (rolled_back, _, gone) = begin_writer(&app, workspace).await;
    let left = leave_waiting(&app, workspace).await;
    rolled_back.rollback().await.unwrap();
    let events = app.events_after(start, &token).await;
    assert_eq!(seqs(&events), [start + 1]);
    assert_eq!(events[0]["id"], left.to_string());

    // The watermark passes the arrival that will never commit, and nothing waits for it.
    settled(&app, workspace).await;
    let (through, above) = watermark(&app, workspace).await;
    assert!(through > gone && above.is_empty());
    let answered = reply(&app, &token, &conversation, "After the rollback").await;
    let events = app.events_after(start, &token).await;
    assert_eq!(seqs(&events), [start + 1, start + 2]);
    assert_eq!(events[1]["data"]["id"], answered["id"]);
    assert!(
        replies_take_numbers_in_their_transactions(&app, workspace, &token, &conversation).await
    );
}

#[tokio::test]
async fn a_long_transaction_holds_the_watermark_but_not_the_numbering() {
    let (app, workspace, token, conversation, start) = workspace_with_a_conversation().await;

    // A transaction with an id, open for the whole burst (a long report, a migration): no
    // arrival of its own, but the watermark cannot tell it from a writer.
    let mut long = app.db.begin().await.unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT pg_current_xact_id()::text FROM {}.event_log_head",
        schema(workspace)
    )))
    .execute(&mut *long)
    .await
    .unwrap();
    leave_waiting(&app, workspace).await;
    app.events_after(start, &token).await;

    // Every reply meanwhile waits for its number and gets it, in order, without gaps.
    let mut sent = Vec::new();
    for n in 0..10 {
        let answered = reply(&app, &token, &conversation, &format!("Reply {n}")).await;
        sent.push(answered["id"].clone());
    }
    numbered(&app, workspace).await;
    let events = app.events_after(start, &token).await;
    assert_eq!(seqs(&events), (start + 1..=start + 11).collect::<Vec<_>>());
    let heard: Vec<Value> = events[1..]
        .iter()
        .map(|e| e["data"]["id"].clone())
        .collect();
    assert_eq!(heard, sent);
    let (_, above) = watermark(&app, workspace).await;
    assert_eq!(
        above.len(),
        11,
        "numbered above a watermark held back: {above:?}"
    );

    // Once it ends, the log settles and replies take their numbers in their transactions.
    long.commit().await.unwrap();
    settled(&app, workspace).await;
    let answered = reply(&app, &token, &conversation, "After it").await;
    let events = app.events_after(start + 11, &token).await;
    assert_eq!(seqs(&events), [start + 12]);
    assert_eq!(events[0]["data"]["id"], answered["id"]);
    assert!(
        replies_take_numbers_in_their_transactions(&app, workspace, &token, &conversation).await
    );
}

/// The watermark waits for a writer that has taken its arrival and not written its event yet:
/// what holds it back is the writer's transaction id, taken where the workspace's tables are
/// before the arrival (on Citus, the worker node's: the horizon is read there).
#[tokio::test]
async fn a_writer_between_its_arrival_and_its_event_holds_the_watermark() {
    let (app, workspace, token, _, start) = workspace_with_a_conversation().await;
    let schema = supportdesk_core::tenancy::TenantSchema::for_workspace(workspace);

    let (mut writer, arrival) = take_arrival(&app, workspace).await;
    let left = leave_waiting(&app, workspace).await;
    // Passes: the first numbers what committed and takes a ticket past the writer's arrival;
    // the ones after may not settle it while the writer runs.
    for _ in 0..4 {
        app.state.events.settle(workspace, &schema).await;
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    let (through, above) = watermark(&app, workspace).await;
    assert!(
        through < arrival,
        "{through} passed {arrival}, still running"
    );
    let events = app.events_after(start, &token).await;
    assert_eq!(seqs(&events), [start + 1]);
    assert_eq!(events[0]["id"], left.to_string());
    assert!(!above.is_empty());

    let written = write_event(&mut writer, workspace, arrival).await;
    writer.commit().await.unwrap();
    let events = app.events_after(start + 1, &token).await;
    assert_eq!(seqs(&events), [start + 2]);
    assert_eq!(events[0]["id"], written.to_string());
    settled(&app, workspace).await;
    assert_eq!(waiting(&app, workspace).await, 0);
}
