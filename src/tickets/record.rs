//! The Ticket record and its queries, over the tables of `schema`.

use serde::{Deserialize, Serialize};
use sqlx::postgres::PgRow;
use sqlx::{FromRow, PgConnection, Postgres, QueryBuilder, Row};
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::extract::Resource;
use crate::inbox::assignee::AssigneeFilter;
use crate::inbox::contacts::{Contact, NewContact};
use crate::inbox::priority::Priority;
use crate::pagination::Page;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum TicketStatus {
    Open,
    Pending,
    Resolved,
    Closed,
}

impl TicketStatus {
    /// Resolved or closed: the ticket carries a `resolvedAt`.
    pub fn is_done(self) -> bool {
        matches!(self, Self::Resolved | Self::Closed)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Ticket {
    pub id: Uuid,
    /// Counts up per workspace from 1.
    pub number: i64,
    pub subject: String,
    pub description: Option<String>,
    pub status: TicketStatus,
    pub priority: Option<Priority>,
    pub assignee_id: Option<Uuid>,
    /// The contact the ticket is for.
    pub requester: Contact,
    /// The conversation it came from, if any.
    pub conversation_id: Option<Uuid>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
    /// When it was resolved or closed; null while open or pending.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub resolved_at: Option<OffsetDateTime>,
}

impl Resource for Ticket {
    const NAME: &'static str = "ticket";
}

impl FromRow<'_, PgRow> for Ticket {
    fn from_row(row: &PgRow) -> sqlx::Result<Self> {
        Ok(Self {
            id: row.try_get("id")?,
            number: row.try_get("number")?,
            subject: row.try_get("subject")?,
            description: row.try_get("description")?,
            status: row.try_get("status")?,
            priority: row.try_get("priority")?,
            assignee_id: row.try_get("assignee_id")?,
            requester: Contact {
                id: row.try_get("requester_id")?,
                name: row.try_get("requester_name")?,
                email: row.try_get("requester_email")?,
                claimed_email: row.try_get("requester_claimed_email")?,
                external_id: row.try_get("requester_external_id")?,
                labels: None,
            },
            conversation_id: row.try_get("conversation_id")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
            resolved_at: row.try_get("resolved_at")?,
        })
    }
}

/// The columns of a [`Ticket`], from `t` (tickets) joined with `ct` (contacts).
const COLUMNS: &str = "t.id, t.number, t.subject, t.description, t.status, t.priority,
                       t.assignee_id, t.conversation_id, t.created_at, t.updated_at,
                       t.resolved_at, ct.id AS requester_id, ct.name AS requester_name,
                       ct.email AS requester_email, ct.claimed_email AS requester_claimed_email,
                       ct.external_id AS requester_external_id";

/// What the list selects; `Default` selects every ticket.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListFilter {
    pub status: Option<TicketStatus>,
    pub assignee: AssigneeFilter,
    /// Only this contact's tickets (the contact panel).
    pub requester: Option<Uuid>,
}

/// Appends the list query, newest first (`number` descending), to `query`: like the
/// conversation list, one statement reading one index range of `V3` per shape. Public so
/// that a test can `EXPLAIN` exactly what the handler runs.
pub fn push_list_query(
    query: &mut QueryBuilder<Postgres>,
    schema: &TenantSchema,
    filter: ListFilter,
    page: &Page<i64>,
) {
    let sqlx::AssertSqlSafe(select) = schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.tickets t
           JOIN {{schema}}.contacts ct ON ct.id = t.requester_id WHERE true"
    ));
    query.push(select);
    filter.assignee.push_condition(query, "t.assignee_id");
    if let Some(requester) = filter.requester {
        query.push(" AND t.requester_id = ").push_bind(requester);
    }
    if let Some(status) = filter.status {
        query.push(" AND t.status = ").push_bind(status);
    }
    if let Some(number) = page.after {
        query.push(" AND t.number < ").push_bind(number);
    }
    query
        .push(" ORDER BY t.number DESC LIMIT ")
        .push_bind(page.fetch());
}

/// A page of tickets and the cursor of the next one.
pub async fn list(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    filter: ListFilter,
    page: &Page<i64>,
) -> sqlx::Result<(Vec<Ticket>, Option<String>)> {
    let mut query = QueryBuilder::new("");
    push_list_query(&mut query, schema, filter, page);
    let rows = query.build_query_as().fetch_all(conn).await?;
    Ok(page.finish(rows, |t: &Ticket| t.number))
}

pub async fn find(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
) -> sqlx::Result<Option<Ticket>> {
    sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.tickets t
           JOIN {{schema}}.contacts ct ON ct.id = t.requester_id
          WHERE t.id = $1"
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
    sqlx::query_scalar(schema.sql("SELECT EXISTS (SELECT 1 FROM {schema}.tickets WHERE id = $1)"))
        .bind(id)
        .fetch_one(conn)
        .await
}

/// A new ticket's fields, checked (`tickets::requests`).
#[derive(Debug)]
pub struct NewTicket {
    pub subject: String,
    pub description: Option<String>,
    pub requester: Requester,
    pub priority: Option<Priority>,
    pub assignee_id: Option<Uuid>,
    pub conversation_id: Option<Uuid>,
}

/// Who a new ticket is for.
#[derive(Debug)]
pub enum Requester {
    /// The contact with this email, created if new.
    ByEmail(NewContact),
    /// A contact of the workspace (a chat visitor may have no email).
    Contact(Uuid),
    /// The contact of the ticket's conversation.
    OfConversation,
}

/// Inserts `ticket`, for the contact `requester_id` (its `requester`, found or created).
pub async fn insert(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    ticket: &NewTicket,
    requester_id: Uuid,
) -> sqlx::Result<Uuid> {
    sqlx::query_scalar(schema.sql(
        "INSERT INTO {schema}.tickets
                (subject, description, priority, assignee_id, requester_id, conversation_id)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
    ))
    .bind(&ticket.subject)
    .bind(&ticket.description)
    .bind(ticket.priority)
    .bind(ticket.assignee_id)
    .bind(requester_id)
    .bind(ticket.conversation_id)
    .fetch_one(conn)
    .await
}

/// The fields of a ticket to change; `None` leaves one as it is.
#[derive(Debug, Default)]
pub struct Changes {
    pub subject: Option<String>,
    pub description: Option<Option<String>>,
    pub status: Option<TicketStatus>,
    pub priority: Option<Option<Priority>>,
    pub assignee_id: Option<Option<Uuid>>,
    pub conversation_id: Option<Option<Uuid>>,
}

/// Applies `changes`; the ticket as it now is, or `None` when there is no such one.
/// Resolving or closing sets `resolvedAt` (kept from resolved to closed); reopening clears it.
pub async fn update(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
    changes: Changes,
) -> sqlx::Result<Option<Ticket>> {
    let sqlx::AssertSqlSafe(head) =
        schema.sql("WITH t AS (UPDATE {schema}.tickets SET updated_at = now()");
    let sqlx::AssertSqlSafe(tail) = schema.sql(&format!(
        " RETURNING *) SELECT {COLUMNS} FROM t JOIN {{schema}}.contacts ct ON ct.id = t.requester_id"
    ));
    let mut query = QueryBuilder::new(head);
    if let Some(subject) = changes.subject {
        query.push(", subject = ").push_bind(subject);
    }
    if let Some(description) = changes.description {
        query.push(", description = ").push_bind(description);
    }
    if let Some(status) = changes.status {
        query.push(", status = ").push_bind(status);
        // `least` skips a null: the time it was first resolved, else now. (Not `coalesce`:
        // Citus refuses `now()` inside it in an update.)
        if status.is_done() {
            query.push(", resolved_at = least(resolved_at, now())");
        } else {
            query.push(", resolved_at = NULL");
            // Reopened work goes back to its assignee only while they are active (see
            // `conversations::record::update`), unless this change names one.
            if changes.assignee_id.is_none() {
                let sqlx::AssertSqlSafe(assignee) = schema.sql(
                    ", assignee_id = (SELECT p.id FROM {schema}.agent_profiles p
                                       WHERE p.id = tickets.assignee_id AND p.status = 'active')",
                );
                query.push(assignee);
            }
        }
    }
    if let Some(priority) = changes.priority {
        query.push(", priority = ").push_bind(priority);
    }
    if let Some(assignee_id) = changes.assignee_id {
        query.push(", assignee_id = ").push_bind(assignee_id);
    }
    if let Some(conversation_id) = changes.conversation_id {
        query
            .push(", conversation_id = ")
            .push_bind(conversation_id);
    }
    query.push(" WHERE id = ").push_bind(id).push(tail);
    query.build_query_as().fetch_optional(conn).await
}

/// Gives the tickets the contacts `from` asked for to the contact `to` (an anonymous
/// visitor who signed in); the tickets as they now are.
pub async fn hand_over(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    from: &[Uuid],
    to: Uuid,
) -> sqlx::Result<Vec<Ticket>> {
    sqlx::query_as(schema.sql(&format!(
        "WITH t AS (UPDATE {{schema}}.tickets SET requester_id = $2, updated_at = now()
                     WHERE requester_id = ANY($1) RETURNING *)
         SELECT {COLUMNS} FROM t JOIN {{schema}}.contacts ct ON ct.id = t.requester_id"
    )))
    .bind(from)
    .bind(to)
    .fetch_all(conn)
    .await
}

/// Sends an agent's open and pending tickets back to the team (deactivation).
pub async fn release_assignee(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    agent_id: Uuid,
) -> sqlx::Result<Vec<Ticket>> {
    sqlx::query_as(schema.sql(&format!(
        "WITH t AS (UPDATE {{schema}}.tickets SET assignee_id = NULL, updated_at = now()
                     WHERE assignee_id = $1 AND status IN ('open', 'pending') RETURNING *)
         SELECT {COLUMNS} FROM t JOIN {{schema}}.contacts ct ON ct.id = t.requester_id"
    )))
    .bind(agent_id)
    .fetch_all(conn)
    .await
}
