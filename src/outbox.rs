//! The transactional outbox: work for the worker, written in the caller's transaction.
//!
//! The API never talks to SMTP or to the job queue directly. A row here commits or rolls back
//! with the business change that caused it, and the worker's relay moves committed rows onto
//! the queue, so an outage of Redis or SMTP delays an email but never loses one.

use sqlx::PgConnection;
use sqlx::types::Json;
use uuid::Uuid;

/// The kinds of work the outbox carries, with their payloads.
#[derive(Debug, Clone)]
pub enum OutboxMessage {
    /// Send the verification email for `public.email_verifications` row `verification_id`.
    VerificationEmail { verification_id: Uuid },
}

impl OutboxMessage {
    fn kind(&self) -> &'static str {
        match self {
            Self::VerificationEmail { .. } => "verification_email",
        }
    }

    fn payload(&self) -> serde_json::Value {
        match self {
            Self::VerificationEmail { verification_id } => {
                serde_json::json!({ "verificationId": verification_id })
            }
        }
    }
}

/// Records `message` in the caller's transaction; it is relayed only if that commits.
pub async fn enqueue(tx: &mut PgConnection, message: &OutboxMessage) -> sqlx::Result<Uuid> {
    let id = Uuid::now_v7();
    sqlx::query("INSERT INTO public.outbox (id, kind, payload) VALUES ($1, $2, $3)")
        .bind(id)
        .bind(message.kind())
        .bind(Json(message.payload()))
        .execute(tx)
        .await?;
    Ok(id)
}
