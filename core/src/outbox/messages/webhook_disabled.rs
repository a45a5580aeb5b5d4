//! The email telling an Owner that the product disabled one of their webhook endpoints (it
//! answered 410, or every delivery failed for five days), and why.

use sqlx::PgPool;
use uuid::Uuid;

use super::workspace;

#[derive(Debug, Clone)]
pub struct WebhookDisabled {
    pub email: String,
    pub full_name: String,
    pub workspace_name: String,
    pub url: String,
    pub reason: String,
}

/// The email for Owner `user_id`, while the endpoint is still disabled by the product and they
/// are still an active Owner of an active workspace.
pub async fn pending(
    db: &PgPool,
    workspace_id: Uuid,
    endpoint_id: Uuid,
    user_id: Uuid,
) -> sqlx::Result<Option<WebhookDisabled>> {
    let mut conn = db.acquire().await?;
    let Some(ws) = workspace::active(&mut conn, workspace_id).await? else {
        return Ok(None);
    };
    let owner = workspace::active_owner(&mut conn, workspace_id, user_id).await?;
    let Some((email, full_name)) = owner else {
        return Ok(None);
    };
    let endpoint: Option<(String, String)> = sqlx::query_as(ws.schema.sql(
        "SELECT url, disabled_reason FROM {schema}.webhook_endpoints
          WHERE id = $1 AND NOT enabled AND disabled_reason IS NOT NULL",
    ))
    .bind(endpoint_id)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(endpoint.map(|(url, reason)| WebhookDisabled {
        email,
        full_name,
        workspace_name: ws.name,
        url,
        reason,
    }))
}
