//! From the workspace's event log to the hub: the only code that turns a recorded change into
//! SignalR events and decides who hears them. The hub (`crate::hub`) is handed [`project`] when
//! it is made: it orders and carries events without knowing what they are about, which keeps
//! the transport below the capabilities whose records these are.
//!
//! Agents hear every logged event, each payload carrying the event's `seq`, so a dashboard
//! that sees a gap knows it missed something and reads it from `GET /api/events`. A visitor
//! hears only their own conversation's replies and status, without `seq` (the workspace's
//! numbers would tell a visitor how busy the workspace is). A note has no visitor projection
//! at all: [`VisitorMessage::of`] refuses it, and it is the only way to build one.

use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::attachments::links::LinkKey;
use crate::attachments::record::link_all;
use crate::conversations::messages::Message;
use crate::conversations::ratings::Rating;
use crate::conversations::record::{Conversation, ConversationStatus};
use crate::events::catalogue::{
    AgentData, Author, ConversationChange, DomainEvent, MessageCreated, Recorded,
};
use crate::hub::events::{Audience, Event};
use crate::inbox::contacts::Contact;
use crate::tickets::comments::Comment;
use crate::tickets::record::Ticket;

// What agents hear: each logged event's resource with its `seq`. These are the types the hub
// serialises, and the OpenAPI document's `Hub*` schemas, from which the dashboard's types are
// generated: what the server sends and what the client expects cannot drift apart.

/// `MessageCreated` to agents.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HubMessageCreated {
    pub seq: i64,
    pub conversation_id: Uuid,
    pub message: HubMessage,
}

/// A message as the hub shows it: the message and its author as shown next to it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HubMessage {
    #[serde(flatten)]
    pub message: Message,
    /// Null for incoming messages.
    pub author: Option<Author>,
}

/// `ConversationCreated` and `ConversationUpdated` to agents; `change` (status, assignee,
/// priority, labels or contact) on updates only.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HubConversation {
    pub seq: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<ConversationChange>,
    #[serde(flatten)]
    pub conversation: Conversation,
}

/// `ContactCreated` and `ContactUpdated`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HubContact {
    pub seq: i64,
    #[serde(flatten)]
    pub contact: Contact,
}

/// `TicketCreated` and `TicketUpdated`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HubTicket {
    pub seq: i64,
    #[serde(flatten)]
    pub ticket: Ticket,
}

/// `TicketCommentCreated`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HubTicketComment {
    pub seq: i64,
    pub ticket_id: Uuid,
    pub comment: Comment,
}

/// `AgentUpdated`: the agent (without presence, which `PresenceChanged` tells) and what
/// changed.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HubAgent {
    pub seq: i64,
    #[serde(flatten)]
    pub agent: AgentData,
}

/// `ConversationRated`: a customer's rating of a resolution.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HubConversationRated {
    pub seq: i64,
    pub conversation_id: Uuid,
    pub contact_id: Uuid,
    pub rating: Rating,
}

/// The visitor's view of a new message: no `seq`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct VisitorMessagePayload<'a> {
    conversation_id: Uuid,
    message: VisitorMessageView<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct VisitorMessageView<'a> {
    #[serde(flatten)]
    message: &'a Message,
    author: Option<&'a Author>,
}

/// A message a visitor may see: never a note.
pub struct VisitorMessage<'a>(&'a MessageCreated);

impl<'a> VisitorMessage<'a> {
    pub fn of(message: &'a MessageCreated) -> Option<Self> {
        (!message.is_note()).then_some(Self(message))
    }

    fn event(&self, workspace_id: Uuid) -> Event {
        let m = self.0;
        let payload = VisitorMessagePayload {
            conversation_id: m.conversation_id,
            message: VisitorMessageView {
                message: &m.message,
                author: m.author.as_ref(),
            },
        };
        Event::new(
            workspace_id,
            Audience::Visitor(m.contact_id),
            "MessageCreated",
            &payload,
        )
    }
}

/// What a visitor learns of their conversation's change: its status, nothing of the inbox.
#[derive(Serialize)]
struct VisitorConversation {
    id: Uuid,
    status: ConversationStatus,
}

fn to_agents<T: Serialize>(workspace_id: Uuid, target: &str, payload: &T) -> Event {
    Event::new(workspace_id, Audience::Agents, target, payload)
}

/// The hub events of one recorded event, in the order they are to be delivered. A message's
/// files get links good for five minutes from now (`links`).
pub fn project(links: &LinkKey, workspace_id: Uuid, recorded: &Recorded) -> Vec<Event> {
    let seq = recorded.seq;
    match &recorded.event {
        DomainEvent::MessageCreated(m) => {
            let mut linked = (**m).clone();
            link_all(&mut linked.message.attachments, links, workspace_id);
            let payload = HubMessageCreated {
                seq,
                conversation_id: m.conversation_id,
                message: HubMessage {
                    message: linked.message.clone(),
                    author: m.author.clone(),
                },
            };
            let agents = to_agents(workspace_id, "MessageCreated", &payload);
            let visitor = VisitorMessage::of(&linked).map(|visible| visible.event(workspace_id));
            std::iter::once(agents).chain(visitor).collect()
        }
        DomainEvent::ConversationCreated(c) => {
            let payload = HubConversation {
                seq,
                change: None,
                conversation: (**c).clone(),
            };
            vec![to_agents(workspace_id, "ConversationCreated", &payload)]
        }
        DomainEvent::ConversationUpdated(changed) => {
            let c = &changed.conversation;
            let payload = HubConversation {
                seq,
                change: Some(changed.change),
                conversation: c.clone(),
            };
            let agents = to_agents(workspace_id, "ConversationUpdated", &payload);
            // A visitor learns of a status change, nothing of assignment or priority.
            let visitor = (changed.change == ConversationChange::Status).then(|| {
                Event::new(
                    workspace_id,
                    Audience::Visitor(c.contact.id),
                    "ConversationUpdated",
                    &VisitorConversation {
                        id: c.id,
                        status: c.status,
                    },
                )
            });
            std::iter::once(agents).chain(visitor).collect()
        }
        DomainEvent::ContactCreated(c) | DomainEvent::ContactUpdated(c) => {
            let target = if matches!(recorded.event, DomainEvent::ContactCreated(_)) {
                "ContactCreated"
            } else {
                "ContactUpdated"
            };
            let payload = HubContact {
                seq,
                contact: c.clone(),
            };
            vec![to_agents(workspace_id, target, &payload)]
        }
        DomainEvent::TicketCreated(t) | DomainEvent::TicketUpdated(t) => {
            let target = if matches!(recorded.event, DomainEvent::TicketCreated(_)) {
                "TicketCreated"
            } else {
                "TicketUpdated"
            };
            let payload = HubTicket {
                seq,
                ticket: (**t).clone(),
            };
            vec![to_agents(workspace_id, target, &payload)]
        }
        DomainEvent::TicketCommentCreated(c) => {
            let payload = HubTicketComment {
                seq,
                ticket_id: c.ticket_id,
                comment: c.comment.clone(),
            };
            vec![to_agents(workspace_id, "TicketCommentCreated", &payload)]
        }
        DomainEvent::AgentChanged(a) => {
            let payload = HubAgent {
                seq,
                agent: AgentData::from((**a).clone()),
            };
            vec![to_agents(workspace_id, "AgentUpdated", &payload)]
        }
        // The visitor who rated has the answer of their request; agents hear it.
        DomainEvent::ConversationRated(rated) => {
            let payload = HubConversationRated {
                seq,
                conversation_id: rated.conversation_id,
                contact_id: rated.contact_id,
                rating: rated.rating.clone(),
            };
            vec![to_agents(workspace_id, "ConversationRated", &payload)]
        }
    }
}

#[cfg(test)]
mod tests {
    use time::OffsetDateTime;

    use super::*;
    use crate::conversations::messages::MessageKind;
    use crate::events::catalogue::{ActorKind, EventActor};

    fn message(kind: MessageKind) -> Recorded {
        Recorded {
            id: Uuid::new_v4(),
            seq: 41,
            occurred_at: OffsetDateTime::UNIX_EPOCH,
            actor: EventActor {
                kind: ActorKind::Agent,
                id: Some(Uuid::nil()),
            },
            event: DomainEvent::MessageCreated(Box::new(MessageCreated {
                conversation_id: Uuid::max(),
                contact_id: Uuid::from_u128(7),
                message: Message {
                    id: Uuid::from_u128(9),
                    kind,
                    body: "text".into(),
                    author_agent_id: Some(Uuid::nil()),
                    created_at: OffsetDateTime::UNIX_EPOCH,
                    attachments: vec![crate::attachments::record::Attachment {
                        id: Uuid::from_u128(11),
                        name: "shot.png".into(),
                        content_type: "image/png".into(),
                        size: 10,
                        width: Some(2),
                        height: Some(1),
                        has_thumbnail: true,
                        url: None,
                        thumbnail_url: None,
                        expires_at: None,
                    }],
                    email: None,
                },
                author: Some(Author {
                    display_name: "Ada".into(),
                    avatar_url: None,
                }),
            })),
        }
    }

    fn test_key() -> LinkKey {
        let secret = supportdesk_core::config::SigningSecret::parse("k".repeat(40)).unwrap();
        LinkKey::derive(&secret)
    }

    fn payload(event: &Event) -> serde_json::Value {
        serde_json::from_str(event.payload.get()).unwrap()
    }

    #[test]
    fn no_visitor_projection_of_a_note_exists() {
        let note = message(MessageKind::Note);
        let DomainEvent::MessageCreated(created) = &note.event else {
            unreachable!()
        };
        assert!(VisitorMessage::of(created).is_none());
        let events = project(&test_key(), Uuid::nil(), &note);
        assert_eq!(events.len(), 1);
        assert!(
            events
                .iter()
                .all(|e| !matches!(e.audience, Audience::Visitor(_)))
        );
    }

    #[test]
    fn a_reply_reaches_the_agents_with_its_seq_and_the_visitor_without() {
        let events = project(&test_key(), Uuid::nil(), &message(MessageKind::Outgoing));
        let [agents, visitor] = events.as_slice() else {
            panic!("two events expected");
        };
        assert_eq!(agents.audience, Audience::Agents);
        assert_eq!(agents.target, "MessageCreated");
        let shown = payload(agents);
        assert_eq!(shown["seq"], 41);
        assert_eq!(shown["conversationId"], Uuid::max().to_string());
        assert_eq!(shown["message"]["kind"], "outgoing");
        assert_eq!(shown["message"]["author"]["displayName"], "Ada");
        assert_eq!(shown["message"]["createdAt"], "1970-01-01T00:00:00Z");
        assert_eq!(visitor.audience, Audience::Visitor(Uuid::from_u128(7)));
        let seen = payload(visitor);
        assert!(seen.get("seq").is_none());
        assert_eq!(seen["message"]["body"], "text");
        // Both hear the file with links minted as it is sent.
        for shown in [&shown, &seen] {
            let file = &shown["message"]["attachments"][0];
            assert_eq!(file["name"], "shot.png");
            let url = file["url"].as_str().unwrap();
            assert!(url.starts_with(&format!(
                "/files/{}/{}/original?",
                Uuid::nil(),
                Uuid::from_u128(11)
            )));
            assert!(
                file["thumbnailUrl"]
                    .as_str()
                    .unwrap()
                    .contains("/thumbnail?")
            );
            assert!(file["expiresAt"].is_string());
        }
    }
}
