//! Spare tenant schemas: the worker keeps the pool at its target, a new workspace takes a
//! spare, stale spares are replaced, and no crash or failure leaves a half-made one.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::json;
use sqlx::PgPool;
use supportdesk_core::tenancy::migrations::{TenantMigrations, latest_version};
use supportdesk_core::tenancy::spares::{make_spare, refill};
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::{free_port, http_client};
use supportdesk_worker::spares::{run, run_with};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::harness::{signal, stack, stack_without_worker, unique_email, wait_exit};

/// Every relation a schema at the latest tenant version holds.
const TENANT_TABLES: [&str; 38] = [
    "agent_notices",
    "agent_profiles",
    "attachments",
    "audit_log",
    "canned_responses",
    "contact_labels",
    "contacts",
    "conversation_labels",
    "conversation_ratings",
    "conversation_reads",
    "conversations",
    "email_messages",
    "email_settings",
    "email_thread_ids",
    "event_batches",
    "event_log_head",
    "events",
    "labels",
    "messages",
    "rating_requests",
    "refinery_schema_history",
    "report_agent_days",
    "report_agent_hours",
    "report_cursor",
    "report_cycles",
    "report_hours",
    "report_label_agent_days",
    "report_label_agent_hours",
    "report_label_hours",
    "saved_views",
    "settings",
    "storage_usage",
    "ticket_comments",
    "tickets",
    "visitor_reply_emails",
    "webhook_attempts",
    "webhook_endpoints",
    "webhook_requests",
];

/// (name, version) of every listed spare, oldest first.
async fn spare_rows(db: &PgPool) -> Vec<(String, i32)> {
    sqlx::query_as(
        "SELECT schema_name, schema_version FROM public.spare_schemas ORDER BY created_at",
    )
    .fetch_all(db)
    .await
    .unwrap()
}

/// Every schema named like a spare, listed or not, by name.
async fn spare_schemas(db: &PgPool) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT nspname::text FROM pg_namespace WHERE nspname LIKE 'spare\\_%' ORDER BY 1",
    )
    .fetch_all(db)
    .await
    .unwrap()
}

async fn tables_in(db: &PgPool, schema: &str) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
    )
    .bind(schema)
    .fetch_all(db)
    .await
    .unwrap()
}

/// The schema's oid: a renamed schema keeps it.
async fn schema_oid(db: &PgPool, name: &str) -> Option<i64> {
    sqlx::query_scalar("SELECT oid::int8 FROM pg_namespace WHERE nspname = $1")
        .bind(name)
        .fetch_optional(db)
        .await
        .unwrap()
}

/// Polls `probe` until it answers, or panics after `timeout`.
async fn wait_for<T>(
    what: &str,
    timeout: Duration,
    mut probe: impl AsyncFnMut() -> Option<T>,
) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(found) = probe().await {
            return found;
        }
        assert!(Instant::now() < deadline, "{what} within {timeout:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until exactly `count` spares are listed, all at `version`; their names.
async fn wait_for_spares(db: &PgPool, count: usize, version: i32) -> Vec<String> {
    wait_for(
        &format!("{count} spares at version {version}"),
        Duration::from_secs(90),
        async || {
            let rows = spare_rows(db).await;
            (rows.len() == count && rows.iter().all(|(_, v)| *v == version))
                .then(|| rows.into_iter().map(|(name, _)| name).collect())
        },
    )
    .await
}

/// A row for every spare schema and a schema for every row, each with all of `tables`.
async fn assert_every_spare_whole(db: &PgPool, tables: &[&str]) {
    // Rows and schemas from one statement, so one snapshot: a killed worker's backend may
    // still be committing a whole spare (row and schema together) between two reads.
    let (listed, schemas): (Vec<String>, Vec<String>) = sqlx::query_as(
        "SELECT coalesce((SELECT array_agg(schema_name ORDER BY schema_name)
                            FROM public.spare_schemas), '{}'),
                coalesce((SELECT array_agg(nspname::text ORDER BY nspname)
                            FROM pg_namespace WHERE nspname LIKE 'spare\\_%'), '{}')",
    )
    .fetch_one(db)
    .await
    .unwrap();
    assert_eq!(listed, schemas, "rows and schemas match");
    for name in listed {
        assert_eq!(tables_in(db, &name).await, tables, "{name}");
    }
}

/// A pool like the worker's: empty `search_path`, as in production.
fn worker_pool(database: &TestDatabase) -> PgPool {
    supportdesk_core::db::pool(&database.settings, 4)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_fills_the_pool_and_a_new_workspace_takes_a_spare() {
    let stack = stack(&[("SPARE_SCHEMAS", "3")]).await;
    let ready = wait_for_spares(&stack.db, 3, latest_version()).await;
    assert_every_spare_whole(&stack.db, &TENANT_TABLES).await;
    let oldest = ready[0].clone();
    let oldest_oid = schema_oid(&stack.db, &oldest).await.unwrap();

    let (token, _) = stack.register(&unique_email()).await;
    let (status, body) = stack
        .call(
            Method::POST,
            "/workspaces",
            Some(&token),
            Some(json!({"name": "Acme"})),
        )
        .await;

    assert_eq!(status, 201, "{body}");
    let id: Uuid = body["id"].as_str().unwrap().parse().unwrap();
    let schema = format!("ws_{}", id.simple());
    assert_eq!(
        schema_oid(&stack.db, &schema).await,
        Some(oldest_oid),
        "the oldest spare, renamed"
    );
    assert_eq!(schema_oid(&stack.db, &oldest).await, None);
    assert_eq!(tables_in(&stack.db, &schema).await, TENANT_TABLES);
    let refilled = wait_for_spares(&stack.db, 3, latest_version()).await;
    assert!(!refilled.contains(&oldest), "{refilled:?}");
    assert_every_spare_whole(&stack.db, &TENANT_TABLES).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spares_behind_the_tenant_version_are_dropped_and_replaced() {
    let database = TestDatabase::migrated().await;
    let db = database.pool().await;
    let current = TenantMigrations::embedded();
    let old = [
        make_spare(&db, &current).await.unwrap(),
        make_spare(&db, &current).await.unwrap(),
    ];
    // The worker of a release with one more tenant migration.
    let next = current.latest_version() + 1;
    let upgraded = current
        .with(
            &format!("V{next}__rehearsal"),
            "CREATE TABLE rehearsal (id int);",
        )
        .unwrap();

    let stop = CancellationToken::new();
    let worker = tokio::spawn(run_with(worker_pool(&database), 2, upgraded, stop.clone()));
    wait_for_spares(&db, 2, next).await;
    stop.cancel();
    worker.await.unwrap();

    for spare in &old {
        assert_eq!(schema_oid(&db, spare.name()).await, None, "{spare} dropped");
    }
    let mut tables = TENANT_TABLES.to_vec();
    tables.push("rehearsal");
    tables.sort_unstable();
    assert_every_spare_whole(&db, &tables).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_worker_leaves_no_half_made_spare() {
    let mut stack = stack_without_worker(&[("SPARE_SCHEMAS", "6")]).await;
    let port = free_port().to_string();
    let mut worker = stack.worker_process(&[("WORKER_HEALTH_PORT", &port)]);
    let client = http_client();
    let metrics = format!("http://127.0.0.1:{port}/metrics");
    // The gauge is set after the first pass, which made some spares and left some to make.
    wait_for("the gauge", Duration::from_secs(60), async || {
        let response = client.get(&metrics).send().await.ok()?;
        let text = response.text().await.ok()?;
        text.lines()
            .any(|line| line.starts_with("spare_schemas_ready "))
            .then_some(())
    })
    .await;
    assert!(!spare_rows(&stack.db).await.is_empty());

    // Most likely in the middle of the next spare.
    signal(&worker, "-KILL");
    wait_exit(&mut worker, Duration::from_secs(10));
    assert_every_spare_whole(&stack.db, &TENANT_TABLES).await;

    stack.start_worker().await;
    wait_for_spares(&stack.db, 6, latest_version()).await;
    assert_every_spare_whole(&stack.db, &TENANT_TABLES).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_migration_leaves_no_half_made_spare() {
    let database = TestDatabase::migrated().await;
    let db = worker_pool(&database);
    let current = TenantMigrations::embedded();
    let broken = current
        .with(
            &format!("V{}__broken", current.latest_version() + 1),
            "CREATE TABLE half (id int); SELECT 1 / 0;",
        )
        .unwrap();

    make_spare(&db, &broken).await.unwrap_err();
    refill(&db, &broken, 2, 4).await.unwrap_err();

    let check = database.pool().await;
    assert!(spare_rows(&check).await.is_empty());
    assert!(spare_schemas(&check).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worker_replicas_together_keep_the_target() {
    let database = TestDatabase::migrated().await;
    let db = database.pool().await;
    let stop = CancellationToken::new();
    let replicas: Vec<_> = (0..2)
        .map(|_| tokio::spawn(run(worker_pool(&database), 4, stop.clone())))
        .collect();

    wait_for_spares(&db, 4, latest_version()).await;
    // Both have had passes since: neither made a fifth.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    stop.cancel();
    for replica in replicas {
        replica.await.unwrap();
    }

    assert_eq!(spare_rows(&db).await.len(), 4);
    assert_every_spare_whole(&db, &TENANT_TABLES).await;
}
