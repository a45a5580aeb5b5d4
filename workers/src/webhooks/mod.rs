//! Webhook deliveries: each endpoint is a durable reader of its workspace's event log.
//!
//! Why not the job queues: an endpoint must see its events in `seq` order with one delivery
//! in flight, and a failed one holds up the ones after it (for that endpoint only). The log is
//! already that queue; each endpoint only keeps its place in it (`endpoint`). Nothing is
//! copied per endpoint, a crash loses nothing, and an endpoint's retries wait in its row.
//!
//! Finding work without visiting every schema: the control plane lists the workspaces with
//! endpoints (`public.webhook_workspaces`). A pass every [`POLL`] visits them all; between
//! passes the worker wakes for one workspace when an API replica publishes its committed
//! events on the hub's backplane (Redis), and for every workspace when an Owner asks for a
//! delivery by hand (PostgreSQL `NOTIFY webhook_requests`). Redis down only slows delivery to
//! the pass.
//!
//! A visit leases the workspace's due endpoints (`lease_owner`, `lease_until`: one worker per
//! endpoint, taken over when a dead worker's lease lapses) and delivers to each in a task of
//! its own, at most [`CONCURRENCY`] at once, so a slow or dead receiver holds up only itself.
//! Attempts older than 30 days are pruned, in batches, by the same loop, which also measures
//! the oldest undelivered event's age every 30 s (`webhook_backlog_age_seconds`).

mod endpoint;
pub mod http;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgListener;
use supportdesk_core::pubsub;
use supportdesk_core::sealed_credentials::CredentialKey;
use supportdesk_core::tenancy::TenantSchema;
use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use self::endpoint::{LEASE, Pass};
use self::http::Sender;

/// Between passes over every workspace with endpoints.
pub const POLL: Duration = Duration::from_secs(2);
/// Endpoints delivered to at once by one worker.
pub const CONCURRENCY: usize = 64;
/// The delivery log is kept this long.
const ATTEMPTS_KEPT: Duration = Duration::from_secs(30 * 24 * 3600);
const PRUNE_EVERY: Duration = Duration::from_secs(3600);
/// How often `webhook_backlog_age_seconds` is measured.
const BACKLOG_EVERY: Duration = Duration::from_secs(30);
const PRUNE_BATCH: i64 = 1000;

pub struct Webhooks {
    db: PgPool,
    key: CredentialKey,
    sender: Sender,
    /// This worker, as the endpoints' lease holder.
    owner: Uuid,
    /// Endpoints with a delivery task here.
    busy: Mutex<HashSet<Uuid>>,
    slots: Arc<Semaphore>,
    wake: mpsc::Sender<Wake>,
    woken: Mutex<Option<mpsc::Receiver<Wake>>>,
}

/// What wakes the loop: one workspace's new events, or everything (a hand-made request).
enum Wake {
    Workspace(Uuid),
    All,
}

impl Webhooks {
    pub fn new(db: PgPool, key: CredentialKey, sender: Sender) -> Arc<Self> {
        let (wake, woken) = mpsc::channel::<Wake>(1024);
        Arc::new(Self {
            db,
            key,
            sender,
            owner: Uuid::new_v4(),
            busy: Mutex::default(),
            slots: Arc::new(Semaphore::new(CONCURRENCY)),
            wake,
            woken: Mutex::new(Some(woken)),
        })
    }

    /// Delivers until `stop`; `redis` and `channel` are the backplane it wakes by.
    pub async fn run(
        self: Arc<Self>,
        redis: redis::Client,
        channel: String,
        stop: CancellationToken,
    ) {
        let Some(mut woken) = self.woken.lock().ok().and_then(|mut w| w.take()) else {
            tracing::error!("webhook deliveries already run");
            return;
        };
        let wake = self.wake.clone();
        let backplane = tokio::spawn({
            let wake = wake.clone();
            let stop = stop.clone();
            async move {
                let channel = pubsub::Channel {
                    client: &redis,
                    name: &channel,
                    timeout: Duration::from_secs(2),
                    purpose: "webhook wake-ups",
                };
                pubsub::listen(
                    channel,
                    &stop,
                    |_| {},
                    |payload| {
                        if let Some(workspace) = pubsub::logged_workspace(&payload) {
                            let _ = wake.try_send(Wake::Workspace(workspace));
                        }
                        async {}
                    },
                )
                .await;
            }
        });
        let requests = tokio::spawn(listen_for_requests(self.db.clone(), wake, stop.clone()));

        let mut workspaces: HashMap<Uuid, TenantSchema> = HashMap::new();
        let mut passes = tokio::time::interval(POLL);
        passes.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut prunes = tokio::time::interval(PRUNE_EVERY);
        prunes.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut backlogs = tokio::time::interval(BACKLOG_EVERY);
        backlogs.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let visit: Vec<(Uuid, TenantSchema)> = tokio::select! {
                () = stop.cancelled() => break,
                _ = passes.tick() => match self.workspaces().await {
                    Ok(all) => {
                        workspaces = all.into_iter().collect();
                        workspaces.iter().map(|(id, s)| (*id, s.clone())).collect()
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "listing the workspaces with webhooks failed");
                        continue;
                    }
                },
                _ = prunes.tick() => {
                    self.prune(&workspaces).await;
                    continue;
                }
                _ = backlogs.tick() => {
                    let age = self.backlog_age(&workspaces).await;
                    metrics::gauge!("webhook_backlog_age_seconds").set(age);
                    continue;
                }
                woken = woken.recv() => match woken {
                    Some(Wake::Workspace(id)) => workspaces
                        .get(&id)
                        .map(|schema| vec![(id, schema.clone())])
                        .unwrap_or_default(),
                    Some(Wake::All) => workspaces.iter().map(|(id, s)| (*id, s.clone())).collect(),
                    None => break,
                },
            };
            for (workspace_id, schema) in visit {
                if let Err(e) = self.visit(workspace_id, schema).await {
                    tracing::warn!(%workspace_id, error = %e, "visiting a workspace's webhooks failed");
                }
            }
        }
        backplane.abort();
        requests.abort();
        // In-flight deliveries finish (each is bounded by the 15 s timeout) or are cut; a cut
        // one is sent again by whoever holds the lease next.
        let _ = tokio::time::timeout(
            Duration::from_secs(20),
            self.slots.acquire_many(CONCURRENCY as u32),
        )
        .await;
    }

    async fn workspaces(&self) -> sqlx::Result<Vec<(Uuid, TenantSchema)>> {
        let rows: Vec<(Uuid, String)> = sqlx::query_as(
            "SELECT w.id, w.schema_name FROM public.webhook_workspaces h
               JOIN public.workspaces w ON w.id = h.workspace_id AND w.status = 'active'
              WHERE h.endpoints > 0",
        )
        .fetch_all(&self.db)
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(id, schema)| Some((id, TenantSchema::parse(&schema).ok()?)))
            .collect())
    }

    /// Leases the workspace's due endpoints and starts a delivery task for each.
    async fn visit(self: &Arc<Self>, workspace_id: Uuid, schema: TenantSchema) -> sqlx::Result<()> {
        let claimed: Vec<(Uuid,)> = sqlx::query_as(schema.sql(
            "UPDATE {schema}.webhook_endpoints e
                SET lease_owner = $1, lease_until = now() + $2
              WHERE e.id IN (
                    SELECT x.id FROM {schema}.webhook_endpoints x
                     WHERE (x.lease_until IS NULL OR x.lease_until < now())
                       AND (EXISTS (SELECT 1 FROM {schema}.webhook_requests r
                                     WHERE r.endpoint_id = x.id)
                            OR (x.enabled
                                AND (x.next_attempt_at IS NULL OR x.next_attempt_at <= now())
                                AND x.cursor < (SELECT seq FROM {schema}.event_log_head)))
                     FOR UPDATE SKIP LOCKED)
             RETURNING e.id",
        ))
        .bind(self.owner)
        .bind(LEASE)
        .fetch_all(&self.db)
        .await?;
        for (id,) in claimed {
            let fresh = self.busy.lock().is_ok_and(|mut busy| busy.insert(id));
            if !fresh {
                continue;
            }
            let this = self.clone();
            let schema = schema.clone();
            tokio::spawn(async move {
                let Ok(_slot) = this.slots.clone().acquire_owned().await else {
                    return;
                };
                let pass = this.deliver(workspace_id, &schema, id).await;
                if let Err(e) = &pass {
                    tracing::warn!(%workspace_id, endpoint = %id, error = %e, "webhook delivery stopped");
                }
                if !matches!(pass, Ok(Pass::Lost)) {
                    this.release(&schema, id).await;
                }
                if let Ok(mut busy) = this.busy.lock() {
                    busy.remove(&id);
                }
                // Events committed while the lease was held found it taken: look again (after
                // a failure, the next pass does).
                if matches!(pass, Ok(Pass::Done)) {
                    let _ = this.wake.try_send(Wake::Workspace(workspace_id));
                }
            });
        }
        Ok(())
    }

    async fn release(&self, schema: &TenantSchema, id: Uuid) {
        let released = sqlx::query(schema.sql(
            "UPDATE {schema}.webhook_endpoints SET lease_owner = NULL, lease_until = NULL
              WHERE id = $1 AND lease_owner = $2",
        ))
        .bind(id)
        .bind(self.owner)
        .execute(&self.db)
        .await;
        if let Err(e) = released {
            tracing::warn!(endpoint = %id, error = %e, "releasing a webhook lease failed; it lapses");
        }
    }

    /// How long the oldest event an enabled endpoint has not received yet has waited, over
    /// every workspace (0 when none waits): what an alert on stuck deliveries watches.
    async fn backlog_age(&self, workspaces: &HashMap<Uuid, TenantSchema>) -> f64 {
        let mut oldest: f64 = 0.0;
        for (workspace_id, schema) in workspaces {
            // The event after the furthest-behind cursor is the oldest one waiting.
            let age: sqlx::Result<f64> = async {
                let cursor: Option<i64> = sqlx::query_scalar(
                    schema.sql("SELECT min(cursor) FROM {schema}.webhook_endpoints WHERE enabled"),
                )
                .fetch_one(&self.db)
                .await?;
                let Some(cursor) = cursor else {
                    return Ok(0.0);
                };
                sqlx::query_scalar(schema.sql(concat!(
                    "SELECT coalesce(max(extract(epoch FROM now() - e.occurred_at)), 0)::float8
                       FROM ",
                    supportdesk_core::numbered_events!(),
                    " e"
                )))
                .bind(cursor)
                .bind(cursor + 1)
                .fetch_one(&self.db)
                .await
            }
            .await;
            match age {
                Ok(age) => oldest = oldest.max(age),
                Err(e) => {
                    tracing::warn!(%workspace_id, error = %e, "measuring the webhook backlog failed");
                }
            }
        }
        oldest
    }

    /// Deletes attempts older than the delivery log keeps, a batch per workspace per pass.
    async fn prune(&self, workspaces: &HashMap<Uuid, TenantSchema>) {
        for (workspace_id, schema) in workspaces {
            let pruned = sqlx::query(schema.sql(
                "DELETE FROM {schema}.webhook_attempts WHERE id IN (
                     SELECT id FROM {schema}.webhook_attempts
                      WHERE created_at < now() - $1 ORDER BY created_at LIMIT $2)",
            ))
            .bind(ATTEMPTS_KEPT)
            .bind(PRUNE_BATCH)
            .execute(&self.db)
            .await;
            if let Err(e) = pruned {
                tracing::warn!(%workspace_id, error = %e, "pruning the webhook delivery log failed");
            }
        }
    }
}

/// `LISTEN webhook_requests`: an Owner asked for a delivery by hand (a retry, a test).
async fn listen_for_requests(db: PgPool, wake: mpsc::Sender<Wake>, stop: CancellationToken) {
    while !stop.is_cancelled() {
        let listened = async {
            let mut listener = PgListener::connect_with(&db).await?;
            listener.listen("webhook_requests").await?;
            loop {
                listener.recv().await?;
                let _ = wake.try_send(Wake::All);
            }
            #[allow(unreachable_code, reason = "the loop ends by an error only")]
            Ok::<(), sqlx::Error>(())
        };
        tokio::select! {
            () = stop.cancelled() => return,
            result = listened => if let Err(e) = result {
                tracing::warn!(error = %e, "listening for webhook requests failed; again in 5 s");
            },
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(Duration::from_secs(5)) => {}
        }
    }
}
