//! What the hub tells clients, and who hears it.
//!
//! Events of the workspace's log become hub events in `projection`, the one place that
//! decides their audiences; typing and presence, which are not logged, are built here. An
//! event belongs to one workspace and is delivered only to connections of that workspace:
//! the workspace id is part of the event, not a filter a caller may forget. Its payload is
//! serialised once, where it is raised; each replica turns it into one protocol record and
//! hands the same bytes to every connection in its audience.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::events::catalogue::Recorded;

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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TypingPayload<'a> {
    conversation_id: Uuid,
    is_typing: bool,
    by: &'static str,
    agent_id: Option<Uuid>,
    display_name: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PresencePayload {
    agent_id: Uuid,
    presence: &'static str,
}

pub(super) fn raw<T: Serialize>(payload: &T) -> Box<RawValue> {
    // Plain data (ids, strings, timestamps) always serialises.
    serde_json::value::to_raw_value(payload).unwrap_or_default()
}

impl Event {
    pub fn new<T: Serialize>(
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

    /// The same typing event for one visitor's widget instead.
    #[must_use]
    pub fn for_visitor(mut self, contact_id: Uuid) -> Self {
        self.audience = Audience::Visitor(contact_id);
        self.except_user = None;
        self
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

/// What crosses the backplane: which replica raised it and when, for the lag metric and so
/// the raising replica does not deliver it twice.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Envelope<B = Body> {
    pub origin: Uuid,
    #[serde(with = "time::serde::timestamp::microseconds")]
    pub sent_at: OffsetDateTime,
    /// Owned when read; borrowed when written, so a replica's own events are not copied to
    /// be sent.
    pub body: B,
}

/// Adjacently tagged, so a live event's raw payload is read in place, not buffered.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", content = "content", rename_all = "camelCase")]
pub enum Body {
    /// Events of the workspace's log, as committed: each replica projects them itself.
    #[serde(rename_all = "camelCase")]
    Logged {
        workspace_id: Uuid,
        events: Vec<Recorded>,
    },
    /// Typing and presence, which are not logged.
    Live(Event),
}

#[cfg(test)]
mod tests {
    use super::*;

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
            body: Body::Live(event),
        };
        let wire = serde_json::to_string(&envelope).unwrap();
        let back: Envelope = serde_json::from_str(&wire).unwrap();
        let (Body::Live(back), Body::Live(sent)) = (back.body, envelope.body) else {
            panic!("not a live event");
        };
        assert_eq!(back.audience, Audience::Joined(Uuid::max()));
        assert_eq!(back.except_user, Some(Uuid::max()));
        assert_eq!(back.payload.get(), sent.payload.get());
        // The worker's webhook deliveries read the workspace of logged batches only.
        assert_eq!(supportdesk_core::pubsub::logged_workspace(&wire), None);
    }

    #[test]
    fn the_worker_reads_the_workspace_of_a_logged_batch() {
        let workspace_id = Uuid::now_v7();
        let envelope = Envelope {
            origin: Uuid::nil(),
            sent_at: OffsetDateTime::UNIX_EPOCH,
            body: Body::Logged {
                workspace_id,
                events: Vec::new(),
            },
        };
        let wire = serde_json::to_string(&envelope).unwrap();
        assert_eq!(
            supportdesk_core::pubsub::logged_workspace(&wire),
            Some(workspace_id)
        );
    }
}
