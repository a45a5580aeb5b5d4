//! From the workspace's event log to the hub: the only code that turns a recorded change into
//! SignalR events and decides who hears them.
//!
//! Agents hear every logged event, each payload carrying the event's `seq`, so a dashboard
//! that sees a gap knows it missed something and reads it from `GET /api/events`. A visitor
//! hears only their own conversation's replies and status, without `seq` (the workspace's
//! numbers would tell a visitor how busy the workspace is). A note has no visitor projection
//! at all: [`VisitorMessage::of`] refuses it, and it is the only way to build one.

use serde::Serialize;
use uuid::Uuid;

use super::events::{Audience, Event};
use crate::conversations::messages::Message;
use crate::conversations::record::ConversationStatus;
use crate::events::catalogue::{Author, ConversationChange, DomainEvent, MessageCreated, Recorded};

/// A payload with the event's seq beside its fields.
#[derive(Serialize)]
struct Sequenced<'a, T> {
    seq: i64,
    #[serde(flatten)]
    payload: &'a T,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessagePayload<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    seq: Option<i64>,
    conversation_id: Uuid,
    message: MessageView<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageView<'a> {
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
        let payload = MessagePayload {
            seq: None,
            conversation_id: m.conversation_id,
            message: MessageView {
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

fn to_agents<T: Serialize>(workspace_id: Uuid, target: &str, seq: i64, payload: &T) -> Event {
    Event::new(
        workspace_id,
        Audience::Agents,
        target,
        &Sequenced { seq, payload },
    )
}

/// The hub events of one recorded event, in the order they are to be delivered.
pub fn project(workspace_id: Uuid, recorded: &Recorded) -> Vec<Event> {
    let seq = recorded.seq;
    match &recorded.event {
        DomainEvent::MessageCreated(m) => {
            let payload = MessagePayload {
                seq: Some(seq),
                conversation_id: m.conversation_id,
                message: MessageView {
                    message: &m.message,
                    author: m.author.as_ref(),
                },
            };
            let agents = Event::new(workspace_id, Audience::Agents, "MessageCreated", &payload);
            let visitor = VisitorMessage::of(m).map(|visible| visible.event(workspace_id));
            std::iter::once(agents).chain(visitor).collect()
        }
        DomainEvent::ConversationCreated(c) => {
            vec![to_agents(workspace_id, "ConversationCreated", seq, c)]
        }
        DomainEvent::ConversationUpdated(changed) => {
            let agents = to_agents(workspace_id, "ConversationUpdated", seq, changed);
            // A visitor learns of a status change, nothing of assignment or priority.
            let c = &changed.conversation;
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
        DomainEvent::ContactCreated(c) => vec![to_agents(workspace_id, "ContactCreated", seq, c)],
        DomainEvent::ContactUpdated(c) => vec![to_agents(workspace_id, "ContactUpdated", seq, c)],
        DomainEvent::TicketCreated(t) => vec![to_agents(workspace_id, "TicketCreated", seq, t)],
        DomainEvent::TicketUpdated(t) => vec![to_agents(workspace_id, "TicketUpdated", seq, t)],
        DomainEvent::TicketCommentCreated(c) => {
            vec![to_agents(workspace_id, "TicketCommentCreated", seq, c)]
        }
        DomainEvent::AgentChanged(a) => vec![to_agents(workspace_id, "AgentUpdated", seq, a)],
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
                },
                author: Some(Author {
                    display_name: "Ada".into(),
                    avatar_url: None,
                }),
            })),
        }
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
        let events = project(Uuid::nil(), &note);
        assert_eq!(events.len(), 1);
        assert!(
            events
                .iter()
                .all(|e| !matches!(e.audience, Audience::Visitor(_)))
        );
    }

    #[test]
    fn a_reply_reaches_the_agents_with_its_seq_and_the_visitor_without() {
        let events = project(Uuid::nil(), &message(MessageKind::Outgoing));
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
    }
}
