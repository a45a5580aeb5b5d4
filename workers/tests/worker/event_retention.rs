//! The event log's retention pass, run directly instead of waiting for its hour.

use std::time::Duration;

use sqlx::PgPool;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::migrations::provision;
use supportdesk_test_support::database::TestDatabase;
use supportdesk_worker::event_retention::{self, BATCH, RETENTION};
use uuid::Uuid;

async fn workspace(db: &PgPool, slug: &str) -> TenantSchema {
    let id = Uuid::now_v7();
    let schema = TenantSchema::for_workspace(id);
    sqlx::query(
        "INSERT INTO public.workspaces (id, name, slug, schema_name) VALUES ($1, $2, $2, $3)",
    )
    .bind(id)
    .bind(slug)
    .bind(schema.name())
    .execute(db)
    .await
    .unwrap();
    let mut tx = db.begin().await.unwrap();
    provision(&mut tx, &schema).await.unwrap();
    tx.commit().await.unwrap();
    schema
}

/// Appends `count` events that happened `age_days` ago.
async fn events(db: &PgPool, schema: &TenantSchema, count: i64, age_days: i32) {
    sqlx::query(schema.sql(
        "WITH head AS (UPDATE {schema}.event_log_head SET seq = seq + $1 RETURNING seq - $1 AS base)
         INSERT INTO {schema}.events (seq, id, type, occurred_at, actor_kind, data)
         SELECT head.base + n, gen_random_uuid(), 'contact.created',
                now() - make_interval(days => $2), 'system', '{}'
           FROM head, generate_series(1, $1) AS n",
    ))
    .bind(count)
    .bind(age_days)
    .execute(db)
    .await
    .unwrap();
}

async fn kept(db: &PgPool, schema: &TenantSchema) -> (i64, i64, i64) {
    sqlx::query_as(schema.sql(
        "SELECT (SELECT min(seq) FROM {schema}.events), (SELECT count(*) FROM {schema}.events),
                pruned_through FROM {schema}.event_log_head",
    ))
    .fetch_one(db)
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_older_than_thirty_days_are_pruned_in_batches_and_the_horizon_recorded() {
    assert_eq!(RETENTION, Duration::from_secs(30 * 24 * 3600));
    let database = TestDatabase::migrated().await;
    let db = database.pool().await;
    let busy = workspace(&db, "busy").await;
    let quiet = workspace(&db, "quiet").await;
    // More expired events than one batch, then a month's worth that stay.
    let expired = BATCH * 2 + 17;
    events(&db, &busy, expired, 45).await;
    events(&db, &busy, 30, 29).await;
    events(&db, &quiet, 5, 1).await;

    let pruned = event_retention::prune_all(&db, RETENTION).await.unwrap();
    assert_eq!(pruned, expired as u64);
    assert_eq!(kept(&db, &busy).await, (expired + 1, 30, expired));
    assert_eq!(
        kept(&db, &quiet).await,
        (1, 5, 0),
        "nothing of the quiet one"
    );

    // A second pass finds nothing more.
    assert_eq!(event_retention::prune_all(&db, RETENTION).await.unwrap(), 0);
    assert_eq!(kept(&db, &busy).await.2, expired);
}
