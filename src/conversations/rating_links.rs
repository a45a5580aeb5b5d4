//! CSAT by email: when an agent resolves an email conversation, its customer is emailed five
//! links to the widget app's rating page (`/rate?w=...&t=...&r=1..5`), one per score.
//!
//! A link carries the workspace and a token (`rating_requests`, one per resolution): opening
//! one rates that resolution once, within 7 days, and may add a comment to the rating it
//! made; a used, expired or foreign link is refused. The token is the only credential, so it
//! is an HMAC of a random nonce (`supportdesk_core::email_tokens`), found again by its hash:
//! the database never holds a usable link.

use sqlx::PgConnection;
use supportdesk_core::email_tokens::{EmailTokenKey, Purpose, new_nonce, token_hash};
use supportdesk_core::outbox::messages::rating_request::LINKS_VALID_FOR;
use supportdesk_core::outbox::{self, OutboxMessage};
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use uuid::Uuid;

use super::ratings;
use super::record::{Channel, Conversation, ConversationStatus};

/// Asks the customer of `conversation` (just resolved) to rate it by email, when it is an
/// email conversation with an address, the workspace asks for ratings, and this resolution
/// has not been asked about yet. In the resolving transaction.
pub async fn request(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    key: &EmailTokenKey,
    workspace_id: Uuid,
    conversation: &Conversation,
) -> sqlx::Result<()> {
    let (ConversationStatus::Resolved, Channel::Email, Some(resolved_at), Some(_)) = (
        conversation.status,
        conversation.channel,
        conversation.resolved_at,
        conversation.contact.email.as_deref(),
    ) else {
        return Ok(());
    };
    let nonce = new_nonce();
    let token = key.token_for(Purpose::RatingRequest, &nonce);
    let requested: Option<Uuid> = sqlx::query_scalar(schema.sql(&format!(
        "INSERT INTO {{schema}}.rating_requests
                (conversation_id, resolved_at, nonce, token_hash, expires_at)
         SELECT $1, $2, $3, $4, $5
           FROM {{schema}}.settings s WHERE {asks}
         ON CONFLICT ON CONSTRAINT rating_requests_once_per_resolution DO NOTHING
         RETURNING id",
        asks = ratings::ASKS,
    )))
    .bind(conversation.id)
    .bind(resolved_at)
    .bind(&nonce[..])
    .bind(token_hash(&token))
    .bind(OffsetDateTime::now_utc() + LINKS_VALID_FOR)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(request_id) = requested {
        let message = OutboxMessage::RatingRequestEmail {
            workspace_id,
            request_id,
        };
        outbox::enqueue(conn, &message).await?;
    }
    Ok(())
}

/// A rating link as found by its token, locked.
#[derive(Debug, sqlx::FromRow)]
pub struct Link {
    pub id: Uuid,
    pub conversation_id: Uuid,
    pub resolved_at: OffsetDateTime,
    pub expired: bool,
    /// The rating the link made, if it was used.
    pub rating_id: Option<Uuid>,
    pub conversation_number: i64,
    pub contact_id: Uuid,
    /// Whether the conversation is still resolved as it was when the link was sent.
    pub still_resolved: bool,
}

/// The link whose token is `token`, locked with its conversation; `None` for no such link.
pub async fn find(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    token: &str,
) -> sqlx::Result<Option<Link>> {
    sqlx::query_as(schema.sql(
        "SELECT r.id, r.conversation_id, r.resolved_at, r.expires_at <= now() AS expired,
                r.rating_id, c.number AS conversation_number, c.contact_id,
                (c.status = 'resolved' AND c.resolved_at = r.resolved_at) AS still_resolved
           FROM {schema}.rating_requests r
           JOIN {schema}.conversations c ON c.id = r.conversation_id
          WHERE r.token_hash = $1
            FOR UPDATE",
    ))
    .bind(token_hash(token))
    .fetch_optional(conn)
    .await
}

/// Marks `link` used by rating `rating_id`.
pub async fn used(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    link: Uuid,
    rating_id: Uuid,
) -> sqlx::Result<()> {
    sqlx::query(schema.sql("UPDATE {schema}.rating_requests SET rating_id = $2 WHERE id = $1"))
        .bind(link)
        .bind(rating_id)
        .execute(conn)
        .await?;
    Ok(())
}
