//! The email asking the customer of a resolved email conversation to rate it: five links to
//! the widget app's rating page, one per score, each carrying the request's token.
//!
//! The API writes the request (`rating_requests`, one per resolution) and queues this email in
//! the resolving transaction; the worker reads it here and sends nothing when it is no longer
//! worth asking (the workspace is gone, the conversation was reopened, it is rated already,
//! the links have expired, the contact has no address).

use sqlx::PgPool;
use time::OffsetDateTime;
use uuid::Uuid;

use super::workspace::{self, Workspace};
use crate::email_tokens::{EmailTokenKey, Purpose};
use crate::tenancy::TenantSchema;

/// How long the links can be used.
pub const LINKS_VALID_FOR: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// The email to send. Its `Debug` leaves the token out: it is a live credential.
#[derive(Clone)]
pub struct RatingRequest {
    pub email: String,
    pub name: Option<String>,
    /// The team as the workspace's branding names it, else the workspace's name.
    pub team: String,
    pub brand_color: Option<String>,
    pub number: i64,
    pub subject: Option<String>,
    pub workspace_id: Uuid,
    pub schema: TenantSchema,
    pub conversation_id: Uuid,
    pub token: String,
    pub expires_at: OffsetDateTime,
}

impl std::fmt::Debug for RatingRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RatingRequest")
            .field("number", &self.number)
            .field("workspace_id", &self.workspace_id)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

impl RatingRequest {
    /// The rating page's link for `score`, under the widget app at `widget_url`.
    pub fn link(&self, widget_url: &str, score: u8) -> String {
        format!(
            "{widget_url}/rate?w={}&t={}&r={score}",
            self.workspace_id, self.token
        )
    }
}

/// Request `request_id` of workspace `workspace_id`, if it is still worth sending.
pub async fn load(
    db: &PgPool,
    key: &EmailTokenKey,
    workspace_id: Uuid,
    request_id: Uuid,
) -> sqlx::Result<Option<RatingRequest>> {
    let mut conn = db.acquire().await?;
    let Some(Workspace { name, schema }) = workspace::active(&mut conn, workspace_id).await? else {
        return Ok(None);
    };
    type Row = (
        Uuid,
        Vec<u8>,
        OffsetDateTime,
        i64,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    );
    let row: Option<Row> = sqlx::query_as(schema.sql(
        "SELECT r.conversation_id, r.nonce, r.expires_at, c.number, c.subject, ct.email, ct.name,
                s.branding->>'name', s.branding->>'color'
           FROM {schema}.rating_requests r
           JOIN {schema}.conversations c ON c.id = r.conversation_id
           JOIN {schema}.contacts ct ON ct.id = c.contact_id
           LEFT JOIN {schema}.settings s ON true
          WHERE r.id = $1 AND r.rating_id IS NULL AND r.expires_at > now()
            AND c.status = 'resolved' AND c.resolved_at = r.resolved_at
            AND NOT EXISTS (SELECT 1 FROM {schema}.conversation_ratings cr
                             WHERE cr.conversation_id = c.id AND cr.resolved_at = r.resolved_at)",
    ))
    .bind(request_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((
        conversation_id,
        nonce,
        expires_at,
        number,
        subject,
        Some(email),
        contact_name,
        brand,
        color,
    )) = row
    else {
        return Ok(None);
    };
    Ok(Some(RatingRequest {
        email,
        name: contact_name,
        team: workspace::team_name(brand, name),
        brand_color: color,
        number,
        subject,
        workspace_id,
        schema,
        conversation_id,
        token: key.token_for(Purpose::RatingRequest, &nonce),
        expires_at,
    }))
}
