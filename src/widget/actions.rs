//! What visitors do, once: the widget's REST routes and the hub's visitor methods both call
//! these, so both validate, limit, write and record the same way. Every statement names the
//! visitor's own contact: a visitor reaches no other conversation, and never a note. A
//! message goes through the same intake as every channel's (`conversations::intake`).

use std::time::Duration;

use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::attachments::record::link_all;
use crate::conversations::intake::{self, Destination, Target};
use crate::conversations::messages::{self, Message};
use crate::conversations::record::Channel;
use crate::conversations::record::ConversationStatus;
use crate::conversations::requests::NewMessage;
use crate::error::{Error, Result};
use crate::events::catalogue::Author;
use crate::events::log::{self, By};
use crate::hub::events::Event;
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;

use super::visitor::{Visitor, VisitorTx};

/// Messages one visitor may send.
const MESSAGES: Quota = Quota {
    limit: 20,
    window: Duration::from_secs(60),
};
/// Conversations one visitor may open.
const CONVERSATIONS: Quota = Quota {
    limit: 6,
    window: Duration::from_secs(12 * 3600),
};
/// Times one visitor may change their contact details.
pub const CONTACT_CHANGES: Quota = Quota {
    limit: 10,
    window: Duration::from_secs(3600),
};
/// The newest messages a visitor's widget loads.
const HISTORY: i64 = 200;

/// A message as a visitor sees it: theirs (`incoming`) or an agent's reply (`outgoing`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VisitorMessage {
    #[serde(flatten)]
    pub message: Message,
    /// The replying agent as shown; null for the visitor's own messages.
    pub author: Option<Author>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Posted {
    pub conversation_id: Uuid,
    pub message: VisitorMessage,
}

/// The visitor's current conversation (open, or resolved less than 7 days ago: their next
/// message reopens it), with its messages oldest first (no notes).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VisitorConversation {
    pub id: Uuid,
    pub number: i64,
    pub status: ConversationStatus,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    /// When it was resolved; null unless it is.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub resolved_at: Option<OffsetDateTime>,
    /// The visitor's rating of this resolution; null until they give one.
    pub rating: Option<VisitorRating>,
    /// The widget asks for a rating: the conversation is resolved, the workspace asks
    /// (`inbox.csatOnResolve`) and this resolution is not rated yet.
    pub ask_for_rating: bool,
    pub messages: Vec<VisitorMessage>,
}

/// A rating as the visitor gave it.
#[derive(Debug, Serialize, ToSchema)]
pub struct VisitorRating {
    /// 1 (very unhappy) to 5 (very happy).
    #[schema(minimum = 1, maximum = 5)]
    pub rating: i16,
    pub comment: Option<String>,
}

/// Counts one `what` of the visitor against `quota`; 429 over it.
pub async fn limit(state: &AppState, what: &str, visitor: &Visitor, quota: Quota) -> Result<()> {
    let key = format!(
        "widget:{what}:{}:{}",
        visitor.workspace_id, visitor.contact_id
    );
    match state.rate_limiter.check(&key, quota).await {
        Decision::Allowed => Ok(()),
        Decision::Limited { retry_after } => Err(Error::TooManyRequests { retry_after }),
    }
}

/// `GET /widget/v1/conversation`: the current conversation and its latest messages.
pub async fn conversation(
    state: &AppState,
    visitor: &Visitor,
) -> Result<Option<VisitorConversation>> {
    let mut conn = visitor.read(state).await?;
    let schema = &visitor.schema;
    let Some(current) = intake::current_conversation(&mut conn, schema, visitor.contact_id).await?
    else {
        return Ok(None);
    };
    let rating = current.rated.rating.map(|rating| VisitorRating {
        rating,
        comment: current.rated.rating_comment,
    });
    let mut conversation = VisitorConversation {
        id: current.id,
        number: current.number,
        status: current.status,
        created_at: current.created_at,
        resolved_at: current.resolved_at,
        ask_for_rating: current.status == ConversationStatus::Resolved
            && current.asks_for_rating
            && rating.is_none(),
        rating,
        messages: Vec::new(),
    };
    let rows: Vec<(Message, Option<String>, Option<String>)> = sqlx::query(schema.sql(
        "SELECT * FROM (
            SELECT m.id, m.kind, m.body, m.author_agent_id, m.created_at,
                   a.display_name, a.avatar_url
              FROM {schema}.messages m
              LEFT JOIN {schema}.agent_profiles a ON a.id = m.author_agent_id
             WHERE m.conversation_id = $1 AND m.kind <> 'note'
             ORDER BY m.created_at DESC, m.id DESC LIMIT $2) newest
          ORDER BY created_at, id",
    ))
    .bind(conversation.id)
    .bind(HISTORY)
    .try_map(|row: sqlx::postgres::PgRow| {
        use sqlx::{FromRow, Row};
        Ok((
            Message::from_row(&row)?,
            row.try_get("display_name")?,
            row.try_get("avatar_url")?,
        ))
    })
    .fetch_all(&mut *conn)
    .await?;
    conversation.messages = rows
        .into_iter()
        .map(|(message, display_name, avatar_url)| VisitorMessage {
            author: display_name.map(|display_name| Author {
                display_name,
                avatar_url,
            }),
            message,
        })
        .collect();
    let shown = conversation.messages.iter_mut().map(|m| &mut m.message);
    messages::with_attachments(&mut conn, schema, shown).await?;
    link_all(
        conversation
            .messages
            .iter_mut()
            .flat_map(|m| m.message.attachments.iter_mut()),
        &state.files.links,
        visitor.workspace_id,
    );
    Ok(Some(conversation))
}

/// `SendMessage(body)` / `POST /widget/v1/messages`: adds the visitor's message to their
/// current conversation (reopening it when it was resolved), opening one (unassigned, in the
/// inbox) when there is none.
pub async fn post(
    state: &AppState,
    visitor: &Visitor,
    body: &str,
    attachment_ids: Vec<Uuid>,
) -> Result<Posted> {
    let NewMessage {
        body,
        attachment_ids,
        ..
    } = NewMessage::with_files(body, attachment_ids)?;
    let mut tx = VisitorTx::begin(state, &visitor.schema).await?;
    // Under the contact's row lock: a verification that committed since the token was issued
    // refuses the message, and one visitor's racing first messages open one conversation.
    let contact = tx.lock_contact(visitor).await?;
    let (conn, schema) = tx.parts();
    let taken = intake::intake(
        conn,
        schema,
        contact,
        Channel::Chat,
        Target::CurrentOrNew,
        &body,
        &attachment_ids,
        async |destination| {
            // The conversation limit first: a message refused for it does not count as sent.
            if destination == Destination::New {
                limit(state, "conversations", visitor, CONVERSATIONS).await?;
            }
            limit(state, "messages", visitor, MESSAGES).await
        },
    )
    .await?;
    let recorded = log::append(
        conn,
        schema,
        By::Visitor(visitor.contact_id),
        taken.events(),
    )
    .await?;
    tx.commit().await?;
    state.events.committed(visitor.workspace_id, recorded);
    let mut message = taken.message.message;
    link_all(
        &mut message.attachments,
        &state.files.links,
        visitor.workspace_id,
    );
    Ok(Posted {
        conversation_id: taken.conversation_id,
        message: VisitorMessage {
            message,
            author: None,
        },
    })
}

/// `Typing(isTyping)`: to the agents who joined the visitor's current conversation; nothing
/// when they have none yet.
pub async fn typing(state: &AppState, visitor: &Visitor, is_typing: bool) -> Result<()> {
    let mut conn = visitor.read(state).await?;
    let open = intake::current_conversation(&mut conn, &visitor.schema, visitor.contact_id).await?;
    if let Some(open) = open {
        state.hub.emit(Event::visitor_typing(
            visitor.workspace_id,
            open.id,
            is_typing,
            open.contact_name.as_deref().unwrap_or("Visitor"),
        ));
    }
    Ok(())
}
