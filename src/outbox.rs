//! The transactional outbox: work for the worker, written in the caller's transaction, and the
//! delivery state of that work.
//!
//! The API never talks to SMTP or to the job queue directly. A row here commits or rolls back
//! with the business change that caused it; the worker's relay hands committed rows to the
//! queue, and the delivering worker records each attempt's outcome back here. So an outage of
//! Redis or SMTP delays an email but never loses one, and operators inspect and revive failed
//! work with SQL-backed commands rather than by poking at queue internals.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use sqlx::types::Json;
use sqlx::{FromRow, PgConnection, PgExecutor};
use time::OffsetDateTime;
use uuid::Uuid;

/// The kinds of work the outbox carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    VerificationEmail,
    InvitationEmail,
    DropWorkspace,
}

impl MessageKind {
    pub const ALL: [Self; 3] = [
        Self::VerificationEmail,
        Self::InvitationEmail,
        Self::DropWorkspace,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::VerificationEmail => "verification_email",
            Self::InvitationEmail => "invitation_email",
            Self::DropWorkspace => "drop_workspace",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == value)
    }
}

/// A message and the row it refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutboxMessage {
    /// The verification email for `public.email_verifications` row `verification_id`.
    VerificationEmail { verification_id: Uuid },
    /// The invitation email for `public.invitations` row `invitation_id`.
    InvitationEmail { invitation_id: Uuid },
    /// Drop the data of a workspace marked for deletion.
    DropWorkspace { workspace_id: Uuid },
}

impl OutboxMessage {
    pub fn kind(&self) -> MessageKind {
        match self {
            Self::VerificationEmail { .. } => MessageKind::VerificationEmail,
            Self::InvitationEmail { .. } => MessageKind::InvitationEmail,
            Self::DropWorkspace { .. } => MessageKind::DropWorkspace,
        }
    }

    fn payload(&self) -> serde_json::Value {
        match self {
            Self::VerificationEmail { verification_id } => {
                serde_json::json!({ "verificationId": verification_id })
            }
            Self::InvitationEmail { invitation_id } => {
                serde_json::json!({ "invitationId": invitation_id })
            }
            Self::DropWorkspace { workspace_id } => {
                serde_json::json!({ "workspaceId": workspace_id })
            }
        }
    }

    fn from_row(kind: &str, payload: &serde_json::Value) -> Option<Self> {
        let id = |field: &str| payload.get(field)?.as_str()?.parse::<Uuid>().ok();
        match MessageKind::parse(kind)? {
            MessageKind::VerificationEmail => Some(Self::VerificationEmail {
                verification_id: id("verificationId")?,
            }),
            MessageKind::InvitationEmail => Some(Self::InvitationEmail {
                invitation_id: id("invitationId")?,
            }),
            MessageKind::DropWorkspace => Some(Self::DropWorkspace {
                workspace_id: id("workspaceId")?,
            }),
        }
    }
}

/// Records `message` in the caller's transaction; it is relayed only if that commits.
pub async fn enqueue(tx: &mut PgConnection, message: &OutboxMessage) -> sqlx::Result<Uuid> {
    let id = Uuid::now_v7();
    sqlx::query("INSERT INTO public.outbox (id, kind, payload) VALUES ($1, $2, $3)")
        .bind(id)
        .bind(message.kind().as_str())
        .bind(Json(message.payload()))
        .execute(tx)
        .await?;
    Ok(id)
}

/// A message due for the queue, named for this hand-over.
#[derive(Debug, Clone)]
pub struct Due {
    pub id: Uuid,
    pub kind: MessageKind,
    /// Unique per deliberate hand-over, stable across a relay that crashed before committing.
    pub task_name: String,
}

/// Locks up to `limit` due messages for relaying (skipping rows another relay holds) and marks
/// them relayed; the caller pushes them to the queue and commits only if every push succeeded.
pub async fn take_due(tx: &mut PgConnection, limit: i64) -> sqlx::Result<Vec<Due>> {
    let rows: Vec<(Uuid, String, i32)> = sqlx::query_as(
        "WITH due AS (
             SELECT id FROM public.outbox
              WHERE relayed_at IS NULL AND outcome IS NULL AND available_at <= now()
              ORDER BY available_at
              LIMIT $1
                FOR UPDATE SKIP LOCKED)
         UPDATE public.outbox o
            SET relayed_at = now(), relays = o.relays + 1
           FROM due
          WHERE o.id = due.id
      RETURNING o.id, o.kind, o.relays",
    )
    .bind(limit)
    .fetch_all(&mut *tx)
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, kind, relays)| {
            let kind = MessageKind::parse(&kind).or_else(|| {
                tracing::error!(%id, kind, "outbox row of an unknown kind left in place");
                None
            })?;
            Some(Due {
                id,
                kind,
                task_name: format!("{id}.{relays}"),
            })
        })
        .collect())
}

/// When the next due message becomes due, if any is waiting (for the relay's sleep).
pub async fn next_due_in(db: impl PgExecutor<'_>) -> sqlx::Result<Option<Duration>> {
    let seconds: Option<f64> = sqlx::query_scalar(
        "SELECT greatest(0, extract(epoch FROM min(available_at) - now()))::float8
           FROM public.outbox WHERE relayed_at IS NULL AND outcome IS NULL",
    )
    .fetch_one(db)
    .await?;
    Ok(seconds.map(Duration::from_secs_f64))
}

/// One delivery attempt in progress.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub id: Uuid,
    pub message: OutboxMessage,
    /// 1 for the first attempt.
    pub number: i32,
}

/// Counts an attempt at delivering message `id`; `None` when it needs no delivery (already
/// sent, skipped or dead, or unknown).
pub async fn begin_attempt(db: impl PgExecutor<'_>, id: Uuid) -> sqlx::Result<Option<Attempt>> {
    let row: Option<(String, Json<serde_json::Value>, i32)> = sqlx::query_as(
        "UPDATE public.outbox SET attempts = attempts + 1
          WHERE id = $1 AND outcome IS NULL
      RETURNING kind, payload, attempts",
    )
    .bind(id)
    .fetch_optional(db)
    .await?;
    Ok(row.and_then(|(kind, Json(payload), number)| {
        let message = OutboxMessage::from_row(&kind, &payload).or_else(|| {
            tracing::error!(%id, kind, "outbox row with an unreadable payload");
            None
        })?;
        Some(Attempt {
            id,
            message,
            number,
        })
    }))
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Delivered (an email) or carried out (other work).
    Done,
    /// Nothing to send any more (the token was used, voided or expired first).
    Skipped,
    /// Failed for now; handed to the queue again after `retry_in`.
    RetryScheduled {
        #[serde(with = "serde_secs")]
        retry_in: Duration,
        error: String,
    },
    /// Given up on; an operator can revive it.
    Dead { error: String },
}

/// A duration as (fractional) seconds.
mod serde_secs {
    use serde::Deserialize;
    use std::time::Duration;

    pub fn serialize<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let secs = f64::deserialize(d)?;
        Duration::try_from_secs_f64(secs).map_err(serde::de::Error::custom)
    }
}

pub async fn record(db: impl PgExecutor<'_>, id: Uuid, outcome: &Outcome) -> sqlx::Result<()> {
    let query = match outcome {
        Outcome::Done => sqlx::query(
            "UPDATE public.outbox SET outcome = 'done', finished_at = now(), last_error = NULL
              WHERE id = $1",
        )
        .bind(id),
        Outcome::Skipped => sqlx::query(
            "UPDATE public.outbox SET outcome = 'skipped', finished_at = now() WHERE id = $1",
        )
        .bind(id),
        Outcome::RetryScheduled { retry_in, error } => sqlx::query(
            "UPDATE public.outbox
                SET relayed_at = NULL, last_error = $2,
                    available_at = now() + make_interval(secs => $3)
              WHERE id = $1 AND outcome IS NULL",
        )
        .bind(id)
        .bind(error.clone())
        .bind(retry_in.as_secs_f64()),
        Outcome::Dead { error } => sqlx::query(
            "UPDATE public.outbox SET outcome = 'dead', finished_at = now(), last_error = $2
              WHERE id = $1",
        )
        .bind(id)
        .bind(error.clone()),
    };
    query.execute(db).await?;
    Ok(())
}

/// A message as operators see it.
#[derive(Debug, Clone, Serialize, FromRow)]
#[serde(rename_all = "camelCase")]
pub struct MessageSummary {
    pub id: Uuid,
    pub kind: String,
    pub attempts: i32,
    pub outcome: Option<String>,
    pub last_error: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub finished_at: Option<OffsetDateTime>,
}

/// Dead messages (or, with `dead_only` false, everything not yet delivered too), oldest first.
pub async fn list(
    db: impl PgExecutor<'_>,
    dead_only: bool,
    limit: i64,
) -> sqlx::Result<Vec<MessageSummary>> {
    sqlx::query_as(
        "SELECT id, kind, attempts, outcome, last_error, created_at, finished_at
           FROM public.outbox
          WHERE CASE WHEN $1 THEN outcome = 'dead' ELSE outcome IS NULL OR outcome = 'dead' END
          ORDER BY created_at
          LIMIT $2",
    )
    .bind(dead_only)
    .bind(limit)
    .fetch_all(db)
    .await
}

/// Sends dead message `id` through the whole pipeline again, with a fresh set of attempts.
/// False when there is no such dead message.
pub async fn revive(db: impl PgExecutor<'_>, id: Uuid) -> sqlx::Result<bool> {
    let revived = sqlx::query(
        "UPDATE public.outbox
            SET outcome = NULL, finished_at = NULL, attempts = 0, relayed_at = NULL,
                available_at = now()
          WHERE id = $1 AND outcome = 'dead'",
    )
    .bind(id)
    .execute(db)
    .await?;
    Ok(revived.rows_affected() == 1)
}

/// Revives every dead message; how many.
pub async fn revive_all_dead(db: impl PgExecutor<'_>) -> sqlx::Result<u64> {
    let revived = sqlx::query(
        "UPDATE public.outbox
            SET outcome = NULL, finished_at = NULL, attempts = 0, relayed_at = NULL,
                available_at = now()
          WHERE outcome = 'dead'",
    )
    .execute(db)
    .await?;
    Ok(revived.rows_affected())
}

/// Messages not yet delivered, dead ones apart, by kind (for the worker's metrics).
pub async fn backlog(db: impl PgExecutor<'_>) -> sqlx::Result<Vec<(String, i64, i64)>> {
    sqlx::query_as(
        "SELECT kind,
                count(*) FILTER (WHERE outcome IS NULL),
                count(*) FILTER (WHERE outcome = 'dead')
           FROM public.outbox
          WHERE outcome IS NULL OR outcome = 'dead'
          GROUP BY kind",
    )
    .fetch_all(db)
    .await
}

/// Deletes delivered (or skipped) messages finished more than `retention` ago; how many.
pub async fn purge_finished(db: impl PgExecutor<'_>, retention: Duration) -> sqlx::Result<u64> {
    let purged = sqlx::query(
        "DELETE FROM public.outbox
          WHERE outcome IN ('done', 'skipped')
            AND finished_at < now() - make_interval(secs => $1)",
    )
    .bind(retention.as_secs_f64())
    .execute(db)
    .await?;
    Ok(purged.rows_affected())
}
