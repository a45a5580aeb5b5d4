//! Carrying out one outbox message: the handler every queue task runs. Mostly email
//! delivery; also dropping the data of deleted workspaces.
//!
//! Each task is one attempt. The attempt is counted on the outbox row before sending, the
//! outcome recorded after, and the row (not the queue) decides what happens next: a transient
//! failure schedules the next attempt with exponential backoff, a permanent refusal or the last
//! attempt makes the message dead. Only when PostgreSQL itself fails does the handler return an
//! error, and then the queue's own redelivery runs it again.
//!
//! Sent once in normal operation: a message already marked sent is skipped, and the
//! Message-ID is derived from the row. A duplicate needs a crash between the SMTP server
//! accepting the message and the row being marked.

use std::sync::Arc;
use std::time::Instant;

use apalis::prelude::{BoxDynError, Data};
use sqlx::PgPool;
use supportdesk::auth::verification;
use supportdesk::email_tokens::EmailTokenKey;
use supportdesk::invitations;
use supportdesk::outbox::{self, Attempt, OutboxMessage, Outcome};
use supportdesk::workspaces::provision::drop_workspace;

use crate::email::render::{Email, Renderer};
use crate::email::transport::Mailer;
use crate::queues::OutboxTask;
use crate::settings::WorkerSettings;

pub struct Deliverer {
    pub db: PgPool,
    pub tokens: EmailTokenKey,
    pub renderer: Renderer,
    pub mailer: Mailer,
    pub settings: WorkerSettings,
}

/// The apalis handler.
pub async fn deliver(
    task: OutboxTask,
    deliverer: Data<Arc<Deliverer>>,
) -> Result<Outcome, BoxDynError> {
    Ok(deliverer.attempt(task).await?)
}

impl Deliverer {
    pub async fn attempt(&self, task: OutboxTask) -> anyhow::Result<Outcome> {
        let Some(attempt) = outbox::begin_attempt(&self.db, task.outbox_id).await? else {
            // Already sent, skipped or dead (a redelivered or revived duplicate task).
            return Ok(Outcome::Skipped);
        };
        let kind = attempt.message.kind().as_str();
        if let OutboxMessage::DropWorkspace { workspace_id } = attempt.message {
            let dropped = drop_workspace(&self.db, workspace_id)
                .await
                .map_err(|e| anyhow::anyhow!("dropping workspace {workspace_id}: {e}"))?;
            tracing::info!(%workspace_id, dropped, "deleted workspace's data dropped");
            outbox::record(&self.db, attempt.id, &Outcome::Done).await?;
            return Ok(Outcome::Done);
        }
        let outcome = match self.render(&attempt).await? {
            None => Outcome::Skipped,
            Some(email) => {
                let message = self.renderer.message(attempt.id, email)?;
                let started = Instant::now();
                let sent = self.mailer.send(message).await;
                metrics::histogram!("email_send_duration_seconds", "kind" => kind)
                    .record(started.elapsed().as_secs_f64());
                match sent {
                    Ok(()) => Outcome::Done,
                    Err(err) if err.permanent => Outcome::Dead { error: err.message },
                    Err(err) if attempt.number >= self.settings.max_attempts => Outcome::Dead {
                        error: format!("{} (after {} attempts)", err.message, attempt.number),
                    },
                    Err(err) => Outcome::RetryScheduled {
                        retry_in: self.settings.backoff(attempt.number),
                        error: err.message,
                    },
                }
            }
        };
        outbox::record(&self.db, attempt.id, &outcome).await?;
        match &outcome {
            Outcome::Done => {
                metrics::counter!("emails_sent_total", "kind" => kind).increment(1);
                tracing::info!(outbox_id = %attempt.id, kind, attempt = attempt.number, "email sent");
            }
            Outcome::Skipped => {
                tracing::info!(outbox_id = %attempt.id, kind, "email no longer needed; skipped");
            }
            Outcome::RetryScheduled { retry_in, error } => {
                metrics::counter!("email_attempts_failed_total", "kind" => kind).increment(1);
                tracing::warn!(outbox_id = %attempt.id, kind, attempt = attempt.number,
                    retry_in_secs = retry_in.as_secs_f64(), error, "email attempt failed; will retry");
            }
            Outcome::Dead { error } => {
                metrics::counter!("email_attempts_failed_total", "kind" => kind).increment(1);
                metrics::counter!("emails_dead_total", "kind" => kind).increment(1);
                tracing::error!(outbox_id = %attempt.id, kind, attempt = attempt.number, error,
                    "email is dead; `supportdesk jobs retry` revives it");
            }
        }
        Ok(outcome)
    }

    /// The email for this message, or `None` when there is nothing left to send (the token was
    /// used, replaced or expired before we got to it).
    async fn render(&self, attempt: &Attempt) -> anyhow::Result<Option<Email>> {
        Ok(match attempt.message {
            OutboxMessage::VerificationEmail { verification_id } => {
                match verification::pending(&self.db, &self.tokens, verification_id).await? {
                    None => None,
                    Some(p) => Some(self.renderer.verification(
                        &p.email,
                        &p.full_name,
                        &p.token,
                    )?),
                }
            }
            OutboxMessage::InvitationEmail { invitation_id } => {
                match invitations::pending(&self.db, &self.tokens, invitation_id).await? {
                    None => None,
                    Some(p) => Some(self.renderer.invitation(
                        &p.email,
                        p.inviter_name.as_deref(),
                        &p.workspace_name,
                        p.role,
                        &p.token,
                        p.expires_at,
                    )?),
                }
            }
            OutboxMessage::DropWorkspace { .. } => None,
        })
    }
}
