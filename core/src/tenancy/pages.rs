//! Passes over every workspace (the worker's retention, the API's sweep for events left
//! waiting) read the control plane a page at a time, never all schemas at once.

use sqlx::PgPool;
use uuid::Uuid;

/// Up to `limit` workspaces after `after` in id order, each with its schema's name as
/// stored (the caller parses it): the next page starts after the last id of this one.
pub async fn workspaces_after(
    db: &PgPool,
    after: Uuid,
    limit: i64,
) -> sqlx::Result<Vec<(Uuid, String)>> {
    sqlx::query_as(
        "SELECT id, schema_name FROM public.workspaces WHERE id > $1 ORDER BY id LIMIT $2",
    )
    .bind(after)
    .bind(limit)
    .fetch_all(db)
    .await
}
