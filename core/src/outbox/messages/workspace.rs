//! The workspace a tenant email is about, as its emails name it.

use sqlx::PgConnection;
use uuid::Uuid;

use crate::tenancy::TenantSchema;

#[derive(Debug, Clone)]
pub struct Workspace {
    pub name: String,
    pub schema: TenantSchema,
}

/// Workspace `id` and its schema, if it is active (a deleted one gets no more emails).
pub async fn active(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<Option<Workspace>> {
    let row: Option<(String, String)> = sqlx::query_as(
        "SELECT name, schema_name FROM public.workspaces WHERE id = $1 AND status = 'active'",
    )
    .bind(id)
    .fetch_optional(conn)
    .await?;
    row.map(|(name, schema)| {
        Ok(Workspace {
            name,
            schema: TenantSchema::parse(&schema).map_err(|e| sqlx::Error::Decode(e.into()))?,
        })
    })
    .transpose()
}
