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

/// The team's name as customers see it: the branding's name, else the workspace's.
pub fn team_name(brand: Option<String>, workspace: String) -> String {
    brand.filter(|b| !b.trim().is_empty()).unwrap_or(workspace)
}

/// Owner `user_id` of workspace `workspace_id`, while they are an active Owner: their email
/// and full name (who an Owner's email about the workspace goes to).
pub async fn active_owner(
    conn: &mut PgConnection,
    workspace_id: Uuid,
    user_id: Uuid,
) -> sqlx::Result<Option<(String, String)>> {
    sqlx::query_as(
        "SELECT u.email, u.full_name
           FROM public.memberships ms JOIN public.users u ON u.id = ms.user_id
          WHERE ms.workspace_id = $1 AND ms.user_id = $2 AND ms.role = 'admin'
            AND ms.status = 'active'",
    )
    .bind(workspace_id)
    .bind(user_id)
    .fetch_optional(conn)
    .await
}
