//! Dropping a deleted workspace's data. The API marks a workspace `deleting` and queues an
//! outbox message in the same transaction; the worker carries it out here, outside any request.

use sqlx::PgPool;
use uuid::Uuid;

use crate::tenancy::TenantSchema;

/// Drops the data of a workspace marked for deletion: its schema, then its row (memberships
/// and invitations go with it). Safe to repeat; false when there was nothing to drop.
pub async fn drop_workspace(db: &PgPool, workspace_id: Uuid) -> sqlx::Result<bool> {
    let mut tx = crate::db::begin(db, None).await?;
    let schema = sqlx::query_scalar!(
        "SELECT schema_name FROM public.workspaces WHERE id = $1 AND status = 'deleting' FOR UPDATE",
        workspace_id,
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some(schema) = schema else {
        return Ok(false);
    };
    let schema = TenantSchema::parse(&schema).map_err(|e| sqlx::Error::Decode(e.into()))?;
    sqlx::query!("SELECT pg_advisory_xact_lock($1)", schema.lock_key())
        .execute(&mut *tx)
        .await?;
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "DROP SCHEMA IF EXISTS {} CASCADE",
        schema.quoted()
    )))
    .execute(&mut *tx)
    .await?;
    sqlx::query!("DELETE FROM public.workspaces WHERE id = $1", workspace_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}
