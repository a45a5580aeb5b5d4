//! Housekeeping: keeps the outbox and the queues from growing without bound, and refreshes the
//! gauges operators alert on (backlog, dead letters, queue depth).

use std::time::Duration;

use redis::aio::ConnectionManager;
use sqlx::PgPool;
use supportdesk::outbox::{self, MessageKind};
use tokio_util::sync::CancellationToken;

use crate::queues;

/// Delivered outbox rows are kept this long for inspection, then deleted.
pub const OUTBOX_RETENTION: Duration = Duration::from_secs(7 * 24 * 3600);
/// Open messages relayed this long ago and not being attempted are handed over again.
pub const STRANDED_AFTER: Duration = Duration::from_secs(300);
const GAUGES_EVERY: Duration = Duration::from_secs(10);
const CLEAN_EVERY: Duration = Duration::from_secs(60);

pub async fn run(db: PgPool, redis: ConnectionManager, namespace: String, stop: CancellationToken) {
    let mut gauges = tokio::time::interval(GAUGES_EVERY);
    let mut clean = tokio::time::interval(CLEAN_EVERY);
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            _ = gauges.tick() => refresh_gauges(&db, &redis, &namespace).await,
            _ = clean.tick() => {
                tokio::select! {
                    () = stop.cancelled() => break,
                    () = clean_up(&db, &redis, &namespace) => {}
                }
            }
        }
    }
}

async fn refresh_gauges(db: &PgPool, redis: &ConnectionManager, namespace: &str) {
    match outbox::backlog(db).await {
        Ok(rows) => {
            for kind in MessageKind::ALL {
                let (pending, dead) = rows
                    .iter()
                    .find(|(k, _, _)| k == kind.as_str())
                    .map_or((0, 0), |(_, p, d)| (*p, *d));
                metrics::gauge!("outbox_pending", "kind" => kind.as_str()).set(pending as f64);
                metrics::gauge!("outbox_dead", "kind" => kind.as_str()).set(dead as f64);
            }
        }
        Err(err) => tracing::warn!(error = %err, "could not read the outbox backlog"),
    }
    let mut conn = redis.clone();
    for kind in MessageKind::ALL {
        let config = queues::queue_config(namespace, kind);
        match queues::depth(&mut conn, &config).await {
            Ok(depth) => {
                metrics::gauge!("job_queue_depth", "queue" => queues::queue_name(namespace, kind))
                    .set(depth as f64)
            }
            Err(err) => tracing::warn!(error = %err, "could not read the queue depth"),
        }
    }
}

async fn clean_up(db: &PgPool, redis: &ConnectionManager, namespace: &str) {
    match outbox::reconcile_stranded(db, STRANDED_AFTER).await {
        Ok(0) => {}
        Ok(count) => tracing::warn!(count, "handed stranded outbox messages to the queue again"),
        Err(err) => tracing::warn!(error = %err, "could not reconcile the outbox"),
    }
    match outbox::purge_finished(db, OUTBOX_RETENTION).await {
        Ok(0) => {}
        Ok(purged) => tracing::info!(purged, "purged finished outbox rows"),
        Err(err) => tracing::warn!(error = %err, "could not purge the outbox"),
    }
    let mut conn = redis.clone();
    for kind in MessageKind::ALL {
        let config = queues::queue_config(namespace, kind);
        loop {
            match queues::purge_done(&mut conn, &config, 500).await {
                Ok(500) => continue,
                Ok(_) => break,
                Err(err) => {
                    tracing::warn!(error = %err, "could not purge finished queue tasks");
                    break;
                }
            }
        }
    }
}
