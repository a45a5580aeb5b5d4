//! Keeps every workspace's event log within its retention, and its audit log within a year:
//! events older than [`RETENTION`] are deleted, oldest first, in batches of [`BATCH`], and the
//! workspace's `pruned_through` moves with them, so `GET /api/events` answers 410 to a reader asking for
//! what follows a pruned event rather than returning a page with a hole in it.
//!
//! Workspaces are visited from the control plane in pages (never all schemas at once), each
//! batch is a few short statements in a transaction of its own, and a pass is resumable: a crash
//! loses nothing, the next pass starts again from the oldest events left.

use std::time::Duration;

use sqlx::PgPool;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::pages::workspaces_after;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Events are kept this long.
pub const RETENTION: Duration = Duration::from_secs(30 * 24 * 3600);
/// Events deleted per statement.
pub const BATCH: i64 = 1000;
/// Batches per workspace per pass; a larger backlog is finished by the next passes.
const BATCHES_PER_WORKSPACE: usize = 20;
/// Workspaces read from the control plane at a time.
const WORKSPACE_PAGE: i64 = 500;
const EVERY: Duration = Duration::from_secs(3600);

pub async fn run(db: PgPool, stop: CancellationToken) {
    let mut passes = tokio::time::interval(EVERY);
    passes.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            _ = passes.tick() => {
                tokio::select! {
                    () = stop.cancelled() => break,
                    result = prune_all(&db, RETENTION) => match result {
                        Ok(0) => {}
                        Ok(pruned) => tracing::info!(pruned, "pruned expired events"),
                        Err(err) => tracing::warn!(error = %err, "could not list workspaces to prune"),
                    },
                }
            }
        }
    }
}

/// One pass over every workspace; how many events it deleted. A workspace that fails is
/// logged and skipped.
pub async fn prune_all(db: &PgPool, retention: Duration) -> sqlx::Result<u64> {
    let mut after = Uuid::nil();
    let mut pruned = 0;
    loop {
        let page = workspaces_after(db, after, WORKSPACE_PAGE).await?;
        let Some((last, _)) = page.last() else {
            return Ok(pruned);
        };
        after = *last;
        for (workspace_id, schema) in &page {
            let Ok(schema) = TenantSchema::parse(schema) else {
                continue;
            };
            // The audit log keeps a year: one bounded batch per pass is plenty.
            if let Err(err) = prune_audit_batch(db, &schema).await {
                tracing::warn!(error = %err, %workspace_id, "could not prune its audit log");
            }
            for _ in 0..BATCHES_PER_WORKSPACE {
                match prune_batch(db, &schema, retention).await {
                    Ok(count) => {
                        pruned += count;
                        if count < BATCH as u64 {
                            break;
                        }
                    }
                    Err(err) => {
                        tracing::warn!(error = %err, %workspace_id, "could not prune its events");
                        break;
                    }
                }
            }
        }
    }
}

/// Deletes up to [`BATCH`] audit entries older than a year (the table's trigger refuses any
/// younger); how many it deleted.
pub async fn prune_audit_batch(db: &PgPool, schema: &TenantSchema) -> sqlx::Result<u64> {
    let deleted = sqlx::query(schema.sql(
        "DELETE FROM {schema}.audit_log WHERE id IN (
             SELECT id FROM {schema}.audit_log
              WHERE at < now() - interval '1 year' - interval '1 minute'
              ORDER BY at LIMIT $1)",
    ))
    .bind(BATCH)
    .execute(db)
    .await?
    .rows_affected();
    Ok(deleted)
}

/// Deletes up to [`BATCH`] of the workspace's oldest events that are older than `retention`
/// (the prefix of the log before the first event still kept) and records how far the log is
/// pruned; how many it deleted.
pub async fn prune_batch(
    db: &PgPool,
    schema: &TenantSchema,
    retention: Duration,
) -> sqlx::Result<u64> {
    let mut tx = db.begin().await?;
    let pruned_through: i64 =
        sqlx::query_scalar(schema.sql("SELECT pruned_through FROM {schema}.event_log_head"))
            .fetch_one(&mut *tx)
            .await?;
    // The oldest events, in seq order: the prefix of those older than the retention goes.
    let oldest: Vec<(i64, bool)> = sqlx::query_as(schema.sql(concat!(
        "SELECT seq, occurred_at < now() - make_interval(secs => $3) FROM ",
        supportdesk_core::numbered_events!(),
        " e ORDER BY seq"
    )))
    .bind(pruned_through)
    .bind(pruned_through + BATCH)
    .bind(retention.as_secs_f64())
    .fetch_all(&mut *tx)
    .await?;
    let Some(through) = oldest
        .iter()
        .take_while(|(_, expired)| *expired)
        .map(|(seq, _)| *seq)
        .last()
    else {
        return Ok(0);
    };
    // Those numbered in their rows, then those numbered by batches and the batches they
    // leave empty. A batch that also numbered younger events stays, for them.
    let in_rows =
        sqlx::query(schema.sql("DELETE FROM {schema}.events WHERE seq IS NOT NULL AND seq <= $1"))
            .bind(through)
            .execute(&mut *tx)
            .await?
            .rows_affected();
    let by_batches = sqlx::query(schema.sql(
        "DELETE FROM {schema}.events WHERE seq IS NULL AND arrival IN (
             SELECT o.arrival FROM {schema}.event_batches b,
                    unnest(b.arrivals) WITH ORDINALITY AS o(arrival, i)
              WHERE b.first_seq <= $1 AND b.first_seq + o.i - 1 <= $1)",
    ))
    .bind(through)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    sqlx::query(schema.sql(
        "DELETE FROM {schema}.event_batches
          WHERE first_seq <= $1 AND first_seq + cardinality(arrivals) - 1 <= $1",
    ))
    .bind(through)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        schema.sql(
            "UPDATE {schema}.event_log_head SET pruned_through = greatest(pruned_through, $1)",
        ),
    )
    .bind(through)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(in_rows + by_batches)
}
