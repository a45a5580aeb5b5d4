//! The Conversation record and its queries, over the tables of `schema`.

use serde::{Deserialize, Serialize};
use sqlx::postgres::PgRow;
use sqlx::{FromRow, PgConnection, Postgres, QueryBuilder, Row};
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::conversations::messages::MessageKind;
use crate::conversations::ratings::{RATINGS_OF_CONVERSATION, Rating};
use crate::extract::Resource;
use crate::inbox::assignee::AssigneeFilter;
use crate::inbox::contacts::Contact;
use crate::inbox::priority::Priority;
use crate::labels::LabelRef;
use crate::pagination::{Page, TimeKey};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum ConversationStatus {
    Open,
    Pending,
    Resolved,
}

/// How a conversation began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum Channel {
    /// A visitor wrote in through the chat widget.
    Chat,
    /// An agent or an API client started it (its first message is outgoing).
    Manual,
    /// A customer's email began it (the email channel); replies are sent by email.
    Email,
}

/// The newest message of a conversation, as the inbox list previews it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LastMessage {
    pub kind: MessageKind,
    /// The first 200 characters of the body.
    pub body: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

/// Longest preview of the last message, in characters.
pub const PREVIEW_CHARS: i32 = 200;
/// Unread counts stop at this number: beyond it a count says nothing an agent acts on, and
/// counting stays bounded.
pub const UNREAD_MAX: i64 = 100;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    pub id: Uuid,
    /// Counts up per workspace from 1.
    pub number: i64,
    pub subject: Option<String>,
    pub status: ConversationStatus,
    pub priority: Option<Priority>,
    /// The agent handling it; null in the Unassigned tab.
    pub assignee_id: Option<Uuid>,
    pub contact: Contact,
    pub channel: Channel,
    /// Its labels, by name.
    #[serde(default)]
    pub labels: Vec<LabelRef>,
    /// The newest message (reply, incoming message or note); null before the first one.
    pub last_message: Option<LastMessage>,
    /// Incoming messages the calling agent has not read (at most 100). Present when an agent
    /// reads conversations (the list, one conversation); absent from the answers of changes
    /// and from events, which carry the conversation as the change recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unread_count: Option<i64>,
    /// The newest message's time (replies, incoming messages and notes): the list's order.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub last_message_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
    /// When it was resolved; null unless it is.
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub resolved_at: Option<OffsetDateTime>,
    /// The customer's ratings of its resolutions, oldest first (one per resolution).
    #[serde(default)]
    pub ratings: Vec<Rating>,
}

impl Resource for Conversation {
    const NAME: &'static str = "conversation";
}

impl FromRow<'_, PgRow> for Conversation {
    fn from_row(row: &PgRow) -> sqlx::Result<Self> {
        Ok(Self {
            id: row.try_get("id")?,
            number: row.try_get("number")?,
            subject: row.try_get("subject")?,
            status: row.try_get("status")?,
            priority: row.try_get("priority")?,
            assignee_id: row.try_get("assignee_id")?,
            contact: Contact {
                id: row.try_get("contact_id")?,
                name: row.try_get("contact_name")?,
                email: row.try_get("contact_email")?,
                claimed_email: row.try_get("contact_claimed_email")?,
                external_id: row.try_get("contact_external_id")?,
                labels: None,
            },
            channel: row.try_get("channel")?,
            labels: row
                .try_get::<sqlx::types::Json<Vec<LabelRef>>, _>("labels")?
                .0,
            last_message: match row.try_get("last_message_kind")? {
                Some(kind) => Some(LastMessage {
                    kind,
                    body: row.try_get("last_message_body")?,
                    created_at: row.try_get("last_message_created_at")?,
                }),
                None => None,
            },
            unread_count: row.try_get("unread_count")?,
            last_message_at: row.try_get("last_message_at")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
            resolved_at: row.try_get("resolved_at")?,
            ratings: row
                .try_get::<sqlx::types::Json<Vec<Rating>>, _>("ratings")?
                .0,
        })
    }
}

/// The columns of a [`Conversation`], from `c` (conversations) joined with `ct` (contacts)
/// and `lm` ([`LAST_MESSAGE`]); `unread_count` is the caller's to add.
const COLUMNS: &str = "c.id, c.number, c.subject, c.status, c.priority, c.assignee_id, c.channel,
                       c.last_message_at, c.created_at, c.updated_at, c.resolved_at,
                       rt.ratings, ct.id AS contact_id, ct.name AS contact_name, ct.email AS contact_email,
                       ct.claimed_email AS contact_claimed_email,
                       ct.external_id AS contact_external_id,
                       lm.kind AS last_message_kind, lm.body AS last_message_body,
                       lm.created_at AS last_message_created_at, lb.labels";

/// Joins `ct`, `lm`, `lb` (its labels) and `rt` (its ratings) to the conversations `c`: one
/// backward step of the messages' index and one range of the labels' and of the ratings'
/// per conversation.
static JOINS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        " JOIN {{schema}}.contacts ct ON ct.id = c.contact_id
          LEFT JOIN LATERAL (
              SELECT m.kind, left(m.body, {PREVIEW_CHARS}) AS body, m.created_at
                FROM {{schema}}.messages m
               WHERE m.conversation_id = c.id
               ORDER BY m.created_at DESC, m.id DESC LIMIT 1) lm ON true
          CROSS JOIN LATERAL (
              SELECT coalesce(jsonb_agg(
                         jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color)
                         ORDER BY lower(l.name), l.id), '[]'::jsonb) AS labels
                FROM {{schema}}.conversation_labels cl
                JOIN {{schema}}.labels l ON l.id = cl.label_id
               WHERE cl.conversation_id = c.id) lb
          CROSS JOIN LATERAL ({RATINGS_OF_CONVERSATION}) rt"
    )
});

/// The unread count of the reader `r` (an agent profile joined on the caller's user id; no
/// row for an API key): incoming messages after their read mark, or after they joined when
/// they have none, at most [`UNREAD_MAX`].
static UNREAD: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        ", CASE WHEN r.id IS NOT NULL THEN (
              SELECT count(*) FROM (
                  SELECT 1 FROM {{schema}}.messages um
                   WHERE um.conversation_id = c.id AND um.kind = 'incoming'
                     AND um.created_at > coalesce(
                         (SELECT cr.read_at FROM {{schema}}.conversation_reads cr
                           WHERE cr.conversation_id = c.id AND cr.agent_id = r.id),
                         r.joined_at)
                   LIMIT {UNREAD_MAX}) unread)
          END AS unread_count"
    )
});

/// A conversation's columns with no reader (events, changes): no unread count.
const NO_READER: &str = ", NULL::bigint AS unread_count";

/// Who is reading a conversation: the member whose unread count it shows, or nobody (an
/// API key).
#[derive(Debug, Clone, Copy)]
pub struct Reader(pub Option<Uuid>);

impl Reader {
    pub fn of(actor: &crate::authz::Actor) -> Self {
        Self(actor.member_id().ok())
    }
}

/// What the list and a saved view's count select; `Default` selects everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListFilter {
    pub status: Option<ConversationStatus>,
    pub assignee: AssigneeFilter,
    /// Only this contact's conversations (the contact panel's earlier conversations).
    pub contact: Option<Uuid>,
    /// Only conversations with this label.
    pub label: Option<Uuid>,
    pub channel: Option<Channel>,
    pub priority: Option<Priority>,
    pub created_after: Option<OffsetDateTime>,
    pub created_before: Option<OffsetDateTime>,
    pub updated_after: Option<OffsetDateTime>,
    pub updated_before: Option<OffsetDateTime>,
    /// Only conversations with incoming messages the reader has not read.
    pub unread: bool,
}

impl ListFilter {
    /// Appends ` AND <condition>` for each filter to a query over `c` (conversations) joined
    /// with `r`, the reader's agent profile.
    pub fn push_conditions(&self, builder: &mut QueryBuilder<Postgres>, schema: &TenantSchema) {
        self.assignee.push_condition(builder, "c.assignee_id");
        if let Some(contact) = self.contact {
            builder.push(" AND c.contact_id = ").push_bind(contact);
        }
        if let Some(status) = self.status {
            builder.push(" AND c.status = ").push_bind(status);
        }
        if let Some(channel) = self.channel {
            builder.push(" AND c.channel = ").push_bind(channel);
        }
        if let Some(priority) = self.priority {
            builder.push(" AND c.priority = ").push_bind(priority);
        }
        for (condition, at) in [
            (" AND c.created_at >= ", self.created_after),
            (" AND c.created_at < ", self.created_before),
            (" AND c.updated_at >= ", self.updated_after),
            (" AND c.updated_at < ", self.updated_before),
        ] {
            if let Some(at) = at {
                builder.push(condition).push_bind(at);
            }
        }
        if let Some(label) = self.label {
            let sqlx::AssertSqlSafe(labelled) = schema.sql(
                " AND EXISTS (SELECT 1 FROM {schema}.conversation_labels fl
                               WHERE fl.conversation_id = c.id AND fl.label_id = ",
            );
            builder.push(labelled).push_bind(label).push(")");
        }
        if self.unread {
            let sqlx::AssertSqlSafe(unread) = schema.sql(
                " AND EXISTS (SELECT 1 FROM {schema}.messages um
                               WHERE um.conversation_id = c.id AND um.kind = 'incoming'
                                 AND um.created_at > coalesce(
                                     (SELECT cr.read_at FROM {schema}.conversation_reads cr
                                       WHERE cr.conversation_id = c.id AND cr.agent_id = r.id),
                                     r.joined_at))",
            );
            builder.push(unread);
        }
    }
}

/// The columns of the conversations `c` that [`COLUMNS`] reads, for the list's inner page.
const PAGE_COLUMNS: &str = "c.id, c.number, c.subject, c.status, c.priority, c.assignee_id,
                            c.channel, c.contact_id, c.last_message_at, c.created_at,
                            c.updated_at, c.resolved_at";

/// Appends the list query to `query`: one statement whose every shape (tab, status, cursor)
/// is a range of one index of `V3` read in order, so a page is `LIMIT` rows whatever the
/// size of the workspace. The page's rows are chosen first, in a subquery, and only they are
/// joined with their contact, last message, labels and unread count: a filter that skips
/// many conversations (a label, unread) never pays for the joins of those it skips. Public
/// so that a test can `EXPLAIN` exactly what the handler runs.
pub fn push_list_query(
    builder: &mut QueryBuilder<Postgres>,
    schema: &TenantSchema,
    filter: ListFilter,
    reader: Reader,
    page: &Page<TimeKey>,
) {
    let sqlx::AssertSqlSafe(page_rows) = schema.sql(&format!(
        "SELECT {COLUMNS}{unread} FROM (
             SELECT {PAGE_COLUMNS} FROM {{schema}}.conversations c
               LEFT JOIN {{schema}}.agent_profiles r ON r.user_id = ",
        unread = *UNREAD,
    ));
    builder
        .push(page_rows)
        .push_bind(reader.0)
        .push(" WHERE true");
    filter.push_conditions(builder, schema);
    if let Some(TimeKey(at, id)) = page.after {
        builder
            .push(" AND (c.last_message_at, c.id) < (")
            .push_bind(at)
            .push(", ")
            .push_bind(id)
            .push(")");
    }
    // The page's size written out, not bound: the API's connections cache one generic plan
    // per statement, which costs a bound `LIMIT` as a tenth of the table and would sort it all
    // rather than read the index's first rows. A page is 1 to 201 rows: a handful of
    // statements in the cache.
    builder.push(format_args!(
        " ORDER BY c.last_message_at DESC, c.id DESC LIMIT {}",
        page.fetch()
    ));
    let sqlx::AssertSqlSafe(joins) = schema.sql(&format!(
        ") c{joins} LEFT JOIN {{schema}}.agent_profiles r ON r.user_id = ",
        joins = *JOINS,
    ));
    builder
        .push(joins)
        .push_bind(reader.0)
        .push(" ORDER BY c.last_message_at DESC, c.id DESC");
}

/// A page of conversations and the cursor of the next one.
pub async fn list(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    filter: ListFilter,
    reader: Reader,
    page: &Page<TimeKey>,
) -> sqlx::Result<(Vec<Conversation>, Option<String>)> {
    let mut query = QueryBuilder::new("");
    push_list_query(&mut query, schema, filter, reader, page);
    let rows = query.build_query_as().fetch_all(conn).await?;
    Ok(page.finish(rows, |c: &Conversation| TimeKey(c.last_message_at, c.id)))
}

/// The conversation `id` as `reader` sees it.
pub async fn find(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
    reader: Reader,
) -> sqlx::Result<Option<Conversation>> {
    sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS}{unread} FROM {{schema}}.conversations c{joins}
           LEFT JOIN {{schema}}.agent_profiles r ON r.user_id = $2
          WHERE c.id = $1",
        unread = *UNREAD,
        joins = *JOINS,
    )))
    .bind(id)
    .bind(reader.0)
    .fetch_optional(conn)
    .await
}

pub async fn exists(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        schema.sql("SELECT EXISTS (SELECT 1 FROM {schema}.conversations WHERE id = $1)"),
    )
    .bind(id)
    .fetch_one(conn)
    .await
}

/// A new open conversation; its first message is the caller's to add.
pub async fn insert(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    contact_id: Uuid,
    subject: Option<&str>,
    assignee_id: Option<Uuid>,
    channel: Channel,
) -> sqlx::Result<Uuid> {
    sqlx::query_scalar(schema.sql(
        "INSERT INTO {schema}.conversations (contact_id, subject, assignee_id, channel)
         VALUES ($1, $2, $3, $4) RETURNING id",
    ))
    .bind(contact_id)
    .bind(subject)
    .bind(assignee_id)
    .bind(channel)
    .fetch_one(conn)
    .await
}

/// The conversation's contact; `None` when there is no such conversation.
pub async fn contact_of(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
) -> sqlx::Result<Option<Uuid>> {
    sqlx::query_scalar(schema.sql("SELECT contact_id FROM {schema}.conversations WHERE id = $1"))
        .bind(id)
        .fetch_optional(conn)
        .await
}

/// One field of a conversation to change.
#[derive(Debug, Clone, Copy)]
pub enum Change {
    Assignee(Option<Uuid>),
    Status(ConversationStatus),
    Priority(Option<Priority>),
}

/// Applies `change`; the conversation as it now is, or `None` when there is no such one.
pub async fn update(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
    change: Change,
) -> sqlx::Result<Option<Conversation>> {
    // A resolution's time stays as it was when a resolved conversation is resolved again
    // (`least` skips a null). Chosen here, not by a `CASE` over `now()`, which Citus refuses.
    let set = match change {
        Change::Assignee(_) => "assignee_id = $2",
        Change::Status(ConversationStatus::Resolved) => {
            "status = $2, resolved_at = least(resolved_at, now())"
        }
        // Reopened work goes back to its assignee only while they are active: an agent
        // deactivated since keeps their resolved conversations (reports count them), not new
        // work.
        Change::Status(_) => {
            "status = $2, resolved_at = NULL,
             assignee_id = (SELECT p.id FROM {schema}.agent_profiles p
                             WHERE p.id = conversations.assignee_id AND p.status = 'active')"
        }
        Change::Priority(_) => "priority = $2",
    };
    let statement = schema.sql(&format!(
        "WITH c AS (UPDATE {{schema}}.conversations SET {set}, updated_at = now()
                     WHERE id = $1 RETURNING *)
         SELECT {COLUMNS}{NO_READER} FROM c{joins}",
        joins = *JOINS,
    ));
    let query = sqlx::query_as(statement).bind(id);
    match change {
        Change::Assignee(agent_id) => query.bind(agent_id),
        Change::Status(status) => query.bind(status),
        Change::Priority(priority) => query.bind(priority),
    }
    .fetch_optional(conn)
    .await
}

/// Assigns the conversation to `agent_id` if it is still unassigned: the conversation as it
/// now is, or `None` when someone was assigned first (or there is no such conversation).
pub async fn assign_if_unassigned(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
    agent_id: Uuid,
) -> sqlx::Result<Option<Conversation>> {
    sqlx::query_as(schema.sql(&format!(
        "WITH c AS (UPDATE {{schema}}.conversations SET assignee_id = $2, updated_at = now()
                     WHERE id = $1 AND assignee_id IS NULL RETURNING *)
         SELECT {COLUMNS}{NO_READER} FROM c{joins}",
        joins = *JOINS,
    )))
    .bind(id)
    .bind(agent_id)
    .fetch_optional(conn)
    .await
}

/// Gives the conversations of the contacts `from` to the contact `to` (an anonymous visitor
/// who signed in mid-chat); the conversations as they now are.
pub async fn hand_over(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    from: &[Uuid],
    to: Uuid,
) -> sqlx::Result<Vec<Conversation>> {
    sqlx::query_as(schema.sql(&format!(
        "WITH c AS (UPDATE {{schema}}.conversations SET contact_id = $2, updated_at = now()
                     WHERE contact_id = ANY($1) RETURNING *)
         SELECT {COLUMNS}{NO_READER} FROM c{joins}",
        joins = *JOINS,
    )))
    .bind(from)
    .bind(to)
    .fetch_all(conn)
    .await
}

/// Sends an agent's unresolved conversations back to the Unassigned tab (deactivation); the
/// conversations as they now are.
pub async fn release_assignee(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    agent_id: Uuid,
) -> sqlx::Result<Vec<Conversation>> {
    sqlx::query_as(schema.sql(&format!(
        "WITH c AS (UPDATE {{schema}}.conversations SET assignee_id = NULL, updated_at = now()
                     WHERE assignee_id = $1 AND status <> 'resolved' RETURNING *)
         SELECT {COLUMNS}{NO_READER} FROM c{joins}",
        joins = *JOINS,
    )))
    .bind(agent_id)
    .fetch_all(conn)
    .await
}
