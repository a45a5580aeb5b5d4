//! Dropping a deleted workspace's data. The API marks a workspace `deleting` and queues an
//! outbox message in the same transaction; the worker carries it out here, outside any request.
//!
//! Its files go first, in bounded batches (`storage::delete_workspace_objects`), while the row
//! still says `deleting`: a worker killed half-way leaves the row and the outbox message, and
//! the retry asks the store what is left and carries on. Then the schema and the row; then one
//! more sweep of the store, for an upload that was finishing as the workspace went.

use object_store::ObjectStore;
use sqlx::PgPool;
use uuid::Uuid;

use crate::storage;
use crate::tenancy::TenantSchema;

/// Deletes a workspace marked for deletion: its files, then its data. Safe to repeat; false
/// when there was nothing to drop.
pub async fn delete_workspace(
    db: &PgPool,
    store: &dyn ObjectStore,
    batch: usize,
    workspace_id: Uuid,
) -> anyhow::Result<bool> {
    let deleting: Option<bool> =
        sqlx::query_scalar("SELECT status = 'deleting' FROM public.workspaces WHERE id = $1")
            .bind(workspace_id)
            .fetch_optional(db)
            .await?;
    if deleting != Some(true) {
        return Ok(false);
    }
    let files = storage::delete_workspace_objects(store, workspace_id, batch).await?;
    let dropped = drop_workspace(db, workspace_id).await?;
    let late = storage::delete_workspace_objects(store, workspace_id, batch).await?;
    tracing::info!(%workspace_id, files = files + late, "workspace deleted");
    Ok(dropped)
}

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
