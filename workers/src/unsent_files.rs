//! Discards uploads no message took within [`KEPT`]: a file attached to a reply that was
//! never sent (the tab closed, the draft abandoned) would otherwise count against the
//! workspace's quota forever. Only files no message names are touched.
//!
//! Rows go first, with the workspace's usage, in one transaction that re-checks that no
//! message took the file meanwhile; then the objects. A crash between the two leaves objects
//! nothing names, which the workspace's deletion still removes; the other order could delete
//! an object a message had just taken. Workspaces are visited in pages, like the event log's
//! retention, each workspace a few short statements.

use std::time::Duration;

use object_store::ObjectStoreExt;
use object_store::path::Path;
use sqlx::PgPool;
use supportdesk_core::storage::{Store, Variant, attachment_path};
use supportdesk_core::tenancy::TenantSchema;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// How long an upload waits for its message.
pub const KEPT: Duration = Duration::from_secs(24 * 3600);
/// Files discarded per statement.
const BATCH: i64 = 200;
const WORKSPACE_PAGE: i64 = 500;
const EVERY: Duration = Duration::from_secs(3600);

pub async fn run(db: PgPool, store: Store, stop: CancellationToken) {
    let mut passes = tokio::time::interval(EVERY);
    passes.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            _ = passes.tick() => {
                tokio::select! {
                    () = stop.cancelled() => break,
                    result = sweep_all(&db, &store, KEPT) => match result {
                        Ok(0) => {}
                        Ok(discarded) => tracing::info!(discarded, "discarded unsent uploads"),
                        Err(err) => tracing::warn!(error = %err, "could not list workspaces to sweep"),
                    },
                }
            }
        }
    }
}

/// One pass over every live workspace; how many files it discarded.
pub async fn sweep_all(db: &PgPool, store: &Store, kept: Duration) -> sqlx::Result<u64> {
    let mut after = Uuid::nil();
    let mut discarded = 0;
    loop {
        let page: Vec<(Uuid, String)> = sqlx::query_as(
            "SELECT id, schema_name FROM public.workspaces
              WHERE id > $1 AND status = 'active' ORDER BY id LIMIT $2",
        )
        .bind(after)
        .bind(WORKSPACE_PAGE)
        .fetch_all(db)
        .await?;
        let Some((last, _)) = page.last() else {
            return Ok(discarded);
        };
        after = *last;
        for (workspace_id, schema) in &page {
            let Ok(schema) = TenantSchema::parse(schema) else {
                continue;
            };
            match sweep(db, store, *workspace_id, &schema, kept).await {
                Ok(count) => discarded += count,
                Err(err) => {
                    tracing::warn!(error = %err, %workspace_id, "could not sweep its unsent uploads");
                }
            }
        }
    }
}

/// Discards one workspace's unsent uploads older than `kept`, a batch at a time.
pub async fn sweep(
    db: &PgPool,
    store: &Store,
    workspace_id: Uuid,
    schema: &TenantSchema,
    kept: Duration,
) -> anyhow::Result<u64> {
    let mut discarded = 0;
    loop {
        let gone: Vec<(Uuid, bool)> = sqlx::query_as(schema.sql(
            "WITH old AS (SELECT id FROM {schema}.attachments
                           WHERE message_id IS NULL
                             AND created_at < now() - make_interval(secs => $1)
                           ORDER BY created_at LIMIT $2
                           FOR UPDATE SKIP LOCKED),
                  d AS (DELETE FROM {schema}.attachments a USING old
                         WHERE a.id = old.id AND a.message_id IS NULL
                         RETURNING a.id, a.size, a.thumbnail_type IS NOT NULL AS thumbnail),
                  u AS (UPDATE {schema}.storage_usage
                           SET bytes = bytes - (SELECT coalesce(sum(size), 0) FROM d),
                               files = files - (SELECT count(*) FROM d)
                         WHERE EXISTS (SELECT 1 FROM d))
             SELECT id, thumbnail FROM d",
        ))
        .bind(kept.as_secs_f64())
        .bind(BATCH)
        .fetch_all(db)
        .await?;
        for (id, thumbnail) in &gone {
            let mut paths: Vec<Path> = vec![attachment_path(workspace_id, *id, Variant::Original)];
            if *thumbnail {
                paths.push(attachment_path(workspace_id, *id, Variant::Thumbnail));
            }
            for path in paths {
                match store.delete(&path).await {
                    Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                    Err(e) => tracing::warn!(error = %e, %path, "an unsent upload's object stays"),
                }
            }
        }
        discarded += gone.len() as u64;
        if (gone.len() as i64) < BATCH {
            return Ok(discarded);
        }
    }
}
