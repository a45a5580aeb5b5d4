//! After commit: a transaction's recorded events reach this process's subscribers (the chat
//! hub today), in commit order per writer. A subscriber must not block: the hub hands events
//! to its own queues. Durable subscribers (integrations) read the log itself at their own
//! pace, from the last seq they handled.
//!
//! Events written without numbers ([`Appended::Waiting`]) are numbered here first, by a pass
//! over the workspace's waiting events ([`log::number_waiting`]) that every writer of the
//! workspace who asks meanwhile shares: when 16 writers of one workspace commit at once, a
//! pass or two number all of them. The pass runs in a task of its own and the writer
//! returns after its commit: a reply's answer never waits for a pass (in one workspace with
//! 16 writers, waiting for it cost a third of their throughput, `docs/performance.md`). A
//! reader at the log's tail numbers what waits before it answers ([`Publisher::settle`],
//! from `GET /api/events`), so a client that reads the log after its write still finds the
//! write there. Subscribers hear the events from whichever replica numbered them (it may be
//! another's writer's events: each is numbered once, so heard once). A stopping replica
//! finishes the passes it started ([`Publisher::drain`]).
//!
//! A pass that leaves numbered arrivals above the log's watermark (a transaction that took
//! an arrival may still commit, `tenant_migrations/V28__event_batches.sql`) leaves writers
//! taking the slower way; a pass shortly after moves the watermark ([`SETTLE_AFTER`]).
//!
//! A replica that dies between a commit and its pass leaves events waiting: the next write
//! in that workspace waits behind them and numbers them (as does the next reader of its
//! tail), and every replica looks for any left over when it starts and every
//! [`SWEEP_EVERY`] after ([`Publisher::sweep`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sqlx::PgPool;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::pages::workspaces_after;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use super::catalogue::Recorded;
use super::log::{self, Appended};

/// How often a replica looks for events left waiting by a replica that stopped.
pub const SWEEP_EVERY: Duration = Duration::from_secs(300);
/// Workspaces read from the control plane at a time by a sweep.
const SWEEP_PAGE: i64 = 500;
/// When a pass left the log unsettled, the waits before the passes that settle it (one
/// settling task a workspace at a time). The first is usually enough: it only waits for the
/// transactions that were running at the last pass to end.
const SETTLE_AFTER: [Duration; 5] = [
    Duration::from_millis(5),
    Duration::from_millis(25),
    Duration::from_millis(100),
    Duration::from_millis(500),
    Duration::from_secs(2),
];
/// A workspace whose writers have not asked for a pass this long is forgotten here.
const LANE_IDLE: Duration = Duration::from_secs(600);

/// Hears every committed event of this process.
pub trait Subscriber: Send + Sync {
    fn committed(&self, workspace_id: Uuid, events: &[Recorded]);
}

#[derive(Clone)]
pub struct Publisher {
    /// Shared, so that the clone each waiting write hands its pass allocates nothing.
    subscribers: Arc<[Arc<dyn Subscriber>]>,
    db: PgPool,
    lanes: moka::sync::Cache<Uuid, Arc<Lane>>,
    /// The passes writers started after their commits.
    passes: TaskTracker,
}

/// One workspace's passes here: writers who ask while a pass runs share the next one.
#[derive(Default)]
struct Lane {
    /// Tickets handed out: a writer takes the next one after its commit.
    asked: AtomicU64,
    /// The highest ticket a finished pass covered; held while a pass runs, so this replica's
    /// passes of one workspace take turns (replicas take turns on the log's head).
    covered: tokio::sync::Mutex<u64>,
    /// Whether a task waits to settle the log ([`SETTLE_AFTER`]).
    settling: std::sync::atomic::AtomicBool,
}

impl Publisher {
    /// `db` numbers events that waited ([`Appended::Waiting`]).
    pub fn new(subscribers: Vec<Arc<dyn Subscriber>>, db: PgPool) -> Self {
        Self {
            subscribers: subscribers.into(),
            db,
            lanes: moka::sync::Cache::builder().time_to_idle(LANE_IDLE).build(),
            passes: TaskTracker::new(),
        }
    }

    /// Hands a transaction's events to every subscriber: at once when they were numbered in
    /// it, and otherwise from a pass that numbers them first, in a task of its own. Call it
    /// after the commit. A pass that fails is logged: its events wait for the next pass (the
    /// next write or tail read in the workspace, or the [`sweep`](Self::sweep)).
    pub fn committed(&self, workspace_id: Uuid, appended: Appended) {
        match appended {
            Appended::Numbered(events) => self.publish(workspace_id, &events),
            Appended::Waiting(schema) => {
                let publisher = self.clone();
                self.passes.spawn(async move {
                    if !publisher.number(workspace_id, &schema).await {
                        publisher.settle_later(workspace_id, schema);
                    }
                });
            }
        }
    }

    /// Numbers whatever of the workspace's events waits now and hands it to subscribers,
    /// for a reader about to read the log's tail or to start from its head (a page of
    /// `GET /api/events`, a new webhook endpoint): what was committed before this call is
    /// then at or below the head it reads.
    pub async fn settle(&self, workspace_id: Uuid, schema: &TenantSchema) {
        if !self.number(workspace_id, schema).await {
            self.settle_later(workspace_id, schema.clone());
        }
    }

    /// Waits for the passes writers started (a replica that stops finishes them, rather than
    /// leave their events to the next write or another replica's sweep).
    pub async fn drain(&self) {
        self.passes.close();
        self.passes.wait().await;
    }

    /// Returns once a pass that started after this call has numbered the workspace's
    /// waiting events (this one's, or the one it shared), or has failed; whether this
    /// call's pass left the log settled (`true` when it shared another's).
    async fn number(&self, workspace_id: Uuid, schema: &TenantSchema) -> bool {
        let lane = self.lane(workspace_id);
        let ticket = lane.asked.fetch_add(1, Ordering::SeqCst) + 1;
        let mut covered = lane.covered.lock().await;
        if *covered >= ticket {
            return true;
        }
        // Every ticket handed out so far was taken after its writer's commit, which this
        // pass's statements, starting later, see.
        let covers = lane.asked.load(Ordering::SeqCst);
        match self.pass(workspace_id, schema).await {
            Ok(settled) => {
                *covered = covers;
                settled
            }
            Err(err) => {
                tracing::warn!(error = %err, %workspace_id, "numbering waiting events failed");
                false
            }
        }
    }

    fn lane(&self, workspace_id: Uuid) -> Arc<Lane> {
        self.lanes
            .get_with(workspace_id, || Arc::new(Lane::default()))
    }

    /// Passes after [`SETTLE_AFTER`]'s waits until one leaves the log settled, in a task of
    /// its own (none when one already waits for this workspace, or the replica stops).
    fn settle_later(&self, workspace_id: Uuid, schema: TenantSchema) {
        let lane = self.lane(workspace_id);
        if lane.settling.swap(true, Ordering::SeqCst) {
            return;
        }
        let publisher = self.clone();
        self.passes.spawn(async move {
            for wait in SETTLE_AFTER {
                if publisher.passes.is_closed() {
                    break;
                }
                tokio::time::sleep(wait).await;
                if publisher.number(workspace_id, &schema).await {
                    break;
                }
            }
            lane.settling.store(false, Ordering::SeqCst);
        });
    }

    /// Numbers what waits in the workspace and hands it to subscribers; whether it left the
    /// log settled.
    async fn pass(&self, workspace_id: Uuid, schema: &TenantSchema) -> sqlx::Result<bool> {
        let numbered = log::number_waiting(&self.db, schema).await?;
        metrics::counter!("events_numbered_after_commit_total")
            .increment(numbered.events.len() as u64);
        let mut events = Vec::with_capacity(numbered.events.len());
        for stored in numbered.events {
            match Recorded::try_from(stored) {
                Ok(recorded) => events.push(recorded),
                Err(err) => {
                    tracing::error!(error = %err, %workspace_id, "a logged event did not read back");
                }
            }
        }
        self.publish(workspace_id, &events);
        Ok(numbered.settled)
    }

    fn publish(&self, workspace_id: Uuid, events: &[Recorded]) {
        if events.is_empty() {
            return;
        }
        metrics::counter!("events_recorded_total").increment(events.len() as u64);
        for subscriber in self.subscribers.iter() {
            subscriber.committed(workspace_id, events);
        }
    }

    /// Numbers the events of every workspace that has some waiting (left by a replica that
    /// stopped between a commit and its pass); how many workspaces had some.
    pub async fn sweep(&self) -> sqlx::Result<usize> {
        let mut after = Uuid::nil();
        let mut found = 0;
        loop {
            let page = workspaces_after(&self.db, after, SWEEP_PAGE).await?;
            let Some((last, _)) = page.last() else {
                return Ok(found);
            };
            after = *last;
            for (workspace_id, schema) in page {
                let Ok(schema) = TenantSchema::parse(&schema) else {
                    continue;
                };
                match log::any_waiting(&self.db, &schema).await {
                    Ok(false) => {}
                    Ok(true) => {
                        found += 1;
                        if !self.number(workspace_id, &schema).await {
                            self.settle_later(workspace_id, schema);
                        }
                    }
                    Err(err) => {
                        tracing::warn!(error = %err, %workspace_id, "could not look for waiting events");
                    }
                }
            }
        }
    }

    /// Sweeps at once, then every [`SWEEP_EVERY`], until `stop`.
    pub async fn run_sweeps(self, stop: CancellationToken) {
        let mut ticks = tokio::time::interval(SWEEP_EVERY);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                _ = ticks.tick() => {
                    tokio::select! {
                        () = stop.cancelled() => return,
                        swept = self.sweep() => match swept {
                            Ok(0) => {}
                            Ok(workspaces) => tracing::info!(workspaces, "numbered events left waiting"),
                            Err(err) => tracing::warn!(error = %err, "could not list workspaces to sweep"),
                        },
                    }
                }
            }
        }
    }
}
