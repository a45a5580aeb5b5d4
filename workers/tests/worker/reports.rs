//! Reports, folded from the event log by the worker, on constructed timelines: the metric
//! definitions (docs/reports.md) across a weekend, a holiday and a daylight-saving change,
//! with notes, a reply no agent wrote, a reassignment, a reopening and a rating given twice
//! (its comment); then the same after a worker killed mid-fold; then the real path, where an
//! API write wakes the worker and the report follows.
//!
//! Timelines are written into the workspace's log as the API writes its events (the same
//! JSON), with times of the test's choosing; `reports::catch_up` folds them as the worker
//! does.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use sqlx::PgPool;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_worker::reports::catch_up;
use uuid::Uuid;

use crate::harness::{Stack, signal, stack, stack_without_worker, wait_exit};

/// The three agents' and the label's ids a timeline names.
#[derive(Clone, Copy)]
struct Cast {
    /// The Owner, who answers.
    ann: Uuid,
    /// Who the first conversation is reassigned to, and who resolves it.
    bo: Uuid,
    vip: Uuid,
}

/// A conversation as its events show it.
pub(crate) struct Shown {
    pub(crate) id: Uuid,
    channel: &'static str,
    pub(crate) created: String,
}

impl Shown {
    pub(crate) fn new(channel: &'static str, created: impl Into<String>) -> Self {
        Self {
            id: Uuid::new_v4(),
            channel,
            created: created.into(),
        }
    }

    /// As it is at `updated`.
    pub(crate) fn at(
        &self,
        status: &str,
        assignee: Option<Uuid>,
        labels: &[Uuid],
        updated: &str,
        resolved: Option<&str>,
    ) -> Value {
        let labels: Vec<Value> = labels
            .iter()
            .map(|id| json!({"id": id, "name": "vip", "color": "#aa0000"}))
            .collect();
        json!({
            "id": self.id, "number": 1, "subject": null, "status": status, "priority": null,
            "assigneeId": assignee, "channel": self.channel, "labels": labels,
            "lastMessage": null, "lastMessageAt": updated, "createdAt": self.created,
            "updatedAt": updated, "resolvedAt": resolved, "ratings": [],
            "contact": {"id": Uuid::nil(), "name": null, "email": null}
        })
    }
}

pub(crate) fn changed(change: &str, conversation: Value) -> Value {
    let mut data = conversation;
    data["change"] = json!(change);
    data
}

pub(crate) fn message(conversation: Uuid, kind: &str, agent: Option<Uuid>, at: &str) -> Value {
    json!({
        "conversationId": conversation, "contactId": Uuid::nil(), "id": Uuid::new_v4(),
        "kind": kind, "body": "...", "authorAgentId": agent, "createdAt": at,
        "attachments": [], "author": null
    })
}

pub(crate) fn rated(
    conversation: Uuid,
    rating_id: Uuid,
    rating: i16,
    resolved: &str,
    at: &str,
) -> Value {
    json!({
        "conversationId": conversation, "contactId": Uuid::nil(),
        "rating": {"id": rating_id, "rating": rating, "comment": null,
                   "resolvedAt": resolved, "createdAt": at}
    })
}

/// Three conversations in Berlin's March 2026 (business hours Monday to Friday 09:00-17:00,
/// Wednesday 25 March a holiday; summer time from Sunday 29 March):
/// - a chat written on Friday 20 at 16:50, noted and answered by an API key the same minute
///   (neither a response), answered by Ann on Monday at 09:10, labelled, reassigned to Bo,
///   resolved at 11:00 and rated 5; reopened by the customer on Tuesday at 10:00, answered by
///   Ann at 10:30 (and again at 10:50, not a first response), resolved on the holiday at 12:00
///   and rated 2, the rating logged twice (a comment followed);
/// - an email written on Saturday 28 at 20:00 (winter time), labelled from the start, answered
///   by Ann on Monday 30 at 09:30 (summer time), and then unlabelled;
/// - a conversation Ann started on Monday 30 at 10:00 and resolved at 12:00 (no customer
///   message: no first response).
fn timeline(cast: Cast) -> Vec<(&'static str, Value)> {
    let Cast { ann, bo, vip } = cast;
    let chat = Shown::new("chat", "2026-03-20T15:50:00Z");
    let email = Shown::new("email", "2026-03-28T19:00:00Z");
    let manual = Shown::new("manual", "2026-03-30T08:00:00Z");
    let (first_rating, second_rating) = (Uuid::new_v4(), Uuid::new_v4());
    let created = chat.created.as_str();
    let chat_as = |status: &str, assignee, labels: &[Uuid], updated: &str, resolved| {
        chat.at(status, assignee, labels, updated, resolved)
    };
    let first_resolution = "2026-03-23T10:00:00.123456Z";
    let second_resolution = "2026-03-25T11:00:00Z";
    vec![
        (
            "conversation.created",
            chat_as("open", None, &[], created, None),
        ),
        (
            "message.created",
            message(chat.id, "incoming", None, created),
        ),
        (
            "message.created",
            message(chat.id, "note", Some(ann), "2026-03-20T15:55:00Z"),
        ),
        (
            "message.created",
            message(chat.id, "outgoing", None, "2026-03-20T15:56:00Z"),
        ),
        ("contact.created", json!({"id": Uuid::new_v4()})),
        (
            "message.created",
            message(chat.id, "outgoing", Some(ann), "2026-03-23T08:10:00Z"),
        ),
        (
            "conversation.updated",
            changed(
                "labels",
                chat_as("open", Some(ann), &[vip], "2026-03-23T08:20:00Z", None),
            ),
        ),
        (
            "conversation.updated",
            changed(
                "assignee",
                chat_as("open", Some(bo), &[vip], "2026-03-23T09:00:00Z", None),
            ),
        ),
        (
            "conversation.updated",
            changed(
                "status",
                chat_as(
                    "resolved",
                    Some(bo),
                    &[vip],
                    first_resolution,
                    Some(first_resolution),
                ),
            ),
        ),
        (
            "conversation.rated",
            rated(
                chat.id,
                first_rating,
                5,
                first_resolution,
                "2026-03-23T10:05:00Z",
            ),
        ),
        (
            "conversation.updated",
            changed(
                "status",
                chat_as("open", Some(bo), &[vip], "2026-03-24T09:00:00Z", None),
            ),
        ),
        (
            "message.created",
            message(chat.id, "incoming", None, "2026-03-24T09:00:00Z"),
        ),
        (
            "message.created",
            message(chat.id, "outgoing", Some(ann), "2026-03-24T09:30:00Z"),
        ),
        (
            "message.created",
            message(chat.id, "incoming", None, "2026-03-24T09:40:00Z"),
        ),
        (
            "message.created",
            message(chat.id, "outgoing", Some(ann), "2026-03-24T09:50:00Z"),
        ),
        (
            "conversation.updated",
            changed(
                "status",
                chat_as(
                    "resolved",
                    Some(bo),
                    &[vip],
                    second_resolution,
                    Some(second_resolution),
                ),
            ),
        ),
        // A resolution resolved again changes nothing.
        (
            "conversation.updated",
            changed(
                "status",
                chat_as(
                    "resolved",
                    Some(bo),
                    &[vip],
                    "2026-03-25T11:10:00Z",
                    Some(second_resolution),
                ),
            ),
        ),
        (
            "conversation.rated",
            rated(
                chat.id,
                second_rating,
                2,
                second_resolution,
                "2026-03-25T11:30:00Z",
            ),
        ),
        (
            "conversation.rated",
            rated(
                chat.id,
                second_rating,
                2,
                second_resolution,
                "2026-03-25T11:30:00Z",
            ),
        ),
        (
            "conversation.created",
            email.at("open", None, &[vip], &email.created, None),
        ),
        (
            "message.created",
            message(email.id, "incoming", None, "2026-03-28T19:00:00Z"),
        ),
        (
            "message.created",
            message(email.id, "outgoing", Some(ann), "2026-03-30T07:30:00Z"),
        ),
        (
            "conversation.updated",
            changed(
                "labels",
                email.at("open", None, &[], "2026-03-30T07:40:00Z", None),
            ),
        ),
        (
            "conversation.created",
            manual.at("open", Some(ann), &[], &manual.created, None),
        ),
        (
            "message.created",
            message(manual.id, "outgoing", Some(ann), "2026-03-30T08:00:00Z"),
        ),
        (
            "conversation.updated",
            changed(
                "status",
                manual.at(
                    "resolved",
                    Some(ann),
                    &[],
                    "2026-03-30T10:00:00Z",
                    Some("2026-03-30T10:00:00Z"),
                ),
            ),
        ),
    ]
}

/// Appends events to the workspace's log as writers do: the next seqs, the head moved.
pub(crate) async fn append(db: &PgPool, schema: &TenantSchema, events: &[(&str, Value)]) {
    let mut tx = db.begin().await.unwrap();
    let head: i64 =
        sqlx::query_scalar(schema.sql("SELECT seq FROM {schema}.event_log_head FOR UPDATE"))
            .fetch_one(&mut *tx)
            .await
            .unwrap();
    let types: Vec<&str> = events.iter().map(|(t, _)| *t).collect();
    let data: Vec<String> = events.iter().map(|(_, d)| d.to_string()).collect();
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.events (seq, id, type, actor_kind, data)
         SELECT $3 + n, gen_random_uuid(), t, 'system', d::json
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS e(t, d, n)",
    ))
    .bind(&types)
    .bind(&data)
    .bind(head)
    .execute(&mut *tx)
    .await
    .unwrap();
    sqlx::query(schema.sql("UPDATE {schema}.event_log_head SET seq = $1"))
        .bind(head + events.len() as i64)
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

/// A workspace with Berlin's business hours, Ann (its Owner) and Bo, and a label.
async fn workspace(stack: &Stack, slug: &str) -> (String, TenantSchema, Cast) {
    let (id, token) = stack.workspace(slug).await;
    let schema: String =
        sqlx::query_scalar("SELECT schema_name FROM public.workspaces WHERE id = $1")
            .bind(id)
            .fetch_one(&stack.db)
            .await
            .unwrap();
    let schema = TenantSchema::parse(&schema).unwrap();
    let weekdays: Vec<Value> = ["mon", "tue", "wed", "thu", "fri"]
        .iter()
        .map(|day| json!({"day": day, "open": "09:00", "close": "17:00"}))
        .collect();
    let (status, hours) = stack
        .call(
            Method::PATCH,
            "/api/settings/business-hours",
            Some(&token),
            Some(json!({"timeZone": "Europe/Berlin", "weekly": weekdays,
                        "holidays": ["2026-03-25"]})),
        )
        .await;
    assert_eq!(status, 200, "{hours}");
    let (status, agents) = stack
        .call(Method::GET, "/api/agents", Some(&token), None)
        .await;
    assert_eq!(status, 200, "{agents}");
    let ann: Uuid = agents["agents"][0]["id"].as_str().unwrap().parse().unwrap();
    let bo: Uuid = sqlx::query_scalar(schema.sql(
        "INSERT INTO {schema}.agent_profiles
                (user_id, display_name, email, full_name, role, status, joined_at)
         VALUES ($1, 'Bo Berg', 'bo@example.com', 'Bo Berg', 'agent', 'active', now())
         RETURNING id",
    ))
    .bind(Uuid::new_v4())
    .fetch_one(&stack.db)
    .await
    .unwrap();
    let (status, label) = stack
        .call(
            Method::POST,
            "/api/labels",
            Some(&token),
            Some(json!({"name": "vip", "color": "#aa0000"})),
        )
        .await;
    assert_eq!(status, 201, "{label}");
    let vip = label["id"].as_str().unwrap().parse().unwrap();
    (token, schema, Cast { ann, bo, vip })
}

async fn report(stack: &Stack, token: &str, path: &str) -> Value {
    let (status, body) = stack.call(Method::GET, path, Some(token), None).await;
    assert_eq!(status, 200, "{path}: {body}");
    body
}

const MARCH: &str = "from=2026-03-16&to=2026-03-31";

/// The figures of `copies` copies of [`timeline`], as its definitions make them.
async fn assert_march(stack: &Stack, token: &str, cast: Cast, copies: i64) {
    let n = copies;
    let volume = report(
        stack,
        token,
        &format!("/api/reports/volume?{MARCH}&groupBy=week"),
    )
    .await;
    assert_eq!(
        volume["total"],
        json!({"created": 3 * n, "resolved": 3 * n, "reopened": n}),
        "{volume}"
    );
    let weeks: Vec<Value> = volume["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!([p["period"], p["created"], p["resolved"], p["reopened"]]))
        .collect();
    assert_eq!(
        weeks,
        [
            json!(["2026-03-16", n, 0, 0]),
            json!(["2026-03-23", n, 2 * n, n]),
            json!(["2026-03-30", n, n, 0])
        ]
    );

    // First responses: 2 d 16 h 20 min (10 + 10 business minutes), 30 min, and 1 d 12 h 30 min
    // (30 business minutes on Monday in summer time).
    let first = report(
        stack,
        token,
        &format!("/api/reports/first-response-time?{MARCH}"),
    )
    .await;
    assert_eq!(first["total"]["count"], 3 * n, "{first}");
    assert_eq!(first["total"]["median"], 131_400, "{first}");
    let business = report(
        stack,
        token,
        &format!("/api/reports/first-response-time?{MARCH}&businessHours=true"),
    )
    .await;
    assert_eq!(business["total"]["median"], 1_800, "{business}");
    assert_eq!(business["total"]["p90"], 1_800, "{business}");
    let by_day: Vec<(String, i64)> = first["series"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["count"].as_i64() > Some(0))
        .map(|p| {
            (
                p["period"].as_str().unwrap().to_owned(),
                p["count"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        by_day,
        [
            ("2026-03-23".to_owned(), n),
            ("2026-03-24".to_owned(), n),
            ("2026-03-30".to_owned(), n)
        ]
    );
    let email = report(
        stack,
        token,
        &format!("/api/reports/first-response-time?{MARCH}&channel=email"),
    )
    .await;
    assert_eq!(
        email["total"],
        json!({"count": n, "median": 131_400, "p90": 131_400})
    );
    let labelled = report(
        stack,
        token,
        &format!(
            "/api/reports/first-response-time?{MARCH}&labelId={}",
            cast.vip
        ),
    )
    .await;
    assert_eq!(labelled["total"]["count"], 2 * n, "{labelled}");
    assert_labelled(stack, token, cast, n).await;

    // Resolutions: Friday 16:50 to Monday 11:00 (2 h 10 min of business), Tuesday 10:00 to
    // the holiday's 12:00 (7 business hours), Monday 10:00 to 12:00; Bo holds the first two.
    let resolved = report(
        stack,
        token,
        &format!(
            "/api/reports/resolution-time?{MARCH}&businessHours=true&agentId={}",
            cast.bo
        ),
    )
    .await;
    assert_eq!(resolved["total"]["count"], 2 * n, "{resolved}");
    let calendar = report(
        stack,
        token,
        &format!("/api/reports/resolution-time?{MARCH}&agentId={}", cast.bo),
    )
    .await;
    // Half of the copies on each side: the median lies between them either way.
    assert_eq!(
        resolved["total"]["median"],
        (7_800 + 25_200) / 2,
        "{resolved}"
    );
    assert_eq!(
        calendar["total"]["median"],
        (238_200 + 93_600) / 2,
        "{calendar}"
    );

    let csat = report(
        stack,
        token,
        &format!("/api/reports/csat?{MARCH}&groupBy=month"),
    )
    .await;
    assert_eq!(
        csat["total"],
        json!({"responses": 2 * n, "satisfied": n, "score": 0.5}),
        "{csat}"
    );
    let counts: Vec<i64> = csat["distribution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["count"].as_i64().unwrap())
        .collect();
    assert_eq!(counts, [0, n, 0, 0, n]);

    // Incoming messages by Berlin's weekday and hour.
    let heatmap = report(stack, token, &format!("/api/reports/heatmap?{MARCH}")).await;
    let busy: Vec<(i64, i64, i64)> = heatmap["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["messages"].as_i64() > Some(0))
        .map(|c| {
            (
                c["weekday"].as_i64().unwrap(),
                c["hour"].as_i64().unwrap(),
                c["messages"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(busy, [(2, 10, 2 * n), (5, 16, n), (6, 20, n)]);

    let agents = report(stack, token, &format!("/api/reports/agents?{MARCH}")).await;
    let rows: Vec<Value> = agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            json!([
                a["agentId"],
                a["firstResponses"],
                a["resolutions"],
                a["ratings"],
                a["csatScore"]
            ])
        })
        .collect();
    let ann = json!([cast.ann, 3 * n, n, 0, null]);
    let bo = json!([cast.bo, 0, 2 * n, 2 * n, 0.5]);
    // By name: "Ann <Smith>" (the harness's) before "Bo Berg".
    assert_eq!(rows, [ann, bo], "{agents}");
}

/// The figures of the chat alone, the one conversation that carries the label in the end: it
/// was labelled after its first response, and the email's label was taken off after its own.
async fn assert_labelled(stack: &Stack, token: &str, cast: Cast, n: i64) {
    let label = format!("{MARCH}&labelId={}", cast.vip);
    let volume = report(stack, token, &format!("/api/reports/volume?{label}")).await;
    assert_eq!(
        volume["total"],
        json!({"created": n, "resolved": 2 * n, "reopened": n}),
        "{volume}"
    );
    let first = report(
        stack,
        token,
        &format!("/api/reports/first-response-time?{label}&businessHours=true"),
    )
    .await;
    // 10 business minutes on Monday, 30 on Tuesday: not the email's 30.
    assert_eq!(first["total"]["count"], 2 * n, "{first}");
    assert_eq!(first["total"]["median"], 1_500, "{first}");
    // Ann's, the same: from the label's rollup per agent, and from the cycles (an agent and a
    // channel together).
    for also in ["", "&channel=chat"] {
        let anns = report(
            stack,
            token,
            &format!(
                "/api/reports/first-response-time?{label}&businessHours=true&agentId={}{also}",
                cast.ann
            ),
        )
        .await;
        assert_eq!(anns["total"], first["total"], "{anns}");
    }
    let resolved = report(
        stack,
        token,
        &format!("/api/reports/resolution-time?{label}&channel=chat"),
    )
    .await;
    assert_eq!(resolved["total"]["count"], 2 * n, "{resolved}");
    let csat = report(stack, token, &format!("/api/reports/csat?{label}")).await;
    assert_eq!(
        csat["total"],
        json!({"responses": 2 * n, "satisfied": n, "score": 0.5}),
        "{csat}"
    );
    let agents = report(stack, token, &format!("/api/reports/agents?{label}")).await;
    let rows: Vec<Value> = agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            json!([
                a["agentId"],
                a["firstResponses"],
                a["resolutions"],
                a["ratings"]
            ])
        })
        .collect();
    assert_eq!(
        rows,
        [
            json!([cast.ann, 2 * n, 0, 0]),
            json!([cast.bo, 0, 2 * n, 2 * n])
        ],
        "{agents}"
    );
}

/// The label rollups, every array sorted: comparable however their rows were written.
async fn label_rollups(db: &PgPool, schema: &TenantSchema) -> Vec<String> {
    let sorted = |column: &str| format!("(SELECT array_agg(v ORDER BY v) FROM unnest({column}) v)");
    let durations = [
        "response_seconds",
        "response_business_seconds",
        "resolution_seconds",
        "resolution_business_seconds",
    ]
    .map(sorted)
    .join(", ");
    // A row whose facts were all moved away holds nothing: as if it were never written.
    let holds = "ratings <> '{0,0,0,0,0}'
                 OR cardinality(response_seconds) + cardinality(resolution_seconds) > 0";
    let mut rows = Vec::new();
    for (table, key, counted) in [
        (
            "report_label_hours",
            "hour, channel, created, reopened, resolved",
            "created + reopened + resolved > 0",
        ),
        ("report_label_agent_hours", "hour, agent_id", "false"),
        ("report_label_agent_days", "day, agent_id", "false"),
    ] {
        let sql = format!(
            "SELECT '{table}' || row(label_id, {key}, ratings, {durations})::text
               FROM {{schema}}.{table} WHERE {counted} OR {holds} ORDER BY 1"
        );
        let table_rows: Vec<String> = sqlx::query_scalar(schema.sql(&sql))
            .fetch_all(db)
            .await
            .unwrap();
        rows.extend(table_rows);
    }
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_definitions_hold_on_a_constructed_timeline() {
    let stack = stack_without_worker(&[]).await;
    let (token, schema, cast) = workspace(&stack, "reports-timeline").await;
    let events = timeline(cast);
    append(&stack.db, &schema, &events).await;
    assert_eq!(
        catch_up(&stack.db, &schema).await.unwrap(),
        events.len() as u64
    );
    assert_march(&stack, &token, cast, 1).await;

    // Folding again finds nothing new and changes nothing.
    assert_eq!(catch_up(&stack.db, &schema).await.unwrap(), 0);
    assert_march(&stack, &token, cast, 1).await;

    // The label rollups the fold kept, moving facts as labels changed, are those built from
    // the cycles (as for cycles folded before the rollups existed).
    let folded = label_rollups(&stack.db, &schema).await;
    assert!(folded.len() > 5, "{folded:?}");
    for statement in [
        "UPDATE {schema}.report_cursor SET label_rollups_built = false",
        "DELETE FROM {schema}.report_label_hours",
    ] {
        sqlx::query(schema.sql(statement))
            .execute(&stack.db)
            .await
            .unwrap();
    }
    assert_eq!(catch_up(&stack.db, &schema).await.unwrap(), 0);
    assert_eq!(label_rollups(&stack.db, &schema).await, folded);
    assert_march(&stack, &token, cast, 1).await;

    // Days across the change to summer time: Saturday's email is Saturday's, in Berlin.
    let days = report(
        &stack,
        &token,
        "/api/reports/volume?from=2026-03-28&to=2026-03-30",
    )
    .await;
    let created: Vec<i64> = days["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["created"].as_i64().unwrap())
        .collect();
    assert_eq!(created, [1, 0, 1], "{days}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_mid_fold_counts_every_event_once() {
    const COPIES: usize = 400;
    let stack = stack_without_worker(&[]).await;
    let (token, schema, cast) = workspace(&stack, "reports-crash").await;
    let events: Vec<(&str, Value)> = (0..COPIES).flat_map(|_| timeline(cast)).collect();
    append(&stack.db, &schema, &events).await;
    let head = events.len() as i64;

    let cursor = || async {
        sqlx::query_scalar::<_, i64>(schema.sql("SELECT seq FROM {schema}.report_cursor"))
            .fetch_one(&stack.db)
            .await
            .unwrap()
    };
    // The worker's start-up sweep finds the backlog; it is killed between two batches' commits
    // (or inside one), without a chance to finish anything.
    let mut worker = stack.worker_process(&[]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while cursor().await == 0 {
        assert!(Instant::now() < deadline, "the worker never folded");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    signal(&worker.0, "-KILL");
    let _ = wait_exit(&mut worker.0, Duration::from_secs(10));
    let stopped_at = cursor().await;
    assert!(
        stopped_at < head,
        "the worker finished before it was killed ({stopped_at} of {head}): fold more"
    );

    // The next fold starts where the last commit left off.
    let read = catch_up(&stack.db, &schema).await.unwrap();
    assert_eq!(read as i64, head - stopped_at);
    assert_march(&stack, &token, cast, COPIES as i64).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_write_wakes_the_worker_and_the_report_follows() {
    let stack = stack(&[]).await;
    let (_, token) = stack.workspace("reports-live").await;
    let (status, created) = stack
        .call(
            Method::POST,
            "/api/conversations",
            Some(&token),
            Some(json!({"contact": {"email": "ivy@example.com"}, "body": "Your order shipped"})),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap();
    let (status, resolved) = stack
        .call(
            Method::POST,
            &format!("/api/conversations/{id}/status"),
            Some(&token),
            Some(json!({"status": "resolved"})),
        )
        .await;
    assert_eq!(status, 200, "{resolved}");

    // The sweep runs every few minutes: only a wake-up makes this quick.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let volume = report(&stack, &token, "/api/reports/volume").await;
        if volume["total"] == json!({"created": 1, "resolved": 1, "reopened": 0}) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the report never followed: {volume}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let agents = report(&stack, &token, "/api/reports/agents").await;
    assert_eq!(agents["agents"][0]["resolutions"], 1, "{agents}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_made_while_redis_was_down_are_folded_once_it_is_heard_again() {
    let mut redis = supportdesk_test_support::redis_server::RedisServer::start();
    let url = redis.url();
    let stack = stack(&[("REDIS_URL", &url)]).await;
    let (_, token) = stack.workspace("reports-outage").await;
    redis.kill();

    // Written while no wake-up can be published or heard.
    let (status, created) = stack
        .call(
            Method::POST,
            "/api/conversations",
            Some(&token),
            Some(json!({"contact": {"email": "ivy@example.com"}, "body": "Your order shipped"})),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    tokio::time::sleep(Duration::from_secs(2)).await;
    let volume = report(&stack, &token, "/api/reports/volume").await;
    assert_eq!(volume["total"]["created"], 0, "{volume}");

    // The periodic sweep is minutes off: the worker sweeps as it hears the backplane again.
    redis.restart();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let volume = report(&stack, &token, "/api/reports/volume").await;
        if volume["total"]["created"] == 1 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the report never followed: {volume}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
