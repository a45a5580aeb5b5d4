//! The connections open on this replica, by workspace, and delivery to them.
//!
//! A connection holds its place from the WebSocket upgrade on, before its handshake: the
//! caps ([`Limits`]) are checked and the place taken in one step under the lock, so a burst
//! of upgrades cannot all pass the check before any of them counts, and a membership change
//! that arrives while the handshake is pending reaches the connection. Until its handshake
//! names a protocol a connection hears no events; its [`Mailbox`] gives the place back
//! however the connection ends, even when the upgrade never completes.
//!
//! Delivery never waits for a client: each connection has a bounded queue, and one that is
//! full (a client that does not read) is told to close instead of being buffered for without
//! bound. The lock is held only to look entries up, never across an await.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use axum::extract::ws::Message;
use tokio::sync::{mpsc, watch};
use uuid::Uuid;

use supportdesk_core::role::Role;

use crate::credentials::jwt::VisitorTrust;

use super::events::{Audience, Event};
use super::protocol::Protocol;

/// Records queued for one connection before it counts as a slow consumer.
pub const QUEUE: usize = 256;

/// Why the server ends a connection, as its Close message says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloseReason {
    error: Option<String>,
    allow_reconnect: bool,
}

impl CloseReason {
    /// The connection may come back with a fresh token (expiry, shutdown, a slow consumer).
    pub fn reconnect(error: Option<&str>) -> Self {
        Self {
            error: error.map(str::to_owned),
            allow_reconnect: true,
        }
    }

    /// The identity may no longer connect (deactivated, role changed, workspace deleted).
    pub fn ended(error: &str) -> Self {
        Self {
            error: Some(error.to_owned()),
            allow_reconnect: false,
        }
    }

    /// The Close message's `error`: safe to show.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The Close message's `allowReconnect`.
    pub fn allows_reconnect(&self) -> bool {
        self.allow_reconnect
    }
}

/// The two kinds of connection holder, each with its own hub methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Agent,
    Visitor,
}

impl Kind {
    /// The label of the connection metrics.
    pub fn label(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::Visitor => "visitor",
        }
    }
}

/// Who holds a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentIdentity {
    pub workspace_id: Uuid,
    pub user_id: Uuid,
    pub agent_id: Uuid,
    /// The member's role when the connection opened: a change ends the connection.
    pub role: Role,
    /// The account's token version of the credential: a password reset ends the connection.
    pub token_version: i32,
}

/// A chat widget visitor's connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VisitorIdentity {
    pub workspace_id: Uuid,
    /// The contact the visitor is: events for `Audience::Visitor(contact_id)` reach them.
    pub contact_id: Uuid,
    pub visitor_id: Uuid,
    /// How far the token vouched for the visitor: every call checks it against the contact.
    #[serde(default)]
    pub trust: VisitorTrust,
}

/// Who holds a connection: an agent (workspace token) or a widget visitor (visitor token).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Participant {
    Agent(AgentIdentity),
    Visitor(VisitorIdentity),
}

impl Participant {
    pub fn workspace_id(&self) -> Uuid {
        match self {
            Self::Agent(agent) => agent.workspace_id,
            Self::Visitor(visitor) => visitor.workspace_id,
        }
    }

    pub fn agent(&self) -> Option<&AgentIdentity> {
        match self {
            Self::Agent(agent) => Some(agent),
            Self::Visitor(_) => None,
        }
    }

    /// Whether `other` holds the same credential: one visitor token (its visitor id), or one
    /// agent's membership.
    fn same_credential(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Agent(a), Self::Agent(b)) => {
                a.workspace_id == b.workspace_id && a.user_id == b.user_id
            }
            (Self::Visitor(a), Self::Visitor(b)) => {
                a.workspace_id == b.workspace_id && a.visitor_id == b.visitor_id
            }
            _ => false,
        }
    }

    pub fn kind(&self) -> Kind {
        match self {
            Self::Agent(_) => Kind::Agent,
            Self::Visitor(_) => Kind::Visitor,
        }
    }
}

struct Entry {
    who: Participant,
    /// The protocol its handshake chose; `None` while the handshake is pending, when the
    /// connection hears nothing.
    protocol: Option<Protocol>,
    joined: HashSet<Uuid>,
    queue: mpsc::Sender<Message>,
    close: watch::Sender<Option<CloseReason>>,
}

impl Entry {
    /// Agents hear agent audiences, a visitor only events addressed to their own contact;
    /// a connection told to close (its access lost) hears nothing more.
    fn hears(&self, event: &Event) -> bool {
        if self.protocol.is_none() || self.close.borrow().is_some() {
            return false;
        }
        match (&self.who, event.audience) {
            (Participant::Agent(agent), Audience::Agents) => {
                event.except_user != Some(agent.user_id)
            }
            (Participant::Agent(agent), Audience::Joined(conversation)) => {
                event.except_user != Some(agent.user_id) && self.joined.contains(&conversation)
            }
            (Participant::Visitor(visitor), Audience::Visitor(contact)) => {
                visitor.contact_id == contact
            }
            _ => false,
        }
    }

    fn agent(&self) -> Option<&AgentIdentity> {
        self.who.agent()
    }

    fn send(&self, record: &Message) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.queue.try_send(record.clone()) {
            metrics::counter!("hub_slow_consumers_dropped_total").increment(1);
            self.close.send_if_modified(|reason| {
                let first = reason.is_none();
                if first {
                    *reason = Some(CloseReason::reconnect(Some(
                        "the connection fell behind; reconnect to catch up",
                    )));
                }
                first
            });
        }
    }
}

/// The caps a new connection is held to, counting those still in their handshake.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections of one kind (agents, visitors) in one workspace on this replica.
    pub per_workspace: usize,
    /// Connections of one credential (a visitor token, an agent's membership).
    pub per_credential: usize,
}

/// The connections of this replica that a close is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// One connection (its workspace and id, as its [`Mailbox`] names it).
    Connection { workspace_id: Uuid, id: u64 },
    /// A member's agent connections in one workspace, on every device.
    Member { workspace_id: Uuid, user_id: Uuid },
    /// One widget visitor's connections (their token's identity).
    Visitor(VisitorIdentity),
    /// Every connection of the workspace, agents' and visitors'.
    Workspace(Uuid),
}

impl Scope {
    pub fn workspace_id(&self) -> Uuid {
        match self {
            Self::Connection { workspace_id, .. } | Self::Member { workspace_id, .. } => {
                *workspace_id
            }
            Self::Visitor(visitor) => visitor.workspace_id,
            Self::Workspace(workspace_id) => *workspace_id,
        }
    }

    /// Whether the connection `id`, held by `who`, is one of them (its workspace's already).
    fn covers(&self, id: u64, who: &Participant) -> bool {
        match (self, who) {
            (Self::Connection { id: one, .. }, _) => *one == id,
            (Self::Member { user_id, .. }, Participant::Agent(agent)) => agent.user_id == *user_id,
            (Self::Visitor(visitor), Participant::Visitor(holder)) => holder == visitor,
            (Self::Workspace(_), _) => true,
            _ => false,
        }
    }
}

/// Which cap a connection would pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapReached {
    Workspace,
    Credential,
}

type Connections = HashMap<Uuid, HashMap<u64, Entry>>;

/// What the registry has for a connection next.
#[derive(Debug)]
pub enum Delivery {
    /// A record to write.
    Record(Message),
    /// The connection is told to close (`None`: the registry is gone without a reason).
    Close(Option<CloseReason>),
    /// The registry no longer holds the connection.
    Gone,
}

/// What a connection's own task reads: records to write, and a reason once it must close.
/// Dropping it gives the connection's place back.
pub struct Mailbox {
    id: u64,
    workspace_id: Uuid,
    records: mpsc::Receiver<Message>,
    close: watch::Receiver<Option<CloseReason>>,
    connections: Arc<RwLock<Connections>>,
    released: bool,
}

impl Mailbox {
    /// The connection's id on this replica.
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn workspace_id(&self) -> Uuid {
        self.workspace_id
    }

    /// This connection alone, to close it.
    pub fn scope(&self) -> Scope {
        Scope::Connection {
            workspace_id: self.workspace_id,
            id: self.id,
        }
    }

    /// Waits for what the connection must do next: write a record, or close. Closing comes
    /// first: records queued before access was lost are not written after it.
    pub async fn next(&mut self) -> Delivery {
        tokio::select! {
            biased;
            told = told_to_close(&mut self.close) => Delivery::Close(told),
            record = self.records.recv() => record.map_or(Delivery::Gone, Delivery::Record),
        }
    }

    /// Waits until the connection is told to close, and why (`None` when the registry is
    /// gone without a reason).
    pub async fn told_to_close(&mut self) -> Option<CloseReason> {
        told_to_close(&mut self.close).await
    }

    /// Why the connection was told to close, if it was.
    pub fn close_reason(&self) -> Option<CloseReason> {
        self.close.borrow().clone()
    }

    /// Gives the place back; true when this was an agent's last connection here that
    /// finished its handshake (they go offline, after the grace period).
    pub fn release(mut self) -> bool {
        self.released = true;
        unregister(&self.connections, self.workspace_id, self.id)
    }
}

impl Drop for Mailbox {
    fn drop(&mut self) {
        if !self.released {
            unregister(&self.connections, self.workspace_id, self.id);
        }
    }
}

async fn told_to_close(close: &mut watch::Receiver<Option<CloseReason>>) -> Option<CloseReason> {
    let _ = close.changed().await;
    close.borrow_and_update().clone()
}

/// Removes a connection; true when it was an agent's last ready one on this replica.
fn unregister(connections: &RwLock<Connections>, workspace_id: Uuid, id: u64) -> bool {
    let mut workspaces = write(connections);
    let Some(connections) = workspaces.get_mut(&workspace_id) else {
        return false;
    };
    let Some(gone) = connections.remove(&id) else {
        return false;
    };
    let last = gone.protocol.is_some()
        && gone.agent().is_some_and(|gone| {
            !connections.values().any(|c| {
                c.protocol.is_some() && c.agent().is_some_and(|a| a.agent_id == gone.agent_id)
            })
        });
    if connections.is_empty() {
        workspaces.remove(&workspace_id);
    }
    last
}

fn read(connections: &RwLock<Connections>) -> std::sync::RwLockReadGuard<'_, Connections> {
    // A panic while holding the lock cannot leave the maps half-updated (each update is
    // one insert or remove), so a poisoned lock is still sound to use.
    connections
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn write(connections: &RwLock<Connections>) -> std::sync::RwLockWriteGuard<'_, Connections> {
    connections
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[derive(Default)]
pub struct Registry {
    next_id: AtomicU64,
    workspaces: Arc<RwLock<Connections>>,
}

impl Registry {
    /// Takes a place for `who` if `limits` leave one, counting connections whose handshake
    /// is pending: the check and the place are one step.
    pub fn reserve(&self, who: Participant, limits: Limits) -> Result<Mailbox, CapReached> {
        let mut workspaces = self.write();
        let connections = workspaces.entry(who.workspace_id()).or_default();
        let (mut same_kind, mut same_credential) = (0, 0);
        for entry in connections.values() {
            if entry.agent().is_some() == who.agent().is_some() {
                same_kind += 1;
            }
            if entry.who.same_credential(&who) {
                same_credential += 1;
            }
        }
        if same_credential >= limits.per_credential {
            return Err(CapReached::Credential);
        }
        if same_kind >= limits.per_workspace {
            return Err(CapReached::Workspace);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (queue, records) = mpsc::channel(QUEUE);
        let (close, close_rx) = watch::channel(None);
        connections.insert(
            id,
            Entry {
                who,
                protocol: None,
                joined: HashSet::new(),
                queue,
                close,
            },
        );
        Ok(Mailbox {
            id,
            workspace_id: who.workspace_id(),
            records,
            close: close_rx,
            connections: self.workspaces.clone(),
            released: false,
        })
    }

    /// The connection finished its handshake: from now on it hears events, in `protocol`.
    /// False when it is gone, or already told to close.
    pub fn ready(&self, mailbox: &Mailbox, protocol: Protocol) -> bool {
        let mut workspaces = self.write();
        let Some(entry) = workspaces
            .get_mut(&mailbox.workspace_id)
            .and_then(|c| c.get_mut(&mailbox.id))
        else {
            return false;
        };
        if entry.close.borrow().is_some() {
            return false;
        }
        entry.protocol = Some(protocol);
        true
    }

    pub fn join(&self, workspace_id: Uuid, id: u64, conversation_id: Uuid, joined: bool) {
        if let Some(entry) = self
            .write()
            .get_mut(&workspace_id)
            .and_then(|c| c.get_mut(&id))
        {
            if joined {
                entry.joined.insert(conversation_id);
            } else {
                entry.joined.remove(&conversation_id);
            }
        }
    }

    /// Hands `event` to the connections of its workspace that hear it.
    pub fn deliver(&self, event: &Event) {
        let workspaces = self.read();
        let Some(connections) = workspaces.get(&event.workspace_id) else {
            return;
        };
        // Each protocol's record is made once, for the first connection that speaks it.
        let (mut json, mut msgpack): (Option<Message>, Option<Message>) = (None, None);
        for entry in connections.values().filter(|e| e.hears(event)) {
            let (slot, protocol) = match entry.protocol {
                Some(Protocol::MessagePack) => (&mut msgpack, Protocol::MessagePack),
                _ => (&mut json, Protocol::Json),
            };
            let record = slot.get_or_insert_with(|| protocol.event(&event.target, &event.payload));
            entry.send(record);
            metrics::counter!("hub_messages_out_total").increment(1);
        }
    }

    /// Tells the connections of `scope` to close with `reason`, their handshake done or not;
    /// how many there were.
    pub fn close(&self, scope: Scope, reason: &CloseReason) -> usize {
        let workspaces = self.read();
        let Some(connections) = workspaces.get(&scope.workspace_id()) else {
            return 0;
        };
        let mut told = 0;
        for (_, entry) in connections
            .iter()
            .filter(|(id, e)| scope.covers(**id, &e.who))
        {
            entry.close.send_replace(Some(reason.clone()));
            told += 1;
        }
        told
    }

    /// The widget visitors with a connection here, their handshake done or not.
    pub fn visitors(&self) -> Vec<VisitorIdentity> {
        let mut visitors: Vec<VisitorIdentity> = self
            .read()
            .values()
            .flat_map(|c| {
                c.values().filter_map(|e| match e.who {
                    Participant::Visitor(visitor) => Some(visitor),
                    Participant::Agent(_) => None,
                })
            })
            .collect();
        visitors.sort_by_key(|v| (v.workspace_id, v.contact_id, v.visitor_id));
        visitors.dedup();
        visitors
    }

    /// The identities with a connection here, their handshake done or not (for membership
    /// checks).
    pub fn agents(&self) -> Vec<AgentIdentity> {
        self.agents_where(|_| true)
    }

    /// The identities with a connection here past its handshake (presence counts them).
    pub fn ready_agents(&self) -> Vec<AgentIdentity> {
        self.agents_where(|e| e.protocol.is_some())
    }

    fn agents_where(&self, include: impl Fn(&Entry) -> bool) -> Vec<AgentIdentity> {
        let mut agents: Vec<AgentIdentity> = self
            .read()
            .values()
            .flat_map(|c| {
                c.values()
                    .filter(|e| include(e))
                    .filter_map(|e| e.agent().copied())
            })
            .collect();
        agents.sort_by_key(|a| (a.workspace_id, a.agent_id, a.user_id));
        agents.dedup();
        agents
    }

    /// Whether the agent has another connection than `id` past its handshake here.
    pub fn is_connected_elsewhere(&self, agent: &AgentIdentity, id: u64) -> bool {
        self.read().get(&agent.workspace_id).is_some_and(|c| {
            c.iter().any(|(other, e)| {
                *other != id
                    && e.protocol.is_some()
                    && e.agent().is_some_and(|a| a.agent_id == agent.agent_id)
            })
        })
    }

    /// The workspace's agents with a connection on this replica.
    pub fn connected_agents(&self, workspace_id: Uuid) -> HashSet<Uuid> {
        self.read()
            .get(&workspace_id)
            .map(|c| {
                c.values()
                    .filter(|e| e.protocol.is_some())
                    .filter_map(|e| Some(e.agent()?.agent_id))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether the agent has a connection past its handshake on this replica.
    pub fn is_connected(&self, workspace_id: Uuid, agent_id: Uuid) -> bool {
        self.read().get(&workspace_id).is_some_and(|c| {
            c.values()
                .any(|e| e.protocol.is_some() && e.agent().is_some_and(|a| a.agent_id == agent_id))
        })
    }

    /// Whether any connection of the workspace is open here.
    pub fn serves(&self, workspace_id: Uuid) -> bool {
        self.read().contains_key(&workspace_id)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        self.read().values().map(HashMap::len).sum()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Connections> {
        read(&self.workspaces)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Connections> {
        write(&self.workspaces)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOMY: Limits = Limits {
        per_workspace: 1000,
        per_credential: 1000,
    };

    /// A connection past its handshake, speaking JSON.
    fn connect(registry: &Registry, who: Participant) -> Mailbox {
        let mailbox = registry.reserve(who, ROOMY).unwrap();
        assert!(registry.ready(&mailbox, Protocol::Json));
        mailbox
    }

    fn agent(workspace_id: Uuid) -> Participant {
        Participant::Agent(identity(workspace_id))
    }

    fn identity(workspace_id: Uuid) -> AgentIdentity {
        AgentIdentity {
            workspace_id,
            user_id: Uuid::new_v4(),
            agent_id: Uuid::new_v4(),
            role: Role::Agent,
            token_version: 0,
        }
    }

    #[test]
    fn an_event_reaches_its_workspace_only() {
        let registry = Registry::default();
        let (here, there) = (Uuid::new_v4(), Uuid::new_v4());
        let mut mine = connect(&registry, agent(here));
        let mut theirs = connect(&registry, agent(there));
        registry.deliver(&Event::presence_changed(here, Uuid::nil(), true));
        let Ok(Message::Text(record)) = mine.records.try_recv() else {
            panic!("a text frame");
        };
        assert!(record.as_str().contains("PresenceChanged"));
        assert!(theirs.records.try_recv().is_err());
    }

    #[test]
    fn typing_reaches_joined_connections_but_not_the_typist() {
        let registry = Registry::default();
        let workspace = Uuid::new_v4();
        let conversation = Uuid::new_v4();
        let typist = identity(workspace);
        let mut own = connect(&registry, Participant::Agent(typist));
        let mut joined = connect(&registry, agent(workspace));
        let mut elsewhere = connect(&registry, agent(workspace));
        registry.join(workspace, own.id, conversation, true);
        registry.join(workspace, joined.id, conversation, true);
        let typing = Event::agent_typing(
            workspace,
            conversation,
            true,
            (typist.user_id, typist.agent_id),
            "Ada",
        );
        registry.deliver(&typing);
        assert!(joined.records.try_recv().is_ok());
        assert!(own.records.try_recv().is_err());
        assert!(elsewhere.records.try_recv().is_err());

        registry.join(workspace, joined.id, conversation, false);
        registry.deliver(&typing);
        assert!(joined.records.try_recv().is_err(), "left");
    }

    #[test]
    fn a_full_queue_closes_the_connection_instead_of_growing() {
        let registry = Registry::default();
        let workspace = Uuid::new_v4();
        let mailbox = connect(&registry, agent(workspace));
        for _ in 0..=QUEUE {
            registry.deliver(&Event::presence_changed(workspace, Uuid::nil(), true));
        }
        let reason = mailbox.close.borrow().clone().expect("told to close");
        assert!(reason.allow_reconnect);
        assert_eq!(mailbox.records.len(), QUEUE);
    }

    #[test]
    fn the_last_connection_of_an_agent_is_reported() {
        let registry = Registry::default();
        let who = identity(Uuid::new_v4());
        let first = connect(&registry, Participant::Agent(who));
        let second = connect(&registry, Participant::Agent(who));
        assert!(registry.is_connected(who.workspace_id, who.agent_id));
        assert!(!first.release());
        assert!(second.release());
        assert!(!registry.is_connected(who.workspace_id, who.agent_id));
        assert_eq!(registry.len(), 0);
    }

    #[test]
    fn a_visitor_hears_only_events_addressed_to_them() {
        let registry = Registry::default();
        let workspace = Uuid::new_v4();
        let visitor = |contact_id| {
            Participant::Visitor(VisitorIdentity {
                workspace_id: workspace,
                contact_id,
                visitor_id: Uuid::new_v4(),
                trust: VisitorTrust::default(),
            })
        };
        let (mine, theirs) = (Uuid::new_v4(), Uuid::new_v4());
        let mut me = connect(&registry, visitor(mine));
        let mut other = connect(&registry, visitor(theirs));
        let mut team = connect(&registry, agent(workspace));
        let conversation = Uuid::new_v4();
        registry.join(workspace, me.id, conversation, true);

        registry.deliver(&Event::presence_changed(workspace, Uuid::nil(), true));
        let typing = Event::visitor_typing(workspace, conversation, true, "Carla");
        registry.deliver(&typing);
        assert!(
            me.records.try_recv().is_err(),
            "agent audiences skip visitors"
        );
        assert!(team.records.try_recv().is_ok());

        let reply = Event::presence_changed(workspace, Uuid::nil(), true).for_visitor(mine);
        registry.deliver(&reply);
        assert!(me.records.try_recv().is_ok());
        assert!(other.records.try_recv().is_err());
        assert!(
            team.records.try_recv().is_err(),
            "a visitor's event is not the team's"
        );

        assert!(!me.release(), "no presence for visitors");
        assert!(
            registry
                .agents()
                .iter()
                .all(|a| a.workspace_id == workspace)
        );
        assert_eq!(registry.agents().len(), 1);
    }

    #[test]
    fn caps_count_connections_whose_handshake_is_pending() {
        let registry = Registry::default();
        let workspace = Uuid::new_v4();
        let visitor = VisitorIdentity {
            workspace_id: workspace,
            contact_id: Uuid::new_v4(),
            visitor_id: Uuid::new_v4(),
            trust: VisitorTrust::default(),
        };
        let limits = Limits {
            per_workspace: 3,
            per_credential: 2,
        };
        let one = registry
            .reserve(Participant::Visitor(visitor), limits)
            .unwrap();
        let _two = registry
            .reserve(Participant::Visitor(visitor), limits)
            .unwrap();
        assert_eq!(
            registry
                .reserve(Participant::Visitor(visitor), limits)
                .err(),
            Some(CapReached::Credential),
            "one token's pending upgrades count"
        );
        let other = VisitorIdentity {
            visitor_id: Uuid::new_v4(),
            ..visitor
        };
        let _three = registry
            .reserve(Participant::Visitor(other), limits)
            .unwrap();
        assert_eq!(
            registry.reserve(Participant::Visitor(other), limits).err(),
            Some(CapReached::Workspace)
        );
        let _agent = registry
            .reserve(agent(workspace), limits)
            .expect("agents are counted apart from visitors");
        drop(one);
        assert!(
            registry
                .reserve(Participant::Visitor(other), limits)
                .is_ok(),
            "a connection that ends before its handshake gives its place back"
        );
    }

    #[test]
    fn a_pending_connection_hears_nothing_and_cannot_get_ready_once_told_to_close() {
        let registry = Registry::default();
        let workspace = Uuid::new_v4();
        let who = identity(workspace);
        let mut pending = registry.reserve(Participant::Agent(who), ROOMY).unwrap();
        registry.deliver(&Event::presence_changed(workspace, Uuid::nil(), true));
        assert!(pending.records.try_recv().is_err());
        assert!(
            !registry.is_connected(workspace, who.agent_id),
            "not online yet"
        );
        assert_eq!(registry.agents(), vec![who], "membership checks see it");

        let told = registry.close(
            Scope::Member {
                workspace_id: workspace,
                user_id: who.user_id,
            },
            &CloseReason::ended("gone"),
        );
        assert_eq!(told, 1);
        assert!(!registry.ready(&pending, Protocol::Json));
        assert_eq!(pending.close_reason(), Some(CloseReason::ended("gone")));
        assert!(!pending.release(), "never online, so never offline");
    }

    #[test]
    fn a_close_reaches_the_connections_of_its_scope_only() {
        let registry = Registry::default();
        let (workspace, other_workspace) = (Uuid::new_v4(), Uuid::new_v4());
        let member = identity(workspace);
        let phone = connect(&registry, Participant::Agent(member));
        let laptop = connect(&registry, Participant::Agent(member));
        let colleague = connect(&registry, agent(workspace));
        let visitor = VisitorIdentity {
            workspace_id: workspace,
            contact_id: Uuid::new_v4(),
            visitor_id: Uuid::new_v4(),
            trust: VisitorTrust::default(),
        };
        let tab = connect(&registry, Participant::Visitor(visitor));
        let elsewhere = connect(&registry, agent(other_workspace));
        let reason = CloseReason::ended("gone");
        let told = |mailbox: &Mailbox| mailbox.close_reason().is_some();

        assert_eq!(registry.close(phone.scope(), &reason), 1);
        assert!(told(&phone) && !told(&laptop));
        let whole_member = Scope::Member {
            workspace_id: workspace,
            user_id: member.user_id,
        };
        assert_eq!(registry.close(whole_member, &reason), 2);
        assert!(told(&laptop) && !told(&colleague) && !told(&tab));
        assert_eq!(registry.close(Scope::Visitor(visitor), &reason), 1);
        assert!(told(&tab) && !told(&colleague));
        assert_eq!(registry.close(Scope::Workspace(workspace), &reason), 4);
        assert!(told(&colleague) && !told(&elsewhere));
        assert_eq!(elsewhere.close_reason(), None);
    }

    #[test]
    fn each_protocol_hears_the_event_in_its_own_frames() {
        let registry = Registry::default();
        let workspace = Uuid::new_v4();
        let mut json = connect(&registry, agent(workspace));
        let mut packed = registry.reserve(agent(workspace), ROOMY).unwrap();
        assert!(registry.ready(&packed, Protocol::MessagePack));
        registry.deliver(&Event::presence_changed(workspace, Uuid::nil(), true));
        assert!(matches!(json.records.try_recv(), Ok(Message::Text(_))));
        assert!(matches!(packed.records.try_recv(), Ok(Message::Binary(_))));
    }
}
