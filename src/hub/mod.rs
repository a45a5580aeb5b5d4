//! The real-time machinery behind the chat hub (`/hubs/chat`, served by `crate::chat`):
//! the connections open on this replica, the workspace events they hear, their way to every
//! replica, and agent presence.
//!
//! The hub subscribes to the event log (`crate::events`): each transaction's recorded events
//! reach it after the commit, go to the other replicas through Redis (`backplane`), are put
//! in `seq` order per workspace on every replica (`sequencer`) and turned into hub events
//! there by the projection the hub was made with (`crate::chat::projection`). Typing and presence, which are not logged, go the same way through
//! [`Hub::emit`]. Nothing here waits for a client or for Redis on the caller's behalf.
//!
//! - `protocol`: the SignalR hub protocols' records, JSON and MessagePack.
//! - `sequencer`: each workspace's events in `seq` order, gaps read from the log.
//! - `events`: hub events, and typing and presence.
//! - `registry`: this replica's connections and delivery to them.
//! - `backplane`: events across replicas.
//! - `presence`: online/offline across replicas.
//! - `tokens`: negotiate's single-use connection tokens.

pub mod backplane;
pub mod events;
pub mod presence;
pub mod protocol;
pub mod registry;
pub mod sequencer;
pub mod tokens;

use std::ops::Deref;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::aio::ConnectionManager;
use supportdesk_core::db::ReadPool;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::events::catalogue::Recorded;
use crate::events::log;
use crate::events::publisher::Subscriber;
use events::{Body, Envelope, Event};
use presence::Presence;
use registry::{AgentIdentity, Registry};
use sequencer::{Sequencer, lock};
use tokens::ConnectionTokens;

/// Events waiting for the backplane; beyond this a burst is delivered locally only.
const BACKPLANE_QUEUE: usize = 10_000;

#[derive(Clone)]
pub struct Hub(Arc<Inner>);

pub struct Inner {
    registry: Registry,
    tokens: ConnectionTokens,
    presence: Presence,
    /// This process among the replicas.
    replica: Uuid,
    channel: String,
    redis: ConnectionManager,
    redis_timeout: Duration,
    /// Reads events a gap is missing.
    reads: ReadPool,
    sequencer: Sequencer,
    /// Turns a logged event into hub events and their audiences.
    project: Projection,
    outbox: mpsc::Sender<String>,
    unsent: Mutex<Option<mpsc::Receiver<String>>>,
    /// Cancelled when the process begins to shut down: connections close asking clients to
    /// reconnect (to another replica).
    closing: CancellationToken,
}

impl Deref for Hub {
    type Target = Inner;

    fn deref(&self) -> &Inner {
        &self.0
    }
}

/// What a logged event becomes on the hub, and who hears it.
pub type Projection = Box<dyn Fn(Uuid, &Recorded) -> Vec<Event> + Send + Sync>;

impl Hub {
    pub fn new(
        redis: ConnectionManager,
        reads: ReadPool,
        project: Projection,
        namespace: &str,
        redis_timeout: Duration,
    ) -> Self {
        let replica = Uuid::new_v4();
        let (outbox, unsent) = mpsc::channel(BACKPLANE_QUEUE);
        Self(Arc::new(Inner {
            registry: Registry::default(),
            tokens: ConnectionTokens::new(redis.clone(), namespace, redis_timeout),
            presence: Presence::new(redis.clone(), namespace, replica, redis_timeout),
            replica,
            channel: supportdesk_core::pubsub::events_channel(namespace),
            redis,
            redis_timeout,
            reads,
            sequencer: Sequencer::default(),
            project,
            outbox,
            unsent: Mutex::new(Some(unsent)),
            closing: CancellationToken::new(),
        }))
    }

    /// This replica's connections.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Negotiate's single-use connection tokens.
    pub fn tokens(&self) -> &ConnectionTokens {
        &self.tokens
    }

    /// Cancelled when the process begins to shut down: connections close asking clients to
    /// reconnect (to another replica), and new ones are refused.
    pub fn closing(&self) -> &CancellationToken {
        &self.closing
    }

    /// Raises a typing or presence event: delivered here now, and to the other replicas
    /// through the backplane.
    pub fn emit(&self, event: Event) {
        self.arrived(&event);
        self.publish(&Body::Live(event));
    }

    fn publish(&self, body: &Body) {
        let envelope = Envelope {
            origin: self.replica,
            sent_at: OffsetDateTime::now_utc(),
            body,
        };
        let Ok(message) = serde_json::to_string(&envelope) else {
            return;
        };
        if self.outbox.try_send(message).is_err() {
            metrics::counter!("hub_backplane_dropped_total").increment(1);
        }
    }

    /// A typing or presence event raised here or by another replica reaches this replica's
    /// connections.
    fn arrived(&self, event: &Event) {
        if event.target == "PresenceChanged" {
            self.presence.changed(event.workspace_id);
        }
        self.registry.deliver(event);
    }

    /// Logged events, committed here or heard from another replica, reach this replica's
    /// connections in `seq` order.
    fn heard(&self, workspace_id: Uuid, events: Vec<Recorded>) {
        let track = self.sequencer.track(workspace_id);
        let mut track = lock(&track);
        let ready = track.accept(events);
        self.deliver_logged(workspace_id, &ready);
        if (track.gap().is_some() || track.unsettled()) && !track.filling {
            track.filling = true;
            self.spawn_fill(workspace_id);
        }
    }

    fn spawn_fill(&self, workspace_id: Uuid) {
        let fill: std::pin::Pin<Box<dyn Future<Output = ()> + Send>> =
            Box::pin(self.clone().fill(workspace_id));
        tokio::spawn(fill);
    }

    fn deliver_logged(&self, workspace_id: Uuid, events: &[Recorded]) {
        for recorded in events {
            for event in (self.project)(workspace_id, recorded) {
                self.registry.deliver(&event);
            }
        }
    }

    /// Waits [`sequencer::GAP_WAIT`] for a gap's events to arrive (or for a new track's
    /// events to settle), then reads what is still missing from the log (when anyone here
    /// listens), or moves on.
    async fn fill(self, workspace_id: Uuid) {
        tokio::time::sleep(sequencer::GAP_WAIT).await;
        let track = self.sequencer.track(workspace_id);
        let gap = {
            let mut track = lock(&track);
            let settled = track.settle();
            self.deliver_logged(workspace_id, &settled);
            track.gap()
        };
        let missing = match gap {
            Some((from, until))
                if until - from <= sequencer::MAX_FILL && self.registry.serves(workspace_id) =>
            {
                metrics::counter!("hub_event_gaps_filled_total").increment(1);
                self.read_log(workspace_id, from, until).await
            }
            _ => Vec::new(),
        };
        let mut track = lock(&track);
        track.filling = false;
        let mut ready = track.accept(missing);
        // The gap this task waited for is still open (the log could not be read): move on.
        // A gap further on, opened meanwhile, gets its own wait.
        if let (Some((_, until)), Some((from, _))) = (gap, track.gap())
            && from < until
        {
            metrics::counter!("hub_event_gaps_skipped_total").increment(1);
            ready.extend(track.skip());
        }
        self.deliver_logged(workspace_id, &ready);
        if track.gap().is_some() {
            track.filling = true;
            self.spawn_fill(workspace_id);
        }
    }

    /// Events `from..until` of the workspace's log; none when it cannot be read in time.
    async fn read_log(&self, workspace_id: Uuid, from: i64, until: i64) -> Vec<Recorded> {
        let schema = TenantSchema::for_workspace(workspace_id);
        let read = async {
            let mut conn = self.reads.get(&schema).await?;
            let events = log::read(&mut conn, &schema, from - 1, Some(until), until - from).await?;
            anyhow::Ok(events)
        };
        match tokio::time::timeout(Duration::from_secs(2), read).await {
            Ok(Ok(events)) => events,
            Ok(Err(err)) => {
                tracing::warn!(error = %err, "could not read missed events from the log");
                Vec::new()
            }
            Err(_) => {
                tracing::warn!("reading missed events from the log timed out");
                Vec::new()
            }
        }
    }

    /// The agent's first connection here opened: announce them if they just came online.
    pub async fn agent_connected(&self, agent: &AgentIdentity) {
        if self.presence.connected(agent).await {
            self.emit(Event::presence_changed(
                agent.workspace_id,
                agent.agent_id,
                true,
            ));
        }
    }

    /// The agent's last connection here closed: after the grace period, announce them
    /// offline unless they are back (here or elsewhere).
    pub async fn agent_disconnected(&self, agent: AgentIdentity) {
        self.presence.disconnected(&agent).await;
        let hub = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(presence::GRACE + Duration::from_millis(250)).await;
            hub.sweep(agent.workspace_id).await;
        });
    }

    async fn sweep(&self, workspace_id: Uuid) {
        for agent_id in self.presence.sweep(workspace_id).await {
            self.emit(Event::presence_changed(workspace_id, agent_id, false));
        }
    }

    /// The workspace's agents online now (`GET /api/agents`).
    pub async fn online(&self, workspace_id: Uuid) -> Arc<std::collections::HashSet<Uuid>> {
        self.presence.online(workspace_id, &self.registry).await
    }

    /// Publishes to the other replicas what this process raised and has not published yet,
    /// for a command that writes and exits (`supportdesk mail receive`) without running the
    /// backplane.
    pub async fn flush(&self) {
        let unsent = self
            .unsent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(mut unsent) = unsent {
            backplane::flush(
                &mut unsent,
                self.redis.clone(),
                &self.channel,
                self.redis_timeout,
            )
            .await;
        }
    }

    /// Runs the backplane and the presence heartbeat until `stop`.
    pub async fn run(self, client: redis::Client, stop: CancellationToken) {
        let unsent = self
            .unsent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        let publisher = unsent.map(|unsent| {
            tokio::spawn(backplane::publish(
                unsent,
                self.redis.clone(),
                self.channel.clone(),
                self.redis_timeout,
                stop.clone(),
            ))
        });
        let subscriber = tokio::spawn(backplane::subscribe(self.clone(), client, stop.clone()));
        let mut heartbeat = tokio::time::interval(presence::HEARTBEAT);
        heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = stop.cancelled() => break,
                _ = heartbeat.tick() => self.heartbeat().await,
            }
        }
        if let Some(publisher) = publisher {
            let _ = publisher.await;
        }
        let _ = subscriber.await;
    }

    /// Renews this replica's agents and sweeps the workspaces it serves, so an agent of a
    /// replica that died is announced offline here.
    async fn heartbeat(&self) {
        self.sequencer.forget_idle();
        let agents = self.registry.ready_agents();
        self.presence.renew(&agents).await;
        let mut workspaces: Vec<Uuid> = agents.iter().map(|a| a.workspace_id).collect();
        workspaces.dedup();
        for workspace_id in workspaces {
            self.sweep(workspace_id).await;
        }
    }
}

/// The hub hears every event this replica commits, and passes it on to the others.
impl Subscriber for Hub {
    fn committed(&self, workspace_id: Uuid, events: &[Recorded]) {
        let logged = Body::Logged {
            workspace_id,
            events: events.to_vec(),
        };
        self.publish(&logged);
        if let Body::Logged { events, .. } = logged {
            self.heard(workspace_id, events);
        }
    }
}
