//! Customer intake, once for every channel: a contact writes in, and their message lands in
//! their current conversation (reopening it when it was resolved less than 7 days ago), or
//! opens one (unassigned, in the inbox) when they have none. The widget and the email channel
//! call it.
//!
//! Two first messages of one contact racing each other must open one conversation, and an
//! agent resolving the conversation meanwhile must either wait for the message or have it
//! open a new one. So intake needs the contact's row lock ([`LockedContact`], which only a
//! locking statement makes: a channel checks what it must under that lock, as the widget
//! checks its visitor's trust) and locks the open conversation it writes to.

use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use uuid::Uuid;

use super::messages::{self, MessageKind};
use super::ratings;
use super::record::{self, Change, Channel, Conversation, ConversationStatus, Reader};
use crate::attachments::record as attachments;
use crate::error::{Error, Result};
use crate::events::catalogue::{
    ConversationChange, ConversationChanged, DomainEvent, MessageCreated,
};
use crate::notifications;

/// A contact whose row this transaction has locked.
#[derive(Debug, Clone, Copy)]
pub struct LockedContact(Uuid);

impl LockedContact {
    /// Locks contact `id`; `None` when there is no such contact.
    pub async fn lock(
        conn: &mut PgConnection,
        schema: &TenantSchema,
        id: Uuid,
    ) -> sqlx::Result<Option<Self>> {
        let found: Option<Uuid> = sqlx::query_scalar(
            schema.sql("SELECT id FROM {schema}.contacts WHERE id = $1 FOR UPDATE"),
        )
        .bind(id)
        .fetch_optional(conn)
        .await?;
        Ok(found.map(Self))
    }

    /// For a statement that already took the lock (`SELECT ... FOR UPDATE` on the contact).
    pub fn locked_by_caller(id: Uuid) -> Self {
        Self(id)
    }

    pub fn id(self) -> Uuid {
        self.0
    }
}

/// Which conversation of a contact is their current one, where their next chat message goes:
/// the newest one not resolved, else the newest one resolved less than [`REOPEN_WITHIN`] ago
/// (`$2`), which that message reopens. The one definition every reader and intake uses.
const CURRENT_OF_CONTACT: &str = "c.contact_id = $1
                                  AND (c.status <> 'resolved' OR c.resolved_at > now() - $2::interval)
                                ORDER BY c.status = 'resolved', c.created_at DESC LIMIT 1";

/// The contact's current conversation, as a visitor's widget shows it.
#[derive(Debug, sqlx::FromRow)]
pub struct CurrentConversation {
    pub id: Uuid,
    pub number: i64,
    pub status: ConversationStatus,
    pub created_at: OffsetDateTime,
    /// When it was resolved, if it is.
    pub resolved_at: Option<OffsetDateTime>,
    /// The contact's name, as typing shows it.
    pub contact_name: Option<String>,
    /// Whether the workspace asks customers to rate a resolution (`inbox.csatOnResolve`).
    pub asks_for_rating: bool,
    /// The customer's rating of its current resolution, if they gave one.
    #[sqlx(flatten)]
    pub rated: RatedResolution,
}

/// The rating of a conversation's current resolution.
#[derive(Debug, sqlx::FromRow)]
pub struct RatedResolution {
    pub rating: Option<i16>,
    pub rating_comment: Option<String>,
}

/// The contact's current conversation, if any.
pub async fn current_conversation(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact_id: Uuid,
) -> sqlx::Result<Option<CurrentConversation>> {
    sqlx::query_as(schema.sql(&format!(
        "SELECT c.id, c.number, c.status, c.created_at, c.resolved_at, ct.name AS contact_name,
                {asks} AS asks_for_rating, rt.rating, rt.comment AS rating_comment
           FROM {{schema}}.conversations c
           JOIN {{schema}}.contacts ct ON ct.id = c.contact_id
          CROSS JOIN {{schema}}.settings s
           LEFT JOIN {{schema}}.conversation_ratings rt
                  ON rt.conversation_id = c.id AND rt.resolved_at = c.resolved_at
          WHERE {CURRENT_OF_CONTACT}",
        asks = ratings::ASKS,
    )))
    .bind(contact_id)
    .bind(REOPEN_WITHIN)
    .fetch_optional(conn)
    .await
}

/// The contact's current conversation, locked, for a rating: its id, when it was resolved
/// (if it is), and whether the workspace asks for ratings.
pub async fn lock_current_for_rating(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact: LockedContact,
) -> sqlx::Result<Option<ratings::Rateable>> {
    sqlx::query_as(schema.sql(&format!(
        "SELECT c.id AS conversation_id, c.resolved_at, {asks} AS asks
           FROM {{schema}}.conversations c CROSS JOIN {{schema}}.settings s
          WHERE {CURRENT_OF_CONTACT} FOR UPDATE OF c",
        asks = ratings::ASKS,
    )))
    .bind(contact.id())
    .bind(REOPEN_WITHIN)
    .fetch_optional(conn)
    .await
}

/// Whether intake opens a conversation: channels limit the two differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Destination {
    Open(Uuid),
    New,
}

/// What intake wrote.
#[derive(Debug)]
pub struct Intake {
    pub conversation_id: Uuid,
    /// The conversation it opened, if it opened one.
    pub opened: Option<Conversation>,
    /// The resolved conversation it reopened, if it reopened one.
    pub reopened: Option<Conversation>,
    pub message: MessageCreated,
}

impl Intake {
    /// The events intake's writes are recorded as, in order.
    pub fn events(&self) -> Vec<DomainEvent> {
        let opened = self
            .opened
            .clone()
            .map(|c| DomainEvent::ConversationCreated(Box::new(c)));
        let reopened = self.reopened.clone().map(|conversation| {
            DomainEvent::ConversationUpdated(Box::new(ConversationChanged {
                change: ConversationChange::Status,
                conversation,
            }))
        });
        opened
            .into_iter()
            .chain(reopened)
            .chain([DomainEvent::MessageCreated(Box::new(self.message.clone()))])
            .collect()
    }
}

/// Where a contact's message goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'a> {
    /// Their current conversation (reopened when it was resolved), or a new one when they
    /// have none (the widget: one conversation at a time).
    CurrentOrNew,
    /// Always a new conversation (a new email thread), with this subject.
    New { subject: Option<&'a str> },
    /// This conversation (an email reply found its thread): reopened when it was resolved
    /// less than [`REOPEN_WITHIN`] ago, else the message starts a new conversation with
    /// `subject`.
    Thread { id: Uuid, subject: Option<&'a str> },
}

impl Target<'_> {
    fn subject(&self) -> Option<&str> {
        match self {
            Self::CurrentOrNew => None,
            Self::New { subject } | Self::Thread { subject, .. } => *subject,
        }
    }
}

/// How long after its resolution a customer's message reopens a conversation.
pub const REOPEN_WITHIN: time::Duration = time::Duration::days(7);

/// Adds `body` from the contact to the conversation `target` names, opening one (of
/// `channel`) when it names none. `admit` sees where it will go first and may refuse (a rate
/// limit): then nothing is written.
#[allow(clippy::too_many_arguments)]
pub async fn intake(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact: LockedContact,
    channel: Channel,
    target: Target<'_>,
    body: &str,
    attachment_ids: &[Uuid],
    admit: impl AsyncFnOnce(Destination) -> Result<()>,
) -> Result<Intake> {
    // (the conversation, whether it is resolved, whether resolved recently enough to reopen)
    let found: Option<(Uuid, bool, bool)> = match target {
        Target::CurrentOrNew => {
            sqlx::query_as(schema.sql(&format!(
                "SELECT c.id, c.status = 'resolved', true FROM {{schema}}.conversations c
                  WHERE {CURRENT_OF_CONTACT} FOR UPDATE"
            )))
            .bind(contact.id())
            .bind(REOPEN_WITHIN)
            .fetch_optional(&mut *conn)
            .await?
        }
        Target::New { .. } => None,
        Target::Thread { id, .. } => {
            sqlx::query_as(schema.sql(
                "SELECT id, status = 'resolved', (resolved_at > now() - $2::interval) IS TRUE
                   FROM {schema}.conversations WHERE id = $1 FOR UPDATE",
            ))
            .bind(id)
            .bind(REOPEN_WITHIN)
            .fetch_optional(&mut *conn)
            .await?
        }
    };
    let (destination, reopen) = match found {
        Some((id, false, _)) => (Destination::Open(id), false),
        Some((id, true, true)) => (Destination::Open(id), true),
        Some((_, true, false)) | None => (Destination::New, false),
    };
    admit(destination).await?;
    let conversation_id = match destination {
        Destination::Open(id) => id,
        Destination::New => {
            let subject = target.subject();
            record::insert(&mut *conn, schema, contact.id(), subject, None, channel).await?
        }
    };
    let reopened = if reopen {
        record::update(
            &mut *conn,
            schema,
            conversation_id,
            Change::Status(ConversationStatus::Open),
        )
        .await?
    } else {
        None
    };
    let added = messages::add(
        &mut *conn,
        schema,
        conversation_id,
        MessageKind::Incoming,
        body,
        None,
    )
    .await?
    .ok_or_else(|| Error::Internal(anyhow::anyhow!("conversation {conversation_id} vanished")))?;
    let mut added = added;
    added.message.attachments = attachments::take_for_visitor_message(
        &mut *conn,
        schema,
        contact.id(),
        conversation_id,
        added.message.id,
        attachment_ids,
    )
    .await?
    .ok_or_else(|| {
        Error::invalid_field(
            "attachmentIds",
            "names a file that is not one of your uploads waiting to be sent",
        )
    })?;
    let (message_id, opening) = (added.message.id, destination == Destination::New);
    notifications::contact_wrote(conn, schema, conversation_id, message_id, opening).await?;
    let opened = match destination {
        Destination::New => record::find(conn, schema, conversation_id, Reader(None)).await?,
        Destination::Open(_) => None,
    };
    Ok(Intake {
        conversation_id,
        opened,
        reopened,
        message: MessageCreated {
            conversation_id,
            contact_id: added.contact_id,
            message: added.message,
            author: None,
        },
    })
}
