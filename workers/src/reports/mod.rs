//! Reports are a subscriber of the event log: each workspace's report tables (`report_cycles`
//! and their rollups per hour and channel, per agent, and per label: `report_hours`,
//! `report_agent_hours`, `report_label_hours`, ...) are folded from its events,
//! in `seq` order, by whichever worker gets there, and `GET /api/reports/*` reads only them.
//!
//! Why a subscriber and not the write path: folding costs the API's writes nothing (a reply
//! commits as fast with reports as without), and every report is defined once, in `fold`,
//! over the same facts the hub, webhooks and channels hear.
//!
//! Exactly once: a batch is folded and the workspace's `report_cursor` moved in one
//! transaction that starts by locking the cursor, so two workers never fold the same events
//! and a crash (or a failed statement) rolls back the batch with the cursor; the next visit
//! folds it again from the same place.
//!
//! Finding work without polling every schema: an API replica publishes each commit's
//! workspace on the hub's backplane (Redis), which wakes the fold of that workspace. A sweep
//! over the control plane's workspaces (one cheap comparison of two rows per workspace)
//! catches what the wake-ups missed: at start (a crash, a deploy), as soon as the backplane is
//! heard again after it was lost (the wake-ups of a Redis outage) or wake-ups came faster than
//! they were taken (dropped here), and every [`SWEEP`] for what an API replica could not
//! publish while this worker still listened.

mod events;
mod fold;
pub mod labels;

use std::collections::HashSet;
use std::time::Duration;

use sqlx::PgPool;
use supportdesk_core::outbox::messages::workspace;
use supportdesk_core::pubsub;
use supportdesk_core::tenancy::TenantSchema;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

pub use self::events::Folded;

/// Events folded per transaction.
pub const BATCH: i64 = 500;
/// Between sweeps over every workspace, besides those at start, after the backplane was lost
/// and after wake-ups were dropped.
pub const SWEEP: Duration = Duration::from_secs(300);
/// Workspaces read from the control plane at a time.
const WORKSPACE_PAGE: i64 = 500;

/// Folds until `stop`; `redis` and `channel` are the backplane it wakes by.
pub async fn run(db: PgPool, redis: redis::Client, channel: String, stop: CancellationToken) {
    let (wake, mut woken) = mpsc::channel::<Uuid>(4096);
    // Wake-ups were lost (the subscription was, or they came faster than they were taken):
    // sweep soon.
    let (missed, mut sweep_now) = mpsc::channel::<()>(1);
    let backplane = tokio::spawn({
        let stop = stop.clone();
        async move {
            let mut lost = false;
            let channel = pubsub::Channel {
                client: &redis,
                name: &channel,
                timeout: Duration::from_secs(2),
                purpose: "report wake-ups",
            };
            pubsub::listen(
                channel,
                &stop,
                |subscribed| {
                    if !subscribed {
                        lost = true;
                    } else if std::mem::take(&mut lost) {
                        let _ = missed.try_send(());
                    }
                },
                |payload| {
                    if let Some(workspace) = pubsub::logged_workspace(&payload)
                        && wake.try_send(workspace).is_err()
                    {
                        let _ = missed.try_send(());
                    }
                    async {}
                },
            )
            .await;
        }
    });
    let mut sweeps = tokio::time::interval(SWEEP);
    sweeps.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            _ = sweeps.tick() => {
                if let Err(err) = sweep(&db, &stop).await {
                    tracing::warn!(error = %err, "could not list workspaces to fold reports");
                }
            }
            Some(()) = sweep_now.recv() => {
                tracing::info!("report wake-ups were missed; sweeping for them");
                if let Err(err) = sweep(&db, &stop).await {
                    tracing::warn!(error = %err, "could not list workspaces to fold reports");
                }
            }
            first = woken.recv() => {
                let Some(first) = first else { break };
                // A busy workspace wakes us per commit: fold each woken workspace once.
                let mut due = HashSet::from([first]);
                while let Ok(next) = woken.try_recv() {
                    due.insert(next);
                }
                for workspace_id in due {
                    if stop.is_cancelled() {
                        break;
                    }
                    if let Err(err) = fold_workspace(&db, workspace_id).await {
                        tracing::warn!(%workspace_id, error = %err,
                            "folding reports failed; nothing was lost, the next wake-up or sweep retries");
                    }
                }
            }
        }
    }
    backplane.abort();
}

/// Every workspace whose reports lag its log, caught up.
pub async fn sweep(db: &PgPool, stop: &CancellationToken) -> sqlx::Result<()> {
    let mut after = Uuid::nil();
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
            return Ok(());
        };
        after = *last;
        for (workspace_id, schema) in page {
            if stop.is_cancelled() {
                return Ok(());
            }
            let Ok(schema) = TenantSchema::parse(&schema) else {
                continue;
            };
            if let Err(err) = catch_up(db, &schema).await {
                tracing::warn!(%workspace_id, error = %err, "folding reports failed");
            }
        }
    }
}

async fn fold_workspace(db: &PgPool, workspace_id: Uuid) -> sqlx::Result<()> {
    let mut conn = db.acquire().await?;
    let found = workspace::active(&mut conn, workspace_id).await?;
    drop(conn);
    match found {
        Some(found) => catch_up(db, &found.schema).await.map(|_| ()),
        None => Ok(()),
    }
}

/// Folds the workspace's events until its reports have read its whole log; how many events
/// were read.
pub async fn catch_up(db: &PgPool, schema: &TenantSchema) -> sqlx::Result<u64> {
    let behind: bool = sqlx::query_scalar(schema.sql(
        "SELECT (SELECT seq FROM {schema}.event_log_head) > seq OR NOT label_rollups_built
           FROM {schema}.report_cursor",
    ))
    .fetch_one(db)
    .await?;
    if !behind {
        return Ok(0);
    }
    let mut read = 0;
    loop {
        let batch = fold_batch(db, schema, BATCH).await?;
        read += batch as u64;
        if (batch as i64) < BATCH {
            return Ok(read);
        }
    }
}

/// One transaction: the next `limit` events after the cursor folded, the cursor moved past
/// them. How many events it read.
pub async fn fold_batch(db: &PgPool, schema: &TenantSchema, limit: i64) -> sqlx::Result<usize> {
    let mut tx = supportdesk_core::db::begin(db, None).await?;
    let (cursor, labels_built): (i64, bool) = sqlx::query_as(
        schema.sql("SELECT seq, label_rollups_built FROM {schema}.report_cursor FOR UPDATE"),
    )
    .fetch_one(&mut *tx)
    .await?;
    if !labels_built {
        // Cycles folded before the label rollups existed (V25): counted under their labels
        // once, before anything is added to them.
        labels::build(&mut tx, schema).await?;
    }
    let events: Vec<(i64, String, String)> = sqlx::query_as(schema.sql(concat!(
        "SELECT seq, type, data::text FROM ",
        supportdesk_core::numbered_events!(),
        " e ORDER BY seq"
    )))
    .bind(cursor)
    .bind(cursor + limit)
    .fetch_all(&mut *tx)
    .await?;
    let Some(&(last, _, _)) = events.last() else {
        tx.commit().await?;
        return Ok(0);
    };
    if events[0].0 > cursor + 1 {
        tracing::warn!(schema = %schema, from = cursor + 1, to = events[0].0 - 1,
            "events pruned before reports read them; reports count from what follows");
    }
    let schedule = supportdesk_core::business_hours::load(&mut tx, schema, false).await?;
    for (seq, kind, data) in &events {
        match Folded::parse(kind, data) {
            Ok(event) => fold::fold(&mut tx, schema, &schedule, event).await?,
            Err(err) => {
                // Written by this product, so a fault to fix; holding every later event back
                // for it would make the workspace's reports stop instead.
                metrics::counter!("report_events_unreadable_total").increment(1);
                tracing::error!(schema = %schema, seq, kind, error = %err,
                    "an event the reports cannot read was skipped");
            }
        }
    }
    sqlx::query(schema.sql("UPDATE {schema}.report_cursor SET seq = $1, folded_at = now()"))
        .bind(last)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(events.len())
}
