//! Comments on a ticket: the team's running notes, oldest first. A comment keeps its author
//! after the author is deactivated.

use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::pagination::{Page, TimeKey};

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    pub id: Uuid,
    pub body: String,
    pub author_agent_id: Uuid,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

/// Adds a comment to ticket `ticket_id` (touching its `updatedAt`); `None` when there is no
/// such ticket.
pub async fn add(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    ticket_id: Uuid,
    body: &str,
    author: Uuid,
) -> sqlx::Result<Option<Comment>> {
    // Two statements on one tenant's tables (a data-modifying CTE is a plan Citus runs in
    // steps, shipping each step's rows to every worker node).
    let touched =
        sqlx::query(schema.sql("UPDATE {schema}.tickets SET updated_at = now() WHERE id = $1"))
            .bind(ticket_id)
            .execute(&mut *conn)
            .await?;
    if touched.rows_affected() == 0 {
        return Ok(None);
    }
    sqlx::query_as(schema.sql(
        "INSERT INTO {schema}.ticket_comments (ticket_id, body, author_agent_id)
         VALUES ($1, $2, $3)
         RETURNING id, body, author_agent_id, created_at",
    ))
    .bind(ticket_id)
    .bind(body)
    .bind(author)
    .fetch_optional(conn)
    .await
}

/// A page of a ticket's comments, oldest first, and the cursor of the next one.
pub async fn list(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    ticket_id: Uuid,
    page: &Page<TimeKey>,
) -> sqlx::Result<(Vec<Comment>, Option<String>)> {
    let (after_at, after_id) = page.after.map(|TimeKey(at, id)| (at, id)).unzip();
    let rows = sqlx::query_as(schema.sql(
        "SELECT id, body, author_agent_id, created_at FROM {schema}.ticket_comments
          WHERE ticket_id = $1
            AND ($2::timestamptz IS NULL OR (created_at, id) > ($2, $3))
          ORDER BY created_at, id
          LIMIT $4",
    ))
    .bind(ticket_id)
    .bind(after_at)
    .bind(after_id)
    .bind(page.fetch())
    .fetch_all(conn)
    .await?;
    Ok(page.finish(rows, |c: &Comment| TimeKey(c.created_at, c.id)))
}
