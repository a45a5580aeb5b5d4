//! Housekeeping: keeps the outbox and the queues from growing without bound, removes accounts
//! nobody ever claimed, and refreshes the gauges operators alert on (backlog, dead letters,
//! queue depth).
//!
//! Unclaimed accounts: an address registered and never verified within
//! [`UNVERIFIED_ACCOUNT_RETENTION`], and belonging to no workspace, is most likely a typo or
//! somebody squatting on an address that is not theirs. Removing it frees the address for its
//! owner and drops personal data nobody confirmed. An account in any workspace (even
//! deactivated) owns something and is kept; so is every verified one.

use std::time::Duration;

use redis::aio::ConnectionManager;
use sqlx::PgPool;
use supportdesk_core::outbox::{self, MessageKind};
use tokio_util::sync::CancellationToken;

use crate::queues;

/// Delivered outbox rows are kept this long for inspection, then deleted.
pub const OUTBOX_RETENTION: Duration = Duration::from_secs(7 * 24 * 3600);
/// Open messages relayed this long ago and not being attempted are handed over again.
pub const STRANDED_AFTER: Duration = Duration::from_secs(300);
/// Accounts whose address is still unverified this long after registering, and that belong to
/// no workspace, are deleted.
pub const UNVERIFIED_ACCOUNT_RETENTION: Duration = Duration::from_secs(7 * 24 * 3600);
/// Accounts deleted per statement: short transactions, short row locks.
pub const ACCOUNT_BATCH: i64 = 500;
/// Batches per clean-up pass at most; a larger backlog is finished by the next passes.
const ACCOUNT_BATCHES_PER_PASS: usize = 20;
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
                    .set(depth as f64);
            }
            Err(err) => tracing::warn!(error = %err, "could not read the queue depth"),
        }
    }
}

/// One clean-up pass: hand stranded messages over again, purge what is finished (outbox rows,
/// queue bookkeeping) and remove unclaimed accounts. Every step logs its own failure and the
/// pass goes on; the next pass, a minute later, tries again.
pub async fn clean_up(db: &PgPool, redis: &ConnectionManager, namespace: &str) {
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
    let mut removed = 0;
    for _ in 0..ACCOUNT_BATCHES_PER_PASS {
        match remove_unclaimed_accounts(db, UNVERIFIED_ACCOUNT_RETENTION, ACCOUNT_BATCH).await {
            Ok(count) => {
                removed += count;
                if count < ACCOUNT_BATCH as u64 {
                    break;
                }
            }
            Err(err) => {
                tracing::warn!(error = %err, "could not remove unverified accounts");
                break;
            }
        }
    }
    if removed > 0 {
        tracing::info!(
            removed,
            retention_days = UNVERIFIED_ACCOUNT_RETENTION.as_secs() / 86_400,
            "removed unverified accounts that belong to no workspace"
        );
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

/// Deletes up to `batch` accounts still unverified `older_than` after registering that belong
/// to no workspace; how many. Their verification and reset rows go with them (cascade).
///
/// Two statements in one transaction, so an account cannot join a workspace while it is
/// being deleted: the first locks the candidates (skipping any row another transaction holds,
/// such as one adding a membership, whose foreign-key check locks the user), the second, with
/// a fresh snapshot, re-checks and deletes. A membership committed before the lock is seen by
/// the re-check; one attempted after it waits for the delete and then fails on the missing
/// account, instead of the delete cascading over a membership it never saw. The candidates
/// are found through the partial index `users_unverified_created`.
pub async fn remove_unclaimed_accounts(
    db: &PgPool,
    older_than: Duration,
    batch: i64,
) -> sqlx::Result<u64> {
    // In a task of its own: a shutdown may drop this pass mid-BEGIN (see `db::begin`).
    let mut tx = supportdesk_core::db::begin(db, None).await?;
    let candidates = sqlx::query_scalar!(
        "SELECT u.id FROM public.users u
          WHERE NOT u.email_verified
            AND u.created_at < now() - make_interval(secs => $1)
            AND NOT EXISTS (SELECT 1 FROM public.memberships m WHERE m.user_id = u.id)
          ORDER BY u.created_at
          LIMIT $2
          FOR UPDATE SKIP LOCKED",
        older_than.as_secs_f64(),
        batch,
    )
    .fetch_all(&mut *tx)
    .await?;
    if candidates.is_empty() {
        return Ok(0);
    }
    let deleted = sqlx::query!(
        "DELETE FROM public.users u
          WHERE u.id = ANY($1)
            AND NOT u.email_verified
            AND NOT EXISTS (SELECT 1 FROM public.memberships m WHERE m.user_id = u.id)",
        &candidates,
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    tx.commit().await?;
    Ok(deleted)
}
