//! The connections open on this replica, by workspace, and delivery to them.
//!
//! Delivery never waits for a client: each connection has a bounded queue, and one that is
//! full (a client that does not read) is told to close instead of being buffered for without
//! bound. The lock is held only to look entries up, never across an await.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use tokio::sync::{mpsc, watch};
use uuid::Uuid;

use supportdesk_core::role::Role;

use crate::credentials::jwt::VisitorTrust;

use super::events::{Audience, Event};
use super::protocol;

/// Records queued for one connection before it counts as a slow consumer.
pub const QUEUE: usize = 256;

/// Why the server ends a connection, as its Close message says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloseReason {
    pub error: Option<String>,
    pub allow_reconnect: bool,
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

    /// The label of the connection metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Agent(_) => "agent",
            Self::Visitor(_) => "visitor",
        }
    }
}

struct Entry {
    who: Participant,
    joined: HashSet<Uuid>,
    queue: mpsc::Sender<Arc<str>>,
    close: watch::Sender<Option<CloseReason>>,
}

impl Entry {
    /// Agents hear agent audiences, a visitor only events addressed to their own contact.
    fn hears(&self, event: &Event) -> bool {
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

    fn send(&self, record: &Arc<str>) {
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

/// What a connection's own task reads: records to write, and a reason once it must close.
pub struct Mailbox {
    pub id: u64,
    pub records: mpsc::Receiver<Arc<str>>,
    pub close: watch::Receiver<Option<CloseReason>>,
}

#[derive(Default)]
pub struct Registry {
    next_id: AtomicU64,
    workspaces: RwLock<HashMap<Uuid, HashMap<u64, Entry>>>,
}

impl Registry {
    pub fn register(&self, who: Participant) -> Mailbox {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (queue, records) = mpsc::channel(QUEUE);
        let (close, close_rx) = watch::channel(None);
        let entry = Entry {
            who,
            joined: HashSet::new(),
            queue,
            close,
        };
        self.write()
            .entry(who.workspace_id())
            .or_default()
            .insert(id, entry);
        Mailbox {
            id,
            records,
            close: close_rx,
        }
    }

    /// Removes a connection; true when it was an agent's last one on this replica.
    pub fn unregister(&self, workspace_id: Uuid, id: u64) -> bool {
        let mut workspaces = self.write();
        let Some(connections) = workspaces.get_mut(&workspace_id) else {
            return false;
        };
        let Some(gone) = connections.remove(&id) else {
            return false;
        };
        let last = gone.agent().is_some_and(|gone| {
            !connections
                .values()
                .any(|c| c.agent().is_some_and(|a| a.agent_id == gone.agent_id))
        });
        if connections.is_empty() {
            workspaces.remove(&workspace_id);
        }
        last
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
        let mut record: Option<Arc<str>> = None;
        for entry in connections.values().filter(|e| e.hears(event)) {
            let record =
                record.get_or_insert_with(|| protocol::event(&event.target, &event.payload).into());
            entry.send(record);
            metrics::counter!("hub_messages_out_total").increment(1);
        }
    }

    /// Tells the matching agent connections to close with `reason`.
    pub fn close_where(&self, matches: impl Fn(&AgentIdentity) -> bool, reason: &CloseReason) {
        for connections in self.read().values() {
            for entry in connections
                .values()
                .filter(|e| e.agent().is_some_and(&matches))
            {
                entry.close.send_replace(Some(reason.clone()));
            }
        }
    }

    /// Tells the connections of one widget visitor (their token's identity) to close.
    pub fn close_visitor(&self, visitor: &VisitorIdentity, reason: &CloseReason) {
        if let Some(connections) = self.read().get(&visitor.workspace_id) {
            for entry in connections
                .values()
                .filter(|e| matches!(&e.who, Participant::Visitor(v) if v == visitor))
            {
                entry.close.send_replace(Some(reason.clone()));
            }
        }
    }

    /// The widget visitors with a connection here.
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

    /// Tells every connection of the workspace, agents' and visitors', to close.
    pub fn close_workspace(&self, workspace_id: Uuid, reason: &CloseReason) {
        if let Some(connections) = self.read().get(&workspace_id) {
            for entry in connections.values() {
                entry.close.send_replace(Some(reason.clone()));
            }
        }
    }

    /// The identities with a connection here (for presence heartbeats and membership checks).
    pub fn agents(&self) -> Vec<AgentIdentity> {
        let mut agents: Vec<AgentIdentity> = self
            .read()
            .values()
            .flat_map(|c| c.values().filter_map(|e| e.agent().copied()))
            .collect();
        agents.sort_by_key(|a| (a.workspace_id, a.agent_id, a.user_id));
        agents.dedup();
        agents
    }

    /// Whether the agent has another connection than `id` on this replica.
    pub fn is_connected_elsewhere(&self, agent: &AgentIdentity, id: u64) -> bool {
        self.read().get(&agent.workspace_id).is_some_and(|c| {
            c.iter().any(|(other, e)| {
                *other != id && e.agent().is_some_and(|a| a.agent_id == agent.agent_id)
            })
        })
    }

    /// The workspace's agents with a connection on this replica.
    pub fn connected_agents(&self, workspace_id: Uuid) -> HashSet<Uuid> {
        self.read()
            .get(&workspace_id)
            .map(|c| {
                c.values()
                    .filter_map(|e| Some(e.agent()?.agent_id))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether the agent has a connection on this replica.
    pub fn is_connected(&self, workspace_id: Uuid, agent_id: Uuid) -> bool {
        self.read().get(&workspace_id).is_some_and(|c| {
            c.values()
                .any(|e| e.agent().is_some_and(|a| a.agent_id == agent_id))
        })
    }

    /// Connections of this visitor (contact) open on this replica.
    pub fn visitor_connections(&self, visitor: &VisitorIdentity) -> usize {
        self.read().get(&visitor.workspace_id).map_or(0, |c| {
            c.values()
                .filter(|e| {
                    matches!(&e.who, Participant::Visitor(v) if v.contact_id == visitor.contact_id)
                })
                .count()
        })
    }

    /// Connections of the workspace open on this replica, of the kind `like` holds: agents
    /// and visitors are counted apart, so visitors cannot crowd the team out.
    pub fn workspace_connections(&self, like: &Participant) -> usize {
        let same_kind = |e: &&Entry| e.agent().is_some() == like.agent().is_some();
        self.read()
            .get(&like.workspace_id())
            .map_or(0, |c| c.values().filter(same_kind).count())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        self.read().values().map(HashMap::len).sum()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<Uuid, HashMap<u64, Entry>>> {
        // A panic while holding the lock cannot leave the maps half-updated (each update is
        // one insert or remove), so a poisoned lock is still sound to use.
        self.workspaces
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<Uuid, HashMap<u64, Entry>>> {
        self.workspaces
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut mine = registry.register(agent(here));
        let mut theirs = registry.register(agent(there));
        registry.deliver(&Event::presence_changed(here, Uuid::nil(), true));
        assert!(mine.records.try_recv().unwrap().contains("PresenceChanged"));
        assert!(theirs.records.try_recv().is_err());
    }

    #[test]
    fn typing_reaches_joined_connections_but_not_the_typist() {
        let registry = Registry::default();
        let workspace = Uuid::new_v4();
        let conversation = Uuid::new_v4();
        let typist = identity(workspace);
        let mut own = registry.register(Participant::Agent(typist));
        let mut joined = registry.register(agent(workspace));
        let mut elsewhere = registry.register(agent(workspace));
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
        let mailbox = registry.register(agent(workspace));
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
        let first = registry.register(Participant::Agent(who));
        let second = registry.register(Participant::Agent(who));
        assert!(registry.is_connected(who.workspace_id, who.agent_id));
        assert!(!registry.unregister(who.workspace_id, first.id));
        assert!(registry.unregister(who.workspace_id, second.id));
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
        let mut me = registry.register(visitor(mine));
        let mut other = registry.register(visitor(theirs));
        let mut team = registry.register(agent(workspace));
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

        assert_eq!(registry.workspace_connections(&visitor(mine)), 2);
        assert_eq!(registry.workspace_connections(&agent(workspace)), 1);
        assert!(
            !registry.unregister(workspace, me.id),
            "no presence for visitors"
        );
        assert!(
            registry
                .agents()
                .iter()
                .all(|a| a.workspace_id == workspace)
        );
        assert_eq!(registry.agents().len(), 1);
    }
}
