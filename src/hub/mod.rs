//! The real-time machinery behind the chat hub (`/hubs/chat`, served by `crate::chat`):
//! the connections open on this replica, the events the rest of the API raises after its
//! writes commit, their way to every replica, and agent presence.
//!
//! Everything that writes calls [`Hub::emit`] after its commit; the event reaches this
//! replica's connections at once and the other replicas' through Redis (`backplane`).
//! Nothing here waits for a client or for Redis on the caller's behalf.
//!
//! - `protocol`: the SignalR hub protocols' records, JSON and MessagePack.
//! - `events`: what clients are told, and who hears it.
//! - `registry`: this replica's connections and delivery to them.
//! - `backplane`: events across replicas.
//! - `presence`: online/offline across replicas.
//! - `tokens`: negotiate's single-use connection tokens.

pub mod backplane;
pub mod events;
pub mod presence;
pub mod protocol;
pub mod registry;
pub mod tokens;

use std::ops::Deref;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::aio::ConnectionManager;
use time::OffsetDateTime;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use events::{Envelope, Event};
use presence::Presence;
use registry::{AgentIdentity, Registry};
use tokens::ConnectionTokens;

/// Events waiting for the backplane; beyond this a burst is delivered locally only.
const BACKPLANE_QUEUE: usize = 10_000;

#[derive(Clone)]
pub struct Hub(Arc<Inner>);

pub struct Inner {
    pub registry: Registry,
    pub tokens: ConnectionTokens,
    pub presence: Presence,
    /// This process among the replicas.
    pub replica: Uuid,
    channel: String,
    redis: ConnectionManager,
    redis_timeout: Duration,
    outbox: mpsc::Sender<String>,
    unsent: Mutex<Option<mpsc::Receiver<String>>>,
    /// Cancelled when the process begins to shut down: connections close asking clients to
    /// reconnect (to another replica).
    pub closing: CancellationToken,
}

impl Deref for Hub {
    type Target = Inner;

    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl Hub {
    pub fn new(redis: ConnectionManager, namespace: &str, redis_timeout: Duration) -> Self {
        let replica = Uuid::new_v4();
        let (outbox, unsent) = mpsc::channel(BACKPLANE_QUEUE);
        Self(Arc::new(Inner {
            registry: Registry::default(),
            tokens: ConnectionTokens::new(redis.clone(), namespace, redis_timeout),
            presence: Presence::new(redis.clone(), namespace, replica, redis_timeout),
            replica,
            channel: format!("{namespace}:hub:events"),
            redis,
            redis_timeout,
            outbox,
            unsent: Mutex::new(Some(unsent)),
            closing: CancellationToken::new(),
        }))
    }

    /// Raises `event`: delivered here now, and to the other replicas through the backplane.
    /// Call it after the write it reports has committed.
    pub fn emit(&self, event: Event) {
        self.arrived(&event);
        let envelope = Envelope {
            origin: self.replica,
            sent_at: OffsetDateTime::now_utc(),
            event,
        };
        let Ok(message) = serde_json::to_string(&envelope) else {
            return;
        };
        if self.outbox.try_send(message).is_err() {
            metrics::counter!("hub_backplane_dropped_total").increment(1);
        }
    }

    /// An event raised here or by another replica reaches this replica's connections.
    fn arrived(&self, event: &Event) {
        if event.target == "PresenceChanged" {
            self.presence.changed(event.workspace_id);
        }
        self.registry.deliver(event);
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
        let agents = self.registry.ready_agents();
        self.presence.renew(&agents).await;
        let mut workspaces: Vec<Uuid> = agents.iter().map(|a| a.workspace_id).collect();
        workspaces.dedup();
        for workspace_id in workspaces {
            self.sweep(workspace_id).await;
        }
    }
}
