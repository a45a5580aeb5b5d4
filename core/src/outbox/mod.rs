//! The transactional outbox: work for the worker, written in the caller's transaction, and the
//! delivery state of that work.
//!
//! The API never talks to SMTP or to the job queue directly. A row here commits or rolls back
//! with the business change that caused it; the worker's relay hands committed rows to the
//! queue, and the delivering worker records each attempt's outcome back here. So an outage of
//! Redis or SMTP delays an email but never loses one, and operators inspect and revive failed
//! work with SQL-backed commands rather than by poking at queue internals.
//!
//! In the core crate because both processes use it: the API enqueues (and operators inspect
//! and revive), the worker relays, claims and records. `messages` reads what each kind of
//! email needs when it is sent.

pub mod messages;

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
    PasswordResetEmail,
    DropWorkspace,
    AgentDigestEmail,
    VisitorReplyEmail,
    ConversationEmail,
    MailboxFailingEmail,
    SmtpTestEmail,
    WebhookDisabledEmail,
    ReindexSearch,
    RatingRequestEmail,
}

impl MessageKind {
    pub const ALL: [Self; 12] = [
        Self::VerificationEmail,
        Self::InvitationEmail,
        Self::PasswordResetEmail,
        Self::DropWorkspace,
        Self::AgentDigestEmail,
        Self::VisitorReplyEmail,
        Self::ConversationEmail,
        Self::MailboxFailingEmail,
        Self::SmtpTestEmail,
        Self::WebhookDisabledEmail,
        Self::ReindexSearch,
        Self::RatingRequestEmail,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::VerificationEmail => "verification_email",
            Self::InvitationEmail => "invitation_email",
            Self::PasswordResetEmail => "password_reset_email",
            Self::DropWorkspace => "drop_workspace",
            Self::AgentDigestEmail => "agent_digest_email",
            Self::VisitorReplyEmail => "visitor_reply_email",
            Self::ConversationEmail => "conversation_email",
            Self::MailboxFailingEmail => "mailbox_failing_email",
            Self::SmtpTestEmail => "smtp_test_email",
            Self::WebhookDisabledEmail => "webhook_disabled_email",
            Self::ReindexSearch => "reindex_search",
            Self::RatingRequestEmail => "rating_request_email",
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
    /// The password-reset email for `public.password_resets` row `reset_id`.
    PasswordResetEmail { reset_id: Uuid },
    /// Drop the data of a workspace marked for deletion.
    DropWorkspace { workspace_id: Uuid },
    /// One email listing agent `agent_id`'s pending notices in workspace `workspace_id`
    /// (`messages::agent_digest`).
    AgentDigestEmail { workspace_id: Uuid, agent_id: Uuid },
    /// The replies a widget visitor has not seen, emailed to the address they left
    /// (`messages::visitor_reply`).
    VisitorReplyEmail {
        workspace_id: Uuid,
        conversation_id: Uuid,
    },
    /// An agent's reply on an email conversation (`messages::conversation_email`).
    ConversationEmail {
        workspace_id: Uuid,
        message_id: Uuid,
    },
    /// Tells Owner `user_id` that the workspace's IMAP mailbox refuses its login
    /// (`messages::mailbox_failing`).
    MailboxFailingEmail { workspace_id: Uuid, user_id: Uuid },
    /// A test email to Owner `user_id` through the workspace's outgoing mail server
    /// (`messages::workspace_smtp`).
    SmtpTestEmail { workspace_id: Uuid, user_id: Uuid },
    /// Tells Owner `user_id` that the product disabled webhook endpoint `endpoint_id`
    /// (`messages::webhook_disabled`).
    WebhookDisabledEmail {
        workspace_id: Uuid,
        endpoint_id: Uuid,
        user_id: Uuid,
    },
    /// Write the search index of every row of workspace `workspace_id` again, with its
    /// search language as it is now (`crate::search::reindex`).
    ReindexSearch { workspace_id: Uuid },
    /// Asks the customer of a resolved email conversation to rate it, with the links of
    /// tenant row `rating_requests.request_id` (`messages::rating_request`).
    RatingRequestEmail {
        workspace_id: Uuid,
        request_id: Uuid,
    },
}

impl OutboxMessage {
    pub fn kind(&self) -> MessageKind {
        match self {
            Self::VerificationEmail { .. } => MessageKind::VerificationEmail,
            Self::InvitationEmail { .. } => MessageKind::InvitationEmail,
            Self::PasswordResetEmail { .. } => MessageKind::PasswordResetEmail,
            Self::DropWorkspace { .. } => MessageKind::DropWorkspace,
            Self::AgentDigestEmail { .. } => MessageKind::AgentDigestEmail,
            Self::VisitorReplyEmail { .. } => MessageKind::VisitorReplyEmail,
            Self::ConversationEmail { .. } => MessageKind::ConversationEmail,
            Self::MailboxFailingEmail { .. } => MessageKind::MailboxFailingEmail,
            Self::SmtpTestEmail { .. } => MessageKind::SmtpTestEmail,
            Self::WebhookDisabledEmail { .. } => MessageKind::WebhookDisabledEmail,
            Self::ReindexSearch { .. } => MessageKind::ReindexSearch,
            Self::RatingRequestEmail { .. } => MessageKind::RatingRequestEmail,
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
            Self::PasswordResetEmail { reset_id } => {
                serde_json::json!({ "resetId": reset_id })
            }
            Self::DropWorkspace { workspace_id } | Self::ReindexSearch { workspace_id } => {
                serde_json::json!({ "workspaceId": workspace_id })
            }
            Self::AgentDigestEmail {
                workspace_id,
                agent_id,
            } => serde_json::json!({ "workspaceId": workspace_id, "agentId": agent_id }),
            Self::VisitorReplyEmail {
                workspace_id,
                conversation_id,
            } => serde_json::json!({
                "workspaceId": workspace_id,
                "conversationId": conversation_id,
            }),
            Self::ConversationEmail {
                workspace_id,
                message_id,
            } => serde_json::json!({ "workspaceId": workspace_id, "messageId": message_id }),
            Self::MailboxFailingEmail {
                workspace_id,
                user_id,
            }
            | Self::SmtpTestEmail {
                workspace_id,
                user_id,
            } => serde_json::json!({ "workspaceId": workspace_id, "userId": user_id }),
            Self::WebhookDisabledEmail {
                workspace_id,
                endpoint_id,
                user_id,
            } => serde_json::json!({
                "workspaceId": workspace_id,
                "endpointId": endpoint_id,
                "userId": user_id,
            }),
            Self::RatingRequestEmail {
                workspace_id,
                request_id,
            } => serde_json::json!({ "workspaceId": workspace_id, "requestId": request_id }),
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
            MessageKind::PasswordResetEmail => Some(Self::PasswordResetEmail {
                reset_id: id("resetId")?,
            }),
            MessageKind::DropWorkspace => Some(Self::DropWorkspace {
                workspace_id: id("workspaceId")?,
            }),
            MessageKind::ReindexSearch => Some(Self::ReindexSearch {
                workspace_id: id("workspaceId")?,
            }),
            MessageKind::AgentDigestEmail => Some(Self::AgentDigestEmail {
                workspace_id: id("workspaceId")?,
                agent_id: id("agentId")?,
            }),
            MessageKind::VisitorReplyEmail => Some(Self::VisitorReplyEmail {
                workspace_id: id("workspaceId")?,
                conversation_id: id("conversationId")?,
            }),
            MessageKind::ConversationEmail => Some(Self::ConversationEmail {
                workspace_id: id("workspaceId")?,
                message_id: id("messageId")?,
            }),
            MessageKind::MailboxFailingEmail => Some(Self::MailboxFailingEmail {
                workspace_id: id("workspaceId")?,
                user_id: id("userId")?,
            }),
            MessageKind::SmtpTestEmail => Some(Self::SmtpTestEmail {
                workspace_id: id("workspaceId")?,
                user_id: id("userId")?,
            }),
            MessageKind::WebhookDisabledEmail => Some(Self::WebhookDisabledEmail {
                workspace_id: id("workspaceId")?,
                endpoint_id: id("endpointId")?,
                user_id: id("userId")?,
            }),
            MessageKind::RatingRequestEmail => Some(Self::RatingRequestEmail {
                workspace_id: id("workspaceId")?,
                request_id: id("requestId")?,
            }),
        }
    }
}

/// Records `message` in the caller's transaction; it is relayed only if that commits.
pub async fn enqueue(tx: &mut PgConnection, message: &OutboxMessage) -> sqlx::Result<Uuid> {
    let id = Uuid::now_v7();
    sqlx::query!(
        "INSERT INTO public.outbox (id, kind, payload) VALUES ($1, $2, $3)",
        id,
        message.kind().as_str(),
        Json(message.payload()) as _,
    )
    .execute(tx)
    .await?;
    Ok(id)
}

/// A message handed to the queue, with the number of this hand-over.
#[derive(Debug, Clone)]
pub struct Due {
    pub id: Uuid,
    pub kind: MessageKind,
    pub relay: i32,
}

impl Due {
    /// The queue task's name: unique per hand-over, because `relays` is committed before the
    /// push (the queue silently ignores a push under a name it has seen).
    pub fn task_name(&self) -> String {
        format!("{}.{}", self.id, self.relay)
    }
}

/// Takes up to `limit` due messages of `kinds` for relaying (skipping rows another relay
/// holds) and marks them relayed. The caller commits, then pushes, then [`unrelay`]s any
/// push that failed; a crash in between strands rows only until [`reconcile_stranded`].
pub async fn take_due(
    tx: &mut PgConnection,
    limit: i64,
    kinds: &[MessageKind],
) -> sqlx::Result<Vec<Due>> {
    let kinds: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
    let rows = sqlx::query!(
        "WITH due AS (
             SELECT id FROM public.outbox
              WHERE relayed_at IS NULL AND outcome IS NULL AND available_at <= now()
                AND kind = ANY($2)
              ORDER BY available_at
              LIMIT $1
                FOR UPDATE SKIP LOCKED)
         UPDATE public.outbox o
            SET relayed_at = now(), relays = o.relays + 1
           FROM due
          WHERE o.id = due.id
      RETURNING o.id, o.kind, o.relays",
        limit,
        &kinds as &[&str],
    )
    .fetch_all(&mut *tx)
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|row| {
            Some(Due {
                id: row.id,
                kind: MessageKind::parse(&row.kind)?,
                relay: row.relays,
            })
        })
        .collect())
}

/// Puts messages whose push failed back in line for the relay.
pub async fn unrelay(db: impl PgExecutor<'_>, items: &[Due]) -> sqlx::Result<()> {
    let ids: Vec<Uuid> = items.iter().map(|d| d.id).collect();
    let relays: Vec<i32> = items.iter().map(|d| d.relay).collect();
    sqlx::query!(
        "UPDATE public.outbox o SET relayed_at = NULL
           FROM unnest($1::uuid[], $2::int[]) AS t(id, relay)
          WHERE o.id = t.id AND o.relays = t.relay AND o.outcome IS NULL",
        &ids,
        &relays,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Hands again to the queue every open message that was relayed more than `after` ago and is
/// not being attempted: its task was lost (Redis restarted without persistence, a relay
/// crashed between commit and push, the queue gave up on it). Stale tasks of the earlier
/// hand-over are skipped by their number. How many.
pub async fn reconcile_stranded(db: impl PgExecutor<'_>, after: Duration) -> sqlx::Result<u64> {
    let reset = sqlx::query!(
        "UPDATE public.outbox SET relayed_at = NULL
          WHERE outcome IS NULL AND relayed_at < now() - make_interval(secs => $1)
            AND (claimed_until IS NULL OR claimed_until < now())",
        after.as_secs_f64(),
    )
    .execute(db)
    .await?;
    Ok(reset.rows_affected())
}

/// When the next due message of one of `kinds` becomes due, if any is waiting (for the
/// relay's sleep); `None` when nothing waits. Only the kinds the relay takes count: a message
/// of a kind this binary does not know (written by a newer release during a rolling upgrade)
/// would otherwise be due at once, forever, and the relay would never sleep. (`min` over no
/// rows is NULL; the floor at zero is applied here, since SQL's `greatest` would turn that
/// NULL into 0 and an idle relay would never sleep.)
pub async fn next_due_in(
    db: impl PgExecutor<'_>,
    kinds: &[MessageKind],
) -> sqlx::Result<Option<Duration>> {
    let kinds: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
    let seconds: Option<f64> = sqlx::query_scalar(
        "SELECT extract(epoch FROM min(available_at) - now())::float8
           FROM public.outbox WHERE relayed_at IS NULL AND outcome IS NULL AND kind = ANY($1)",
    )
    .bind(&kinds)
    .fetch_one(db)
    .await?;
    Ok(seconds.map(|s| Duration::from_secs_f64(s.max(0.0))))
}

/// Extends the claim of attempt `number` at message `id` to `claim` from now, while it runs:
/// a long attempt (a workspace's deletion, a re-index) is then neither started again by
/// another worker nor handed to the queue again as stranded. False when the attempt is no
/// longer the row's (finished, or superseded).
pub async fn extend_claim(
    db: impl PgExecutor<'_>,
    id: Uuid,
    number: i32,
    claim: Duration,
) -> sqlx::Result<bool> {
    let extended = sqlx::query(
        "UPDATE public.outbox SET claimed_until = now() + make_interval(secs => $3)
          WHERE id = $1 AND attempts = $2 AND outcome IS NULL",
    )
    .bind(id)
    .bind(number)
    .bind(claim.as_secs_f64())
    .execute(db)
    .await?;
    Ok(extended.rows_affected() == 1)
}

/// One attempt in progress.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub id: Uuid,
    pub message: OutboxMessage,
    /// 1 for the first attempt.
    pub number: i32,
}

/// What trying to start an attempt found.
#[derive(Debug, Clone)]
pub enum Claim {
    Started(Attempt),
    /// Another worker's attempt is under way (until its claim expires).
    Busy,
    /// Nothing to do: finished, revived or re-relayed since (a stale task), or unknown.
    Nothing,
}

/// Starts attempt at message `id` for the task of hand-over `relay`, claiming the row for
/// `claim` so no other worker starts one meanwhile.
pub async fn begin_attempt(
    db: &sqlx::PgPool,
    id: Uuid,
    relay: i32,
    claim: Duration,
) -> sqlx::Result<Claim> {
    let row = sqlx::query!(
        "UPDATE public.outbox
            SET attempts = attempts + 1, claimed_until = now() + make_interval(secs => $3)
          WHERE id = $1 AND relays = $2 AND outcome IS NULL
            AND (claimed_until IS NULL OR claimed_until < now())
      RETURNING kind, payload, attempts",
        id,
        relay,
        claim.as_secs_f64(),
    )
    .fetch_optional(db)
    .await?;
    let Some(row) = row else {
        let busy = sqlx::query_scalar!(
            "SELECT claimed_until > now() FROM public.outbox
              WHERE id = $1 AND relays = $2 AND outcome IS NULL",
            id,
            relay,
        )
        .fetch_optional(db)
        .await?
        .flatten();
        return Ok(if busy == Some(true) {
            Claim::Busy
        } else {
            Claim::Nothing
        });
    };
    let (kind, payload, number) = (row.kind, row.payload, row.attempts);
    match OutboxMessage::from_row(&kind, &payload) {
        Some(message) => Ok(Claim::Started(Attempt {
            id,
            message,
            number,
        })),
        None => {
            let error = format!("unreadable {kind} payload");
            record(db, id, number, &Outcome::Dead { error }).await?;
            Ok(Claim::Nothing)
        }
    }
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

/// Records how attempt `number` at message `id` ended and releases the claim. An attempt
/// that is no longer the row's latest (it outlived its claim) records nothing.
pub async fn record(
    db: impl PgExecutor<'_>,
    id: Uuid,
    number: i32,
    outcome: &Outcome,
) -> sqlx::Result<()> {
    let (outcome_value, error, retry_in): (Option<&str>, Option<&str>, f64) = match outcome {
        Outcome::Done => (Some("done"), None, 0.0),
        Outcome::Skipped => (Some("skipped"), None, 0.0),
        Outcome::RetryScheduled { retry_in, error } => (None, Some(error), retry_in.as_secs_f64()),
        Outcome::Dead { error } => (Some("dead"), Some(error), 0.0),
    };
    sqlx::query!(
        "UPDATE public.outbox
            SET outcome = $3::text,
                finished_at = CASE WHEN $3::text IS NULL THEN NULL ELSE now() END,
                last_error = $4,
                claimed_until = NULL,
                relayed_at = CASE WHEN $3::text IS NULL THEN NULL ELSE relayed_at END,
                available_at = CASE WHEN $3::text IS NULL THEN now() + make_interval(secs => $5)
                                    ELSE available_at END
          WHERE id = $1 AND attempts = $2 AND outcome IS NULL",
        id,
        number,
        outcome_value,
        error,
        retry_in,
    )
    .execute(db)
    .await?;
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
    sqlx::query_as!(
        MessageSummary,
        "SELECT id, kind, attempts, outcome, last_error, created_at, finished_at
           FROM public.outbox
          WHERE CASE WHEN $1 THEN outcome = 'dead' ELSE outcome IS NULL OR outcome = 'dead' END
          ORDER BY created_at
          LIMIT $2",
        dead_only,
        limit,
    )
    .fetch_all(db)
    .await
}

/// Sends dead message `id` through the whole pipeline again, with a fresh set of attempts.
/// False when there is no such dead message.
pub async fn revive(db: impl PgExecutor<'_>, id: Uuid) -> sqlx::Result<bool> {
    let revived = sqlx::query!(
        "UPDATE public.outbox
            SET outcome = NULL, finished_at = NULL, attempts = 0, relayed_at = NULL,
                claimed_until = NULL, available_at = now()
          WHERE id = $1 AND outcome = 'dead'",
        id,
    )
    .execute(db)
    .await?;
    Ok(revived.rows_affected() == 1)
}

/// Revives every dead message; how many.
pub async fn revive_all_dead(db: impl PgExecutor<'_>) -> sqlx::Result<u64> {
    let revived = sqlx::query(
        "UPDATE public.outbox
            SET outcome = NULL, finished_at = NULL, attempts = 0, relayed_at = NULL,
                claimed_until = NULL, available_at = now()
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
