//! What the event log records: one [`DomainEvent`] per change, with the resource as the REST
//! API shows it, and who made it. The names (`type`) are the same in the log, the events API,
//! webhooks and reports; the hub keeps its own method names (`chat::projection`).

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::agents::record::{Agent, AgentStatus, Presence};
use crate::authz::Role;
use crate::conversations::messages::{Message, MessageKind};
use crate::conversations::ratings::Rating;
use crate::conversations::record::Conversation;
use crate::inbox::contacts::Contact;
use crate::tickets::comments::Comment;
use crate::tickets::record::Ticket;

/// A change, as the log keeps it and every subscriber reads it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", content = "data")]
pub enum DomainEvent {
    #[serde(rename = "conversation.created")]
    ConversationCreated(Box<Conversation>),
    /// Its status, assignee, priority, labels or contact changed.
    #[serde(rename = "conversation.updated")]
    ConversationUpdated(Box<ConversationChanged>),
    /// An incoming message, an outgoing reply or a private note (`kind` tells).
    #[serde(rename = "message.created")]
    MessageCreated(Box<MessageCreated>),
    #[serde(rename = "contact.created")]
    ContactCreated(Contact),
    #[serde(rename = "contact.updated")]
    ContactUpdated(Contact),
    #[serde(rename = "ticket.created")]
    TicketCreated(Box<Ticket>),
    #[serde(rename = "ticket.updated")]
    TicketUpdated(Box<Ticket>),
    #[serde(rename = "ticket_comment.created")]
    TicketCommentCreated(Box<TicketCommentCreated>),
    /// An agent joined, changed role or profile, was deactivated or reactivated.
    #[serde(rename = "agent.updated")]
    AgentChanged(Box<AgentChanged>),
    /// A customer rated a resolution of their conversation.
    #[serde(rename = "conversation.rated")]
    ConversationRated(Box<ConversationRated>),
}

impl DomainEvent {
    /// The conversation whose activity lines show this event (assigned, resolved, a ticket
    /// made from it). Messages are not activity: the conversation's messages are their record.
    pub fn activity_of(&self) -> Option<Uuid> {
        match self {
            Self::ConversationCreated(conversation) => Some(conversation.id),
            Self::ConversationUpdated(changed) => Some(changed.conversation.id),
            Self::TicketCreated(ticket) => ticket.conversation_id,
            Self::ConversationRated(rated) => Some(rated.conversation_id),
            _ => None,
        }
    }

    /// The events of conversations changed the same way by one statement (`change`), then
    /// of the tickets changed with them: an agent's work released, a visitor's handed over.
    pub fn moved(
        change: ConversationChange,
        conversations: Vec<Conversation>,
        tickets: Vec<Ticket>,
    ) -> Vec<Self> {
        conversations
            .into_iter()
            .map(|conversation| {
                Self::ConversationUpdated(Box::new(ConversationChanged {
                    change,
                    conversation,
                }))
            })
            .chain(
                tickets
                    .into_iter()
                    .map(|t| Self::TicketUpdated(Box::new(t))),
            )
            .collect()
    }

    /// What an upsert of a contact by email changed, if anything.
    pub fn contact_upserted(upserted: &crate::inbox::contacts::Upserted) -> Option<Self> {
        if upserted.created {
            Some(Self::ContactCreated(upserted.contact.clone()))
        } else if upserted.named {
            Some(Self::ContactUpdated(upserted.contact.clone()))
        } else {
            None
        }
    }

    /// Every `type` the log records, for the events API's documentation and clients'
    /// filters.
    pub const TYPES: [&'static str; 10] = [
        "conversation.created",
        "conversation.updated",
        "message.created",
        "contact.created",
        "contact.updated",
        "ticket.created",
        "ticket.updated",
        "ticket_comment.created",
        "agent.updated",
        "conversation.rated",
    ];

    /// The conversation this event is about, if any: the hub keeps one conversation's events
    /// in order for the agents who joined it.
    pub fn conversation_id(&self) -> Option<Uuid> {
        match self {
            Self::ConversationCreated(c) => Some(c.id),
            Self::ConversationUpdated(c) => Some(c.conversation.id),
            Self::MessageCreated(m) => Some(m.conversation_id),
            Self::ConversationRated(rated) => Some(rated.conversation_id),
            _ => None,
        }
    }
}

/// `conversation.updated`: the conversation as `GET /api/conversations/{id}` shows it, and
/// what changed.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConversationChanged {
    pub change: ConversationChange,
    #[serde(flatten)]
    pub conversation: Conversation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ConversationChange {
    Status,
    Assignee,
    Priority,
    /// Its labels (`PUT /api/conversations/{id}/labels`).
    Labels,
    /// Its contact: an anonymous visitor signed in mid-chat and took the conversation to
    /// the contact of their identity.
    Contact,
}

/// `message.created`: the message as `GET /api/conversations/{id}/messages` shows it, with
/// its conversation, the conversation's contact and the author as shown next to it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageCreated {
    pub conversation_id: Uuid,
    pub contact_id: Uuid,
    #[serde(flatten)]
    pub message: Message,
    /// The agent as shown next to a reply or note; null for incoming messages.
    pub author: Option<Author>,
}

impl MessageCreated {
    pub fn is_note(&self) -> bool {
        self.message.kind == MessageKind::Note
    }
}

/// Who wrote a message, as shown next to it.
#[derive(Debug, Clone, Serialize, Deserialize, sqlx::FromRow, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Author {
    pub display_name: String,
    pub avatar_url: Option<String>,
}

/// `conversation.rated`: the rating as the conversation's `ratings` list shows it, with its
/// conversation and the conversation's contact.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConversationRated {
    pub conversation_id: Uuid,
    pub contact_id: Uuid,
    pub rating: Rating,
}

/// `ticket_comment.created`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketCommentCreated {
    pub ticket_id: Uuid,
    pub comment: Comment,
}

/// `agent.updated`: the agent as `GET /api/agents/{id}` shows it, without presence (which
/// is not logged), and what changed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(from = "AgentData", into = "AgentData")]
pub struct AgentChanged {
    pub change: AgentChange,
    pub agent: Agent,
}

/// How [`AgentChanged`] is shown.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentData {
    change: AgentChange,
    id: Uuid,
    user_id: Uuid,
    email: String,
    full_name: String,
    display_name: String,
    avatar_url: Option<String>,
    role: Role,
    status: AgentStatus,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    joined_at: OffsetDateTime,
}

impl From<AgentChanged> for AgentData {
    fn from(AgentChanged { change, agent }: AgentChanged) -> Self {
        Self {
            change,
            id: agent.id,
            user_id: agent.user_id,
            email: agent.email,
            full_name: agent.full_name,
            display_name: agent.display_name,
            avatar_url: agent.avatar_url,
            role: agent.role,
            status: agent.status,
            joined_at: agent.joined_at,
        }
    }
}

impl From<AgentData> for AgentChanged {
    fn from(data: AgentData) -> Self {
        Self {
            change: data.change,
            agent: Agent {
                id: data.id,
                user_id: data.user_id,
                email: data.email,
                full_name: data.full_name,
                display_name: data.display_name,
                avatar_url: data.avatar_url,
                role: data.role,
                status: data.status,
                presence: Presence::default(),
                joined_at: data.joined_at,
            },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum AgentChange {
    Joined,
    Role,
    Profile,
    Deactivated,
    Reactivated,
}

/// Who made a change, as the log shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct EventActor {
    pub kind: ActorKind,
    /// The agent's id, the visitor's contact id or the API key's id; null for the system and
    /// operators.
    pub id: Option<Uuid>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "camelCase")]
#[sqlx(type_name = "text", rename_all = "camelCase")]
pub enum ActorKind {
    Agent,
    Visitor,
    ApiKey,
    Operator,
    System,
}

/// An event as committed: its place in the workspace's log.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recorded {
    pub id: Uuid,
    /// Strictly increasing per workspace, without gaps.
    pub seq: i64,
    #[serde(with = "time::serde::rfc3339")]
    pub occurred_at: OffsetDateTime,
    pub actor: EventActor,
    #[serde(flatten)]
    pub event: DomainEvent,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::contacts::Contact;

    fn contact() -> Contact {
        Contact {
            id: Uuid::nil(),
            name: Some("Carla".into()),
            email: None,
            claimed_email: Some("carla@example.org".into()),
            external_id: None,
            labels: None,
        }
    }

    #[test]
    fn a_recorded_event_reads_as_the_events_api_shows_it() {
        let recorded = Recorded {
            id: Uuid::max(),
            seq: 7,
            occurred_at: OffsetDateTime::UNIX_EPOCH,
            actor: EventActor {
                kind: ActorKind::ApiKey,
                id: Some(Uuid::nil()),
            },
            event: DomainEvent::ContactUpdated(contact()),
        };
        let json = serde_json::to_value(&recorded).unwrap();
        assert_eq!(json["type"], "contact.updated");
        assert_eq!(json["seq"], 7);
        assert_eq!(json["occurredAt"], "1970-01-01T00:00:00Z");
        assert_eq!(json["actor"]["kind"], "apiKey");
        assert_eq!(json["data"]["claimedEmail"], "carla@example.org");
        let back: Recorded = serde_json::from_value(json).unwrap();
        assert!(
            matches!(back.event, DomainEvent::ContactUpdated(c) if c.name.as_deref() == Some("Carla"))
        );
    }

    #[test]
    fn every_type_is_listed_once() {
        let mut types = DomainEvent::TYPES.to_vec();
        types.sort_unstable();
        types.dedup();
        assert_eq!(types.len(), DomainEvent::TYPES.len());
        let event = DomainEvent::ContactCreated(contact());
        let json = serde_json::to_value(&event).unwrap();
        assert!(DomainEvent::TYPES.contains(&json["type"].as_str().unwrap()));
    }

    #[test]
    fn a_message_reads_back_from_the_databases_json() {
        // The reply path builds this object in SQL: PostgreSQL writes timestamps with an
        // offset, which reads back as the same instant.
        let data = serde_json::json!({
            "type": "message.created",
            "data": {
                "conversationId": Uuid::nil(), "contactId": Uuid::nil(), "id": Uuid::max(),
                "kind": "note", "body": "internal", "authorAgentId": Uuid::nil(),
                "createdAt": "2026-11-26T18:43:57.12345+00:00",
                "author": {"displayName": "Ada", "avatarUrl": null}
            }
        });
        let event: DomainEvent = serde_json::from_value(data).unwrap();
        let DomainEvent::MessageCreated(message) = &event else {
            panic!("not a message");
        };
        assert!(message.is_note());
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(json["data"]["createdAt"], "2026-11-26T18:43:57.12345Z");
    }
}
