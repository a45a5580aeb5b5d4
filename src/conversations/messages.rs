//! Messages of a conversation: incoming (from the contact), outgoing replies and private notes
//! (agents only, never shown to visitors). Every message moves the conversation's
//! `lastMessageAt`, in the same statement.

use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use supportdesk_core::db::Engine;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::attachments::record::{self as attachments, Attachment};
use crate::email_address::EmailAddress;
use crate::email_channel::details::{self as email_details, EmailDetails};
use crate::events::log::head_is_free;
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
#[derive(Debug)]
pub struct Posted {
    pub added: Added,
    /// The author's agent id (the event's actor).
    pub agent_id: Uuid,
    pub author_display_name: String,
    pub author_avatar_url: Option<String>,
    /// `None` when the event waits for its number (the log's head was busy).
    pub event_seq: Option<i64>,
    pub event_occurred_at: OffsetDateTime,
    /// A reply to an unassigned conversation in a workspace whose replies assign
    /// (`settings.inbox.autoAssignOnReply`): the author should take it.
    pub claims: bool,
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

/// A reply or note of a member, as [`write_by_member`] writes it: the files must be this
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

/// The `message.created` event's data, in the shape of `events::catalogue::MessageCreated`
/// (written here, where the message is made: the catalogue names this module's records).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageCreatedData<'a> {
    conversation_id: Uuid,
    contact_id: Uuid,
    #[serde(flatten)]
    message: &'a Message,
    author: AuthorData<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AuthorData<'a> {
    display_name: &'a str,
    avatar_url: Option<&'a str>,
}

/// A reply or note [`write_by_member`] wrote, before its event is recorded.
#[derive(Debug)]
pub struct Written {
    pub conversation_id: Uuid,
    pub added: Added,
    pub agent_id: Uuid,
    pub author_display_name: String,
    pub author_avatar_url: Option<String>,
    pub claims: bool,
    /// The conversation began by email: its replies go out by email.
    pub by_email: bool,
    /// A chat whose contact has an address (theirs or one they typed in the widget): its
    /// replies the visitor has not seen may be emailed to them.
    pub chat_with_address: bool,
    /// The message's row is written. [`write_by_member`] leaves a message without files to
    /// the event's statement on PostgreSQL ([`record_created`]), or to [`store`].
    stored: bool,
}

/// What a reply's first statement writes and reads: the conversation (its `lastMessageAt`
/// moved, its row locked), the author's profile, the contact and the inbox settings.
#[derive(sqlx::FromRow)]
struct Target {
    contact_id: Uuid,
    assignee_id: Option<Uuid>,
    by_email: bool,
    chat_with_address: bool,
    agent_id: Uuid,
    display_name: String,
    avatar_url: Option<String>,
    auto_assign: Option<bool>,
    now: OffsetDateTime,
}

/// Adds the reply or note of the member `user_id` (their agent profile the author) to
/// conversation `conversation_id` and moves its `lastMessageAt`, in the caller's transaction,
/// which then records its event with [`record_created`] (or, without one, writes the message
/// with [`store`]). It also tells whether the reply should assign the conversation to its
/// author ([`Written::claims`]). `None` when there is no such conversation, the member has no
/// profile, or the files are not this conversation's unsent uploads: the caller rolls back
/// what was written.
///
/// A reply is a few round trips while the conversation's row is locked, each a wake-up of
/// the API and of its backend, which on a machine busy with other work waits for a core: the
/// chat hub's `SendMessage` round trip counts them. So the conversation, its author, contact
/// and settings are one statement (a join of one tenant's tables, which Citus routes to the
/// one node holding the schema), and on PostgreSQL a message without files is written by
/// the event's statement. Each statement touches one tenant's tables: a data-modifying CTE
/// over several is a plan Citus runs in steps, shipping each step's rows to every worker
/// node, so one node down would fail every workspace's replies.
pub async fn write_by_member(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    message: &MemberMessage<'_>,
    user_id: Uuid,
    engine: Engine,
) -> sqlx::Result<Option<Written>> {
    // `settings` has its one row from the schema's first migration. The conversation's new
    // `updated_at` is the transaction's `now()` (Citus refuses `now()` in `RETURNING`).
    let target: Option<Target> = sqlx::query_as(schema.sql(
        "UPDATE {schema}.conversations c
            SET last_message_at = greatest(c.last_message_at, now()), updated_at = now()
           FROM {schema}.agent_profiles a, {schema}.contacts ct, {schema}.settings s
          WHERE c.id = $1 AND a.user_id = $2 AND ct.id = c.contact_id
         RETURNING c.contact_id, c.assignee_id, c.channel = 'email' AS by_email,
                   c.channel = 'chat' AND coalesce(ct.email, ct.claimed_email) IS NOT NULL
                       AS chat_with_address,
                   a.id AS agent_id, a.display_name, a.avatar_url,
                   (s.inbox ->> 'autoAssignOnReply')::boolean AS auto_assign, c.updated_at AS now",
    ))
    .bind(message.conversation_id)
    .bind(user_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(target) = target else {
        return Ok(None);
    };
    let mut written = Written {
        conversation_id: message.conversation_id,
        added: Added {
            message: Message {
                // As the table's default would: a random id, and the transaction's time.
                id: Uuid::new_v4(),
                kind: message.kind,
                body: message.body.to_owned(),
                author_agent_id: Some(target.agent_id),
                created_at: target.now,
                attachments: Vec::new(),
                email: None,
            },
            contact_id: target.contact_id,
        },
        agent_id: target.agent_id,
        author_display_name: target.display_name,
        author_avatar_url: target.avatar_url,
        claims: message.kind == MessageKind::Outgoing
            && target.assignee_id.is_none()
            && target.auto_assign.unwrap_or(true),
        by_email: target.by_email,
        chat_with_address: target.chat_with_address,
        stored: false,
    };
    // Files name the message's row: it is written first (so is anything else that names it,
    // with [`store`]).
    if engine == Engine::Citus || !message.attachment_ids.is_empty() {
        store(conn, schema, &mut written).await?;
    }
    if !message.attachment_ids.is_empty() {
        let added = &mut written.added.message;
        let taken = sqlx::query(schema.sql(
            "UPDATE {schema}.attachments SET message_id = $1
              WHERE id = ANY($2) AND conversation_id = $3 AND message_id IS NULL
                AND uploader_kind <> 'visitor'",
        ))
        .bind(added.id)
        .bind(message.attachment_ids)
        .bind(message.conversation_id)
        .execute(&mut *conn)
        .await?;
        if usize::try_from(taken.rows_affected()).ok() != Some(message.attachment_ids.len()) {
            return Ok(None);
        }
        added.attachments = sqlx::query_as(schema.sql(&format!(
            "SELECT {columns} FROM {{schema}}.attachments a
              WHERE a.message_id = $1 ORDER BY a.created_at, a.id",
            columns = attachments::COLUMNS,
        )))
        .bind(added.id)
        .fetch_all(&mut *conn)
        .await?;
    }
    Ok(Some(written))
}

/// Writes the row of the message [`write_by_member`] left to the event's statement, for a
/// caller that records no event or writes a row naming the message first (an email's
/// details, a mention's notice); nothing when it is written already.
pub async fn store(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    written: &mut Written,
) -> sqlx::Result<()> {
    if written.stored {
        return Ok(());
    }
    let message = &written.added.message;
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.messages (id, conversation_id, kind, body, author_agent_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
    ))
    .bind(message.id)
    .bind(written.conversation_id)
    .bind(message.kind)
    .bind(&message.body)
    .bind(message.author_agent_id)
    .bind(message.created_at)
    .execute(&mut *conn)
    .await?;
    written.stored = true;
    Ok(())
}

/// The log's next number when it is free (`events::log::head_is_free`), as
/// `events::log::append` takes it (`None` otherwise: the event then waits for its number).
const TAKE_NUMBER: &str = concat!(
    "UPDATE {schema}.event_log_head SET seq = seq + 1 WHERE ",
    head_is_free!(),
    " RETURNING seq"
);

/// [`TAKE_NUMBER`] and the `message.created` event ($1 its id, $2 the author's agent id, $3
/// its data), numbered or waiting for its number, for a message already written.
const HEAD_EVENT: &str = concat!(
    "WITH head AS (UPDATE {schema}.event_log_head SET seq = seq + 1 WHERE ",
    head_is_free!(),
    " RETURNING seq)
     INSERT INTO {schema}.events (seq, arrival, id, type, actor_kind, actor_id, data)
     SELECT n.seq, CASE WHEN n.seq IS NULL THEN nextval('{schema}.event_arrivals') END,
            $1, 'message.created', 'agent', $2, $3::json
       FROM (SELECT (SELECT seq FROM head) AS seq) n
     RETURNING seq, occurred_at"
);

/// [`HEAD_EVENT`] with the message's row first ($4 to $8: its id, conversation, kind, body
/// and time). A data-modifying CTE that nothing reads runs after the main statement, so the
/// message would be written with the head locked: the head's `WHERE` reads it, which writes
/// the message first and takes the head's lock after it.
const MESSAGE_HEAD_EVENT: &str = concat!(
    "WITH message AS (
         INSERT INTO {schema}.messages (id, conversation_id, kind, body, author_agent_id, created_at)
         VALUES ($4, $5, $6, $7, $2, $8)
         RETURNING id
     ),
     head AS (UPDATE {schema}.event_log_head SET seq = seq + 1
               WHERE EXISTS (SELECT FROM message) AND ",
    head_is_free!(),
    " RETURNING seq)
     INSERT INTO {schema}.events (seq, arrival, id, type, actor_kind, actor_id, data)
     SELECT n.seq, CASE WHEN n.seq IS NULL THEN nextval('{schema}.event_arrivals') END,
            $1, 'message.created', 'agent', $2, $3::json
       FROM (SELECT (SELECT seq FROM head) AS seq FROM message) n
     RETURNING seq, occurred_at"
);

/// Records `message.created` (id `event_id`) for the message [`write_by_member`] wrote, as
/// the last statements of the caller's transaction: numbered when the log's head is free (it
/// then stays locked from here to the commit), waiting for its number otherwise
/// ([`Posted::event_seq`] `None`: `events::log::Appended::Waiting`). Its data is the message as the REST API shows it, since the events API hands
/// the stored text to readers as it is (`tests/api/events.rs` compares the two), without its
/// email details (a reply by email gets them after it is written; the log keeps the message
/// as every channel shows it), which the returned message keeps.
pub async fn record_created(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    mut written: Written,
    event_id: Uuid,
    engine: Engine,
) -> sqlx::Result<Posted> {
    let email = written.added.message.email.take();
    let data = serde_json::to_string(&MessageCreatedData {
        conversation_id: written.conversation_id,
        contact_id: written.added.contact_id,
        message: &written.added.message,
        author: AuthorData {
            display_name: &written.author_display_name,
            avatar_url: written.author_avatar_url.as_deref(),
        },
    })
    .map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
    // The message's row when it waits for it, the log's head, then the event (its arrival
    // taken after the transaction has its id: it wrote the conversation and the message
    // first, `events::log::HOLD_XID`): one statement
    // on PostgreSQL, a round trip less or two while the head is locked (`benches/events.rs`);
    // on Citus, two (see `Engine`) after the message's.
    let message = &written.added.message;
    let (event_seq, event_occurred_at): (Option<i64>, OffsetDateTime) = match engine {
        Engine::Postgres => {
            let statement = if written.stored {
                HEAD_EVENT
            } else {
                MESSAGE_HEAD_EVENT
            };
            let query = sqlx::query_as(schema.sql(statement))
                .bind(event_id)
                .bind(written.agent_id)
                .bind(data);
            let query = if written.stored {
                query
            } else {
                query
                    .bind(message.id)
                    .bind(written.conversation_id)
                    .bind(message.kind)
                    .bind(&message.body)
                    .bind(message.created_at)
            };
            query.fetch_one(&mut *conn).await?
        }
        Engine::Citus => {
            store(conn, schema, &mut written).await?;
            let seq: Option<i64> = sqlx::query_scalar(schema.sql(TAKE_NUMBER))
                .fetch_optional(&mut *conn)
                .await?;
            // A waiting event's arrival from the coordinator, as `events::log::append` takes it
            // (the transaction already has its id where the schema is: it wrote the message).
            let arrival: Option<i64> = match seq {
                Some(_) => None,
                None => Some(
                    sqlx::query_scalar(schema.sql("SELECT nextval('{schema}.event_arrivals')"))
                        .fetch_one(&mut *conn)
                        .await?,
                ),
            };
            sqlx::query_as(schema.sql(
                "INSERT INTO {schema}.events (seq, arrival, id, type, actor_kind, actor_id, data)
                 VALUES ($1, $5, $2, 'message.created', 'agent', $3, $4::json)
                 RETURNING seq, occurred_at",
            ))
            .bind(seq)
            .bind(event_id)
            .bind(written.agent_id)
            .bind(data)
            .bind(arrival)
            .fetch_one(&mut *conn)
            .await?
        }
    };
    written.added.message.email = email;
    Ok(Posted {
        added: written.added,
        agent_id: written.agent_id,
        author_display_name: written.author_display_name,
        author_avatar_url: written.author_avatar_url,
        event_seq,
        event_occurred_at,
        claims: written.claims,
    })
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
    // Two statements on one tenant's tables (a data-modifying CTE is a plan Citus runs in
    // steps, shipping each step's rows to every worker node).
    let contact_id: Option<Uuid> = sqlx::query_scalar(schema.sql(
        "UPDATE {schema}.conversations
            SET last_message_at = greatest(last_message_at, now()), updated_at = now()
          WHERE id = $1 RETURNING contact_id",
    ))
    .bind(conversation_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(contact_id) = contact_id else {
        return Ok(None);
    };
    let message: Message = sqlx::query_as(schema.sql(
        "INSERT INTO {schema}.messages (conversation_id, kind, body, author_agent_id)
         VALUES ($1, $2, $3, $4)
         RETURNING id, kind, body, author_agent_id, created_at",
    ))
    .bind(conversation_id)
    .bind(kind)
    .bind(body)
    .bind(author)
    .fetch_one(&mut *conn)
    .await?;
    Ok(Some(Added {
        message,
        contact_id,
    }))
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
