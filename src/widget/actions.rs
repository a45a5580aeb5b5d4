//! What visitors do, once: the widget's REST routes and the hub's visitor methods both call
//! these, so both validate, limit, write and announce the same way. Every statement names the
//! visitor's own contact: a visitor reaches no other conversation, and never a note.

use std::time::Duration;

use serde::Serialize;
use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::conversations::messages::{self, Message, MessageKind};
use crate::conversations::record::{self, ConversationStatus};
use crate::error::{Error, Result};
use crate::hub::events::{Author, Event};
use crate::inbox::text;
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;

use super::visitor::{Visitor, VisitorTx};

/// A visitor's message is at most this long.
pub const BODY_MAX_CHARS: usize = 10_000;
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

/// The visitor's open conversation, with its messages oldest first (no notes).
#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct VisitorConversation {
    pub id: Uuid,
    pub number: i64,
    pub status: ConversationStatus,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[sqlx(skip)]
    pub messages: Vec<VisitorMessage>,
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

/// The contact's newest conversation that is not resolved.
async fn open_conversation(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact_id: Uuid,
) -> sqlx::Result<Option<VisitorConversation>> {
    sqlx::query_as(schema.sql(
        "SELECT id, number, status, created_at FROM {schema}.conversations
          WHERE contact_id = $1 AND status <> 'resolved'
          ORDER BY created_at DESC LIMIT 1",
    ))
    .bind(contact_id)
    .fetch_optional(conn)
    .await
}

/// [`open_conversation`]'s id, locked: an agent resolving it meanwhile waits for the
/// message, or went first and the message opens a new conversation.
async fn lock_open_conversation(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact_id: Uuid,
) -> sqlx::Result<Option<Uuid>> {
    sqlx::query_scalar(schema.sql(
        "SELECT id FROM {schema}.conversations
          WHERE contact_id = $1 AND status <> 'resolved'
          ORDER BY created_at DESC LIMIT 1 FOR UPDATE",
    ))
    .bind(contact_id)
    .fetch_optional(conn)
    .await
}

/// `GET /widget/v1/conversation`: the open conversation and its latest messages.
pub async fn conversation(
    state: &AppState,
    visitor: &Visitor,
) -> Result<Option<VisitorConversation>> {
    let mut conn = visitor.read(state).await?;
    let schema = &visitor.schema;
    let Some(mut conversation) = open_conversation(&mut conn, schema, visitor.contact_id).await?
    else {
        return Ok(None);
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
    Ok(Some(conversation))
}

/// `SendMessage(body)` / `POST /widget/v1/messages`: adds the visitor's message to their open
/// conversation, opening one (unassigned, in the inbox) when there is none.
pub async fn post(state: &AppState, visitor: &Visitor, body: &str) -> Result<Posted> {
    let body = text::required(body, BODY_MAX_CHARS).map_err(|e| Error::invalid_field("body", e))?;
    let mut tx = VisitorTx::begin(state, &visitor.schema).await?;
    // The contact's row lock makes one visitor's racing first messages open one conversation.
    tx.lock_contact(visitor).await?;
    let (conn, schema) = tx.parts();
    let open = lock_open_conversation(&mut *conn, schema, visitor.contact_id).await?;
    // The conversation limit first: a message refused for it does not count as sent.
    if open.is_none() {
        limit(state, "conversations", visitor, CONVERSATIONS).await?;
    }
    limit(state, "messages", visitor, MESSAGES).await?;
    let (conversation_id, created) = match open {
        Some(id) => (id, false),
        None => {
            let id = record::insert(&mut *conn, schema, visitor.contact_id, None, None).await?;
            (id, true)
        }
    };
    let added = messages::add(
        &mut *conn,
        schema,
        conversation_id,
        MessageKind::Incoming,
        &body,
        None,
    )
    .await?
    .ok_or_else(|| Error::Internal(anyhow::anyhow!("conversation {conversation_id} vanished")))?;
    let new_conversation = if created {
        record::find(conn, schema, conversation_id).await?
    } else {
        None
    };
    tx.commit().await?;

    if let Some(conversation) = new_conversation {
        state.hub.emit(Event::conversation_created(
            visitor.workspace_id,
            &conversation,
        ));
    }
    let event = Event::message_created(visitor.workspace_id, conversation_id, &added.message, None);
    state
        .hub
        .emit(event.clone().for_visitor(visitor.contact_id));
    state.hub.emit(event);
    Ok(Posted {
        conversation_id,
        message: VisitorMessage {
            message: added.message,
            author: None,
        },
    })
}

/// `Typing(isTyping)`: to the agents who joined the visitor's open conversation; nothing
/// when none is open yet.
pub async fn typing(state: &AppState, visitor: &Visitor, is_typing: bool) -> Result<()> {
    let mut conn = visitor.read(state).await?;
    let open: Option<(Uuid, Option<String>)> = sqlx::query_as(visitor.schema.sql(
        "SELECT c.id, ct.name FROM {schema}.conversations c
           JOIN {schema}.contacts ct ON ct.id = c.contact_id
          WHERE c.contact_id = $1 AND c.status <> 'resolved'
          ORDER BY c.created_at DESC LIMIT 1",
    ))
    .bind(visitor.contact_id)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some((conversation_id, name)) = open {
        state.hub.emit(Event::visitor_typing(
            visitor.workspace_id,
            conversation_id,
            is_typing,
            name.as_deref().unwrap_or("Visitor"),
        ));
    }
    Ok(())
}
