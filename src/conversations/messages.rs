//! Messages of a conversation: incoming (from the contact), outgoing replies and private notes
//! (agents only, never shown to visitors). Every message moves the conversation's
//! `lastMessageAt`, in the same statement.

use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::attachments::record::{self as attachments, Attachment};
use crate::email_address::EmailAddress;
use crate::email_channel::details::{self as email_details, EmailDetails};
use crate::pagination::{Page, TimeKey};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum MessageKind {
    Incoming,
    Outgoing,
    Note,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub id: Uuid,
    pub kind: MessageKind,
    pub body: String,
    /// The agent who wrote a reply or note (kept after they are deactivated); null for
    /// incoming messages.
    pub author_agent_id: Option<Uuid>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    /// Its files, in upload order (empty for most messages).
    #[serde(default)]
    #[sqlx(skip)]
    pub attachments: Vec<Attachment>,
    /// The email side of a message of an email conversation; absent on every other message
    /// (so the event log's messages, written without it, read back as they were written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[sqlx(skip)]
    pub email: Option<Box<EmailDetails>>,
}

/// A message just added, with the conversation's contact (whose widget hears replies).
#[derive(Debug, sqlx::FromRow)]
pub struct Added {
    #[sqlx(flatten)]
    pub message: Message,
    pub contact_id: Uuid,
}

/// A message an agent just posted, with its author's profile and its place in the event log.
#[derive(Debug, sqlx::FromRow)]
pub struct Posted {
    #[sqlx(flatten)]
    pub added: Added,
    /// The author's agent id (the event's actor).
    pub agent_id: Uuid,
    pub author_display_name: String,
    pub author_avatar_url: Option<String>,
    pub event_seq: i64,
    pub event_occurred_at: OffsetDateTime,
    /// A reply to an unassigned conversation in a workspace whose replies assign
    /// (`settings.inbox.autoAssignOnReply`): the author should take it.
    pub claims: bool,
    /// The files the message took, without links.
    pub attachments: sqlx::types::Json<Vec<Attachment>>,
}

/// SQL writing the timestamp `column` as the REST API writes times: UTC, RFC 3339, the
/// fraction's trailing zeros dropped (none when it is zero), as `time`'s `Rfc3339` does.
pub fn rfc3339_utc(column: &str) -> String {
    format!(
        "(to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS')
          || coalesce('.' || nullif(rtrim(to_char({column} AT TIME ZONE 'UTC', 'US'), '0'), ''), '')
          || 'Z')"
    )
}

/// The recipients an agent chose for a reply by email; `None` keeps the thread's.
#[derive(Debug, Default, Clone)]
pub struct Recipients {
    pub to: Option<Vec<EmailAddress>>,
    pub cc: Option<Vec<EmailAddress>>,
}

impl Recipients {
    pub fn chosen(&self) -> bool {
        self.to.is_some() || self.cc.is_some()
    }
}

/// A reply or note of a member, as [`add_by_member`] writes it: the files must be this
/// conversation's uploads that no message took yet.
#[derive(Debug, Clone, Copy)]
pub struct MemberMessage<'a> {
    pub conversation_id: Uuid,
    pub kind: MessageKind,
    pub body: &'a str,
    pub attachment_ids: &'a [Uuid],
    /// A reply by email: the recipients the agent chose.
    pub recipients: &'a Recipients,
}

/// [`add_by_member`]'s statement, written once (it names the time format, not the tenant).
static ADD_BY_MEMBER: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "WITH a AS (SELECT id, display_name, avatar_url FROM {{schema}}.agent_profiles
                     WHERE user_id = $4),
              c AS (UPDATE {{schema}}.conversations
                       SET last_message_at = greatest(last_message_at, now()), updated_at = now()
                     WHERE id = $1 AND EXISTS (SELECT 1 FROM a)
                     RETURNING id, contact_id, assignee_id),
              m AS (INSERT INTO {{schema}}.messages (conversation_id, kind, body, author_agent_id)
                    SELECT c.id, $2, $3, a.id FROM c, a
                     WHERE cardinality($6::uuid[]) = 0
                        OR (SELECT count(*) FROM {{schema}}.attachments
                             WHERE id = ANY($6) AND conversation_id = $1
                               AND message_id IS NULL AND uploader_kind <> 'visitor')
                           = cardinality($6::uuid[])
                    RETURNING id, kind, body, author_agent_id, created_at),
              t AS (UPDATE {{schema}}.attachments f SET message_id = m.id FROM m
                     WHERE f.id = ANY($6) AND f.conversation_id = $1 AND f.message_id IS NULL
                     RETURNING f.*),
              files AS (SELECT coalesce(json_agg({attachment} ORDER BY t.created_at, t.id),
                                        '[]'::json) AS list
                          FROM t),
              h AS (UPDATE {{schema}}.event_log_head SET seq = seq + 1
                     WHERE EXISTS (SELECT 1 FROM m) RETURNING seq),
              e AS (INSERT INTO {{schema}}.events (seq, id, type, actor_kind, actor_id, data)
                    SELECT h.seq, $5, 'message.created', 'agent', a.id,
                           json_build_object(
                               'conversationId', c.id, 'contactId', c.contact_id,
                               'id', m.id, 'kind', m.kind, 'body', m.body,
                               'authorAgentId', m.author_agent_id,
                               'createdAt', {created_at},
                               'attachments', files.list,
                               'author', json_build_object('displayName', a.display_name,
                                                           'avatarUrl', a.avatar_url))
                      FROM h, m, c, a, files
                    RETURNING seq, occurred_at)
         SELECT m.id, m.kind, m.body, m.author_agent_id, m.created_at, c.contact_id,
                a.id AS agent_id, a.display_name AS author_display_name,
                a.avatar_url AS author_avatar_url,
                e.seq AS event_seq, e.occurred_at AS event_occurred_at,
                (m.kind = 'outgoing' AND c.assignee_id IS NULL
                 AND coalesce((SELECT (s.inbox ->> 'autoAssignOnReply')::boolean
                                 FROM {{schema}}.settings s), true)) AS claims,
                files.list AS attachments
           FROM m, c, a, e, files",
        created_at = rfc3339_utc("m.created_at"),
        attachment = attachments::json_of("t"),
    )
});

/// Adds the reply or note of the member `user_id` (their agent profile the author) to
/// conversation `conversation_id`, moves its `lastMessageAt` and records `message.created`
/// (id `event_id`) in the event log: one statement, so it commits on its own in a single
/// round trip. It also tells whether the reply should assign the conversation to its author
/// ([`Posted::claims`]), so that the common case, a conversation already assigned, costs
/// nothing more. `None` when there is no such conversation, or the member has no profile.
///
/// The event's data is built here, in the shape of `events::catalogue::MessageCreated`, because
/// the message's id and time are only known inside the statement. Its time is written exactly
/// as the REST API writes it (UTC, RFC 3339, trailing zeros of the fraction dropped), since the
/// events API hands the stored text to readers as it is; `tests/api/events.rs` compares the two.
pub async fn add_by_member<'c>(
    conn: impl sqlx::PgExecutor<'c>,
    schema: &TenantSchema,
    message: &MemberMessage<'_>,
    user_id: Uuid,
    event_id: Uuid,
) -> sqlx::Result<Option<Posted>> {
    let mut posted: Option<Posted> = sqlx::query_as(schema.sql(&ADD_BY_MEMBER))
        .bind(message.conversation_id)
        .bind(message.kind)
        .bind(message.body)
        .bind(user_id)
        .bind(event_id)
        .bind(message.attachment_ids)
        .fetch_optional(conn)
        .await?;
    if let Some(posted) = &mut posted {
        posted.added.message.attachments = std::mem::take(&mut posted.attachments.0);
    }
    Ok(posted)
}

/// Adds a message to conversation `conversation_id` and moves its `lastMessageAt`; `None`
/// when there is no such conversation. `author` is the agent, `None` for incoming messages.
pub async fn add(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
    kind: MessageKind,
    body: &str,
    author: Option<Uuid>,
) -> sqlx::Result<Option<Added>> {
    sqlx::query_as(schema.sql(
        "WITH c AS (UPDATE {schema}.conversations
                       SET last_message_at = greatest(last_message_at, now()), updated_at = now()
                     WHERE id = $1 RETURNING id, contact_id)
         INSERT INTO {schema}.messages (conversation_id, kind, body, author_agent_id)
         SELECT c.id, $2, $3, $4 FROM c
         RETURNING id, kind, body, author_agent_id, created_at,
                   (SELECT contact_id FROM c) AS contact_id",
    ))
    .bind(conversation_id)
    .bind(kind)
    .bind(body)
    .bind(author)
    .fetch_optional(conn)
    .await
}

/// A page of a conversation's messages, oldest first, and the cursor of the next one.
pub async fn list(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
    page: &Page<TimeKey>,
) -> sqlx::Result<(Vec<Message>, Option<String>)> {
    let (after_at, after_id) = page.after.map(|TimeKey(at, id)| (at, id)).unzip();
    let rows = sqlx::query_as(schema.sql(
        "SELECT id, kind, body, author_agent_id, created_at FROM {schema}.messages
          WHERE conversation_id = $1
            AND ($2::timestamptz IS NULL OR (created_at, id) > ($2, $3))
          ORDER BY created_at, id
          LIMIT $4",
    ))
    .bind(conversation_id)
    .bind(after_at)
    .bind(after_id)
    .bind(page.fetch())
    .fetch_all(&mut *conn)
    .await?;
    let (mut messages, next) = page.finish(rows, |m: &Message| TimeKey(m.created_at, m.id));
    with_attachments(conn, schema, messages.iter_mut()).await?;
    Ok((messages, next))
}

/// Fills in the messages' files (without links) and email details, a statement each.
pub async fn with_attachments<'m>(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    messages: impl IntoIterator<Item = &'m mut Message>,
) -> sqlx::Result<()> {
    let messages: Vec<&mut Message> = messages.into_iter().collect();
    let ids: Vec<Uuid> = messages.iter().map(|m| m.id).collect();
    let mut by_message = attachments::of_messages(conn, schema, &ids).await?;
    let mut emails = email_details::of_messages(conn, schema, &ids).await?;
    for message in messages {
        if let Some(files) = by_message.remove(&message.id) {
            message.attachments = files;
        }
        message.email = emails.remove(&message.id).map(Box::new);
    }
    Ok(())
}
