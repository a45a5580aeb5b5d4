//! `POST /api/conversations/{id}/read`: what each agent has read. Incoming messages after an
//! agent's read mark are unread for them (`Conversation.unreadCount`); an agent who never
//! opened a conversation has read what came before they joined. Marks only move forward, so
//! a slow request from another tab cannot make read messages unread again.

use axum::http::StatusCode;
use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use uuid::Uuid;

use crate::conversations::record::Conversation;
use crate::error::responses::MemberErrors;
use crate::error::{Error, Result};
use crate::extract::PathId;
use crate::tenancy::context::Tenant;

/// Moves the read mark of the member `user_id` on conversation `id` to now; `false` when
/// there is no such conversation.
async fn mark_read(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
    user_id: Uuid,
) -> sqlx::Result<bool> {
    // The reader and the conversation first, then the mark: an `INSERT ... SELECT` over the
    // tenant's tables that writes `now()` is a plan Citus 13.2 deparses wrongly.
    let agent: Option<Uuid> = sqlx::query_scalar(schema.sql(
        "SELECT a.id FROM {schema}.agent_profiles a
          WHERE a.user_id = $2 AND EXISTS (SELECT 1 FROM {schema}.conversations c WHERE c.id = $1)",
    ))
    .bind(id)
    .bind(user_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(agent) = agent else {
        return Ok(false);
    };
    let marked = sqlx::query(schema.sql(
        "INSERT INTO {schema}.conversation_reads AS r (conversation_id, agent_id, read_at)
         VALUES ($1, $2, now())
         ON CONFLICT (conversation_id, agent_id)
            DO UPDATE SET read_at = greatest(r.read_at, EXCLUDED.read_at)",
    ))
    .bind(id)
    .bind(agent)
    .execute(conn)
    .await?;
    Ok(marked.rows_affected() == 1)
}

/// Mark the conversation read by you: its incoming messages so far no longer count as unread.
#[utoipa::path(
    post, path = "/api/conversations/{id}/read", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Conversation id")),
    responses(
        (status = 204, description = "Marked read"),
        MemberErrors,
    )
)]
pub async fn read(
    PathId { id, .. }: PathId<Conversation>,
    mut tenant: Tenant,
) -> Result<StatusCode> {
    let user_id = tenant.actor.member_id()?;
    let (conn, schema) = tenant.parts();
    if mark_read(conn, schema, id, user_id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(Error::NotFound("conversation"))
    }
}
