//! What the hub tells clients, and who hears it.
//!
//! An event belongs to one workspace and is delivered only to connections of that workspace:
//! the workspace id is part of the event, not a filter a caller may forget. Its payload is
//! serialised once, where it is raised; each replica turns it into one protocol record and
//! hands the same bytes to every connection in its audience.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use time::OffsetDateTime;
use uuid::Uuid;

/// Which connections of the workspace hear an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "to", content = "id", rename_all = "camelCase")]
pub enum Audience {
    /// Every agent connection of the workspace.
    Agents,
    /// Agent connections that joined the conversation (`JoinConversation`).
    Joined(Uuid),
    /// The widget connections of one visitor (the contact id): never agents.
    Visitor(Uuid),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    pub workspace_id: Uuid,
    pub audience: Audience,
    /// Connections of this account do not hear it (an agent's own typing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub except_user: Option<Uuid>,
    /// The client method called: `MessageCreated`, `ConversationUpdated`, ...
    pub target: String,
    pub payload: Box<RawValue>,
}

/// Who wrote a message, as shown next to it.
#[derive(Debug, Clone, Serialize, Deserialize, sqlx::FromRow, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Author {
    pub display_name: String,
    pub avatar_url: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessagePayload<'a, M> {
    conversation_id: Uuid,
    message: MessageView<'a, M>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageView<'a, M> {
    #[serde(flatten)]
    message: &'a M,
    author: Option<&'a Author>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TypingPayload<'a> {
    conversation_id: Uuid,
    is_typing: bool,
    by: &'static str,
    agent_id: Option<Uuid>,
    display_name: &'a str,
}

/// What a visitor learns of a conversation's change: its status, nothing of the inbox.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct VisitorConversationPayload<T> {
    id: Uuid,
    status: T,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PresencePayload {
    agent_id: Uuid,
    presence: &'static str,
}

fn raw<T: Serialize>(payload: &T) -> Box<RawValue> {
    // Plain data (ids, strings, timestamps) always serialises.
    serde_json::value::to_raw_value(payload).unwrap_or_default()
}

impl Event {
    fn new<T: Serialize>(
        workspace_id: Uuid,
        audience: Audience,
        target: &str,
        payload: &T,
    ) -> Self {
        Self {
            workspace_id,
            audience,
            except_user: None,
            target: target.to_owned(),
            payload: raw(payload),
        }
    }

    /// The same event for one visitor's widget instead (only what a visitor may see: the
    /// caller never passes a note here).
    #[must_use]
    pub fn for_visitor(mut self, contact_id: Uuid) -> Self {
        self.audience = Audience::Visitor(contact_id);
        self.except_user = None;
        self
    }

    /// A conversation's status changed, as its visitor's widget hears it.
    pub fn visitor_conversation_updated(
        workspace_id: Uuid,
        contact_id: Uuid,
        conversation_id: Uuid,
        status: &impl Serialize,
    ) -> Self {
        let payload = VisitorConversationPayload {
            id: conversation_id,
            status,
        };
        Self::new(
            workspace_id,
            Audience::Visitor(contact_id),
            "ConversationUpdated",
            &payload,
        )
    }

    /// A visitor started or stopped typing: to the agents who joined the conversation.
    pub fn visitor_typing(
        workspace_id: Uuid,
        conversation_id: Uuid,
        is_typing: bool,
        display_name: &str,
    ) -> Self {
        let payload = TypingPayload {
            conversation_id,
            is_typing,
            by: "visitor",
            agent_id: None,
            display_name,
        };
        Self::new(
            workspace_id,
            Audience::Joined(conversation_id),
            "Typing",
            &payload,
        )
    }

    /// A message or note (the Message record) was added to a conversation.
    pub fn message_created(
        workspace_id: Uuid,
        conversation_id: Uuid,
        message: &impl Serialize,
        author: Option<&Author>,
    ) -> Self {
        let payload = MessagePayload {
            conversation_id,
            message: MessageView { message, author },
        };
        Self::new(workspace_id, Audience::Agents, "MessageCreated", &payload)
    }

    /// A conversation (the Conversation record) was started.
    pub fn conversation_created(workspace_id: Uuid, conversation: &impl Serialize) -> Self {
        Self::new(
            workspace_id,
            Audience::Agents,
            "ConversationCreated",
            conversation,
        )
    }

    /// A conversation's assignee, status or priority changed.
    pub fn conversation_updated(workspace_id: Uuid, conversation: &impl Serialize) -> Self {
        Self::new(
            workspace_id,
            Audience::Agents,
            "ConversationUpdated",
            conversation,
        )
    }

    /// An agent started or stopped typing in a conversation: to the agents who joined it,
    /// not to the typist's own connections.
    pub fn agent_typing(
        workspace_id: Uuid,
        conversation_id: Uuid,
        is_typing: bool,
        (user_id, agent_id): (Uuid, Uuid),
        display_name: &str,
    ) -> Self {
        let payload = TypingPayload {
            conversation_id,
            is_typing,
            by: "agent",
            agent_id: Some(agent_id),
            display_name,
        };
        let mut event = Self::new(
            workspace_id,
            Audience::Joined(conversation_id),
            "Typing",
            &payload,
        );
        event.except_user = Some(user_id);
        event
    }

    pub fn presence_changed(workspace_id: Uuid, agent_id: Uuid, online: bool) -> Self {
        let payload = PresencePayload {
            agent_id,
            presence: if online { "online" } else { "offline" },
        };
        Self::new(workspace_id, Audience::Agents, "PresenceChanged", &payload)
    }
}

/// An event as it crosses the backplane: which replica raised it and when, for the lag
/// metric and so the raising replica does not deliver it twice.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Envelope {
    pub origin: Uuid,
    #[serde(with = "time::serde::timestamp::microseconds")]
    pub sent_at: OffsetDateTime,
    pub event: Event,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_event_carries_the_documented_fields() {
        let message = serde_json::json!({
            "id": Uuid::nil(),
            "kind": "note",
            "body": "internal",
            "authorAgentId": Uuid::nil(),
            "createdAt": "1970-01-01T00:00:00Z",
        });
        let author = Author {
            display_name: "Ada".into(),
            avatar_url: None,
        };
        let event = Event::message_created(Uuid::nil(), Uuid::max(), &message, Some(&author));
        let payload: serde_json::Value = serde_json::from_str(event.payload.get()).unwrap();
        assert_eq!(payload["conversationId"], Uuid::max().to_string());
        assert_eq!(payload["message"]["kind"], "note");
        assert_eq!(payload["message"]["authorAgentId"], Uuid::nil().to_string());
        assert_eq!(payload["message"]["author"]["displayName"], "Ada");
        assert_eq!(
            payload["message"]["author"]["avatarUrl"],
            serde_json::Value::Null
        );
        assert_eq!(payload["message"]["createdAt"], "1970-01-01T00:00:00Z");
        assert_eq!(event.target, "MessageCreated");
        assert_eq!(event.audience, Audience::Agents);
    }

    #[test]
    fn an_envelope_survives_the_backplane() {
        let event = Event::agent_typing(
            Uuid::nil(),
            Uuid::max(),
            true,
            (Uuid::max(), Uuid::nil()),
            "Ada",
        );
        let envelope = Envelope {
            origin: Uuid::nil(),
            sent_at: OffsetDateTime::UNIX_EPOCH,
            event,
        };
        let wire = serde_json::to_string(&envelope).unwrap();
        let back: Envelope = serde_json::from_str(&wire).unwrap();
        assert_eq!(back.event.audience, Audience::Joined(Uuid::max()));
        assert_eq!(back.event.except_user, Some(Uuid::max()));
        assert_eq!(back.event.payload.get(), envelope.event.payload.get());
    }
}
