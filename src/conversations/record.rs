//! The Conversation record and its queries, over the tables of `schema`.

use serde::{Deserialize, Serialize};
use sqlx::postgres::PgRow;
use sqlx::{FromRow, PgConnection, Postgres, QueryBuilder, Row};
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::extract::Resource;
use crate::inbox::assignee::AssigneeFilter;
use crate::inbox::contacts::Contact;
use crate::inbox::priority::Priority;
use crate::pagination::{Page, TimeKey};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum ConversationStatus {
    Open,
    Pending,
    Resolved,
}

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
            },
            last_message_at: row.try_get("last_message_at")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
        })
    }
}

/// The columns of a [`Conversation`], from `c` (conversations) joined with `ct` (contacts).
const COLUMNS: &str = "c.id, c.number, c.subject, c.status, c.priority, c.assignee_id,
                       c.last_message_at, c.created_at, c.updated_at,
                       ct.id AS contact_id, ct.name AS contact_name, ct.email AS contact_email,
                       ct.claimed_email AS contact_claimed_email";

#[derive(Debug, Clone, Copy)]
pub struct ListFilter {
    pub status: Option<ConversationStatus>,
    pub assignee: AssigneeFilter,
}

/// Appends the list query to `query`: one statement whose every shape (tab, status, cursor)
/// is a range of one index of `V3` read in order, so a page is `LIMIT` rows whatever the
/// size of the workspace. Public so that a test can `EXPLAIN` exactly what the handler runs.
pub fn push_list_query(
    builder: &mut QueryBuilder<Postgres>,
    schema: &TenantSchema,
    filter: ListFilter,
    page: &Page<TimeKey>,
) {
    let sqlx::AssertSqlSafe(select) = schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.conversations c
           JOIN {{schema}}.contacts ct ON ct.id = c.contact_id WHERE true"
    ));
    builder.push(select);
    filter.assignee.push_condition(builder, "c.assignee_id");
    if let Some(status) = filter.status {
        builder.push(" AND c.status = ").push_bind(status);
    }
    if let Some(TimeKey(at, id)) = page.after {
        builder
            .push(" AND (c.last_message_at, c.id) < (")
            .push_bind(at)
            .push(", ")
            .push_bind(id)
            .push(")");
    }
    builder
        .push(" ORDER BY c.last_message_at DESC, c.id DESC LIMIT ")
        .push_bind(page.fetch());
}

/// A page of conversations and the cursor of the next one.
pub async fn list(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    filter: ListFilter,
    page: &Page<TimeKey>,
) -> sqlx::Result<(Vec<Conversation>, Option<String>)> {
    let mut query = QueryBuilder::new("");
    push_list_query(&mut query, schema, filter, page);
    let rows = query.build_query_as().fetch_all(conn).await?;
    Ok(page.finish(rows, |c: &Conversation| TimeKey(c.last_message_at, c.id)))
}

pub async fn find(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
) -> sqlx::Result<Option<Conversation>> {
    sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.conversations c
           JOIN {{schema}}.contacts ct ON ct.id = c.contact_id
          WHERE c.id = $1"
    )))
    .bind(id)
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
) -> sqlx::Result<Uuid> {
    sqlx::query_scalar(schema.sql(
        "INSERT INTO {schema}.conversations (contact_id, subject, assignee_id)
         VALUES ($1, $2, $3) RETURNING id",
    ))
    .bind(contact_id)
    .bind(subject)
    .bind(assignee_id)
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
    let column = match change {
        Change::Assignee(_) => "assignee_id",
        Change::Status(_) => "status",
        Change::Priority(_) => "priority",
    };
    let statement = schema.sql(&format!(
        "WITH c AS (UPDATE {{schema}}.conversations SET {column} = $2, updated_at = now()
                     WHERE id = $1 RETURNING *)
         SELECT {COLUMNS} FROM c JOIN {{schema}}.contacts ct ON ct.id = c.contact_id"
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
         SELECT {COLUMNS} FROM c JOIN {{schema}}.contacts ct ON ct.id = c.contact_id"
    )))
    .bind(agent_id)
    .fetch_all(conn)
    .await
}
