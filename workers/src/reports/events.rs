//! The parts of logged events the reports read, as the events API shows them (the log's
//! `data` is the public resource, so these shapes are the contract, not the API's types).

use serde::Deserialize;
use time::OffsetDateTime;
use uuid::Uuid;

/// `conversation.created` and `conversation.updated`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    pub id: Uuid,
    pub status: String,
    pub assignee_id: Option<Uuid>,
    pub channel: String,
    #[serde(default)]
    pub labels: Vec<Label>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub resolved_at: Option<OffsetDateTime>,
}

impl Conversation {
    pub fn label_ids(&self) -> Vec<Uuid> {
        let mut ids: Vec<Uuid> = self.labels.iter().map(|l| l.id).collect();
        ids.sort_unstable();
        ids
    }

    /// Resolved, with the time of the resolution.
    pub fn resolution(&self) -> Option<OffsetDateTime> {
        (self.status == "resolved")
            .then_some(self.resolved_at)
            .flatten()
    }
}

#[derive(Debug, Deserialize)]
pub struct Label {
    pub id: Uuid,
}

/// `message.created`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub conversation_id: Uuid,
    pub kind: MessageKind,
    /// Null on incoming messages, and on replies no agent wrote (an API key's).
    pub author_agent_id: Option<Uuid>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageKind {
    Incoming,
    Outgoing,
    Note,
}

/// `conversation.rated` (again, with the same rating id, when a comment follows).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rated {
    pub conversation_id: Uuid,
    pub rating: Rating,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rating {
    pub id: Uuid,
    pub rating: i16,
    #[serde(with = "time::serde::rfc3339")]
    pub resolved_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// A logged event the reports fold.
#[derive(Debug)]
pub enum Folded {
    ConversationCreated(Conversation),
    ConversationUpdated(Conversation),
    MessageCreated(Message),
    ConversationRated(Rated),
    /// Contacts, tickets, agents: nothing a report counts.
    Other,
}

impl Folded {
    pub fn parse(kind: &str, data: &str) -> serde_json::Result<Self> {
        Ok(match kind {
            "conversation.created" => Self::ConversationCreated(serde_json::from_str(data)?),
            "conversation.updated" => Self::ConversationUpdated(serde_json::from_str(data)?),
            "message.created" => Self::MessageCreated(serde_json::from_str(data)?),
            "conversation.rated" => Self::ConversationRated(serde_json::from_str(data)?),
            _ => Self::Other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_updated_conversation_reads_with_its_change_beside_it() {
        let data = r##"{"change":"status","id":"0190a0b0-0000-7000-8000-000000000001",
            "number":3,"status":"resolved","assigneeId":null,"channel":"chat",
            "labels":[{"id":"0190a0b0-0000-7000-8000-000000000002","name":"x","color":"#000000"}],
            "createdAt":"2026-03-01T10:00:00Z","updatedAt":"2026-03-01T11:00:00.5Z",
            "resolvedAt":"2026-03-01T11:00:00.5Z","ratings":[]}"##;
        let Folded::ConversationUpdated(c) = Folded::parse("conversation.updated", data).unwrap()
        else {
            panic!("not an update");
        };
        assert_eq!(c.label_ids().len(), 1);
        assert_eq!(c.resolution(), c.resolved_at);
        assert!(c.resolution().is_some());
    }

    #[test]
    fn other_events_are_not_read() {
        assert!(matches!(
            Folded::parse("contact.created", "not even json").unwrap(),
            Folded::Other
        ));
    }
}
