//! Carrying out one outbox message: the handler every queue task runs. Mostly email
//! delivery; also dropping the data of deleted workspaces.
//!
//! Each task is one attempt. The attempt claims the row (counted, and leased so no other
//! worker starts one meanwhile) before sending, and records its outcome after; the row, not
//! the queue, decides what happens next: a transient failure schedules the next attempt with
//! exponential backoff, a permanent one (an SMTP 5xx, an address the mail library refuses) or
//! the last attempt makes the message dead. Only when PostgreSQL itself fails, or another
//! worker holds the claim, does the handler return an error, and the queue runs it again; if
//! the queue gives up, the janitor's reconciliation hands the row over again.
//!
//! Done once in normal operation: a finished message is skipped, a stale task (of an earlier
//! hand-over) is skipped, and the Message-ID is derived from the row. A duplicate needs a
//! crash between the SMTP server accepting the message and the row being updated.

use std::sync::Arc;
use std::time::{Duration, Instant};

use apalis::prelude::{BoxDynError, Data};
use lettre::Message;
use lettre::message::Mailbox;
use object_store::ObjectStoreExt;
use sqlx::PgPool;
use supportdesk_core::config::WorkerSettings;
use supportdesk_core::email_tokens::EmailTokenKey;
use supportdesk_core::outbox::messages::conversation_email::{self, Delivered};
use supportdesk_core::outbox::messages::webhook_disabled;
use supportdesk_core::outbox::messages::workspace_smtp::{self, SmtpOutcome, WorkspaceSmtp};
use supportdesk_core::outbox::messages::{
    agent_digest, invitation, mailbox_failing, password_reset, rating_request, verification,
    visitor_reply,
};
use supportdesk_core::outbox::{self, Attempt, Claim, OutboxMessage, Outcome};
use supportdesk_core::sealed_credentials::CredentialKey;
use supportdesk_core::storage::{Variant, attachment_path};
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::deletion::delete_workspace;

use crate::email::render::{Email, Renderer};
use crate::email::transport::Mailer;
use crate::email::{conversation, smtp_test, webhook_disabled as webhook_disabled_email};
use crate::queues::OutboxTask;

/// Rows a re-indexing statement writes: a short transaction each, so replies and reads
/// never wait long behind it.
const REINDEX_BATCH: i64 = 1_000;
/// How many claims' time an attempt keeps its claim extended: with the 60 s claim, half an
/// hour, longer than a large workspace's deletion or re-index takes.
const MAX_CLAIMED: u32 = 30;

pub struct Deliverer {
    pub db: PgPool,
    pub tokens: EmailTokenKey,
    pub renderer: Renderer,
    pub mailer: Mailer,
    pub settings: WorkerSettings,
    /// Where attachments are kept: a deleted workspace's go with it.
    pub store: supportdesk_core::storage::Store,
    /// Objects per delete request.
    pub delete_batch: usize,
    /// `INBOUND_EMAIL_DOMAIN`: of the Message-IDs an answer threads back by.
    pub inbound_domain: String,
    /// Opens the workspaces' SMTP passwords.
    pub credentials: CredentialKey,
    /// `WIDGET_URL`: the widget app, whose rating page the rating links open.
    pub widget_url: Option<String>,
}

/// How a workspace's customer emails leave: through its own SMTP server from its support
/// address, or through the platform's from `MAIL_FROM` under the workspace's name.
enum Route {
    Platform,
    Workspace {
        workspace_id: uuid::Uuid,
        mailer: Mailer,
        address: lettre::Address,
    },
}

/// The apalis handler. The attempt runs in a task of its own: if the queue worker's future
/// is dropped (a Redis error stops it, a drain times out), the send and its record still
/// finish instead of being cut between the SMTP server's acceptance and the row's update.
pub async fn deliver(
    task: OutboxTask,
    deliverer: Data<Arc<Deliverer>>,
) -> Result<Outcome, BoxDynError> {
    let deliverer: Arc<Deliverer> = (*deliverer).clone();
    Ok(tokio::spawn(async move { deliverer.attempt(task).await }).await??)
}

impl Deliverer {
    pub async fn attempt(&self, task: OutboxTask) -> anyhow::Result<Outcome> {
        let claim =
            outbox::begin_attempt(&self.db, task.outbox_id, task.relay, self.settings.claim)
                .await?;
        let attempt = match claim {
            Claim::Started(attempt) => attempt,
            // A stale or duplicate task: the row is finished or has a newer hand-over.
            Claim::Nothing => return Ok(Outcome::Skipped),
            // Another worker is on it (this is an orphan's re-run while the original is still
            // draining, say): let the queue run this task again after a pause.
            Claim::Busy => anyhow::bail!(
                "another worker is delivering {}; retrying later",
                task.outbox_id
            ),
        };
        let kind = attempt.message.kind().as_str();
        let outcome = self.carry_out_claimed(&attempt).await;
        self.record(&attempt, &outcome).await?;
        match &outcome {
            Outcome::Done => {
                metrics::counter!("outbox_done_total", "kind" => kind).increment(1);
                tracing::info!(outbox_id = %attempt.id, kind, attempt = attempt.number, "done");
            }
            Outcome::Skipped => {
                tracing::info!(outbox_id = %attempt.id, kind, "no longer needed; skipped");
            }
            Outcome::RetryScheduled { retry_in, error } => {
                metrics::counter!("outbox_attempts_failed_total", "kind" => kind).increment(1);
                tracing::warn!(outbox_id = %attempt.id, kind, attempt = attempt.number,
                    retry_in_secs = retry_in.as_secs_f64(), error, "attempt failed; will retry");
            }
            Outcome::Dead { error } => {
                metrics::counter!("outbox_attempts_failed_total", "kind" => kind).increment(1);
                metrics::counter!("outbox_dead_total", "kind" => kind).increment(1);
                tracing::error!(outbox_id = %attempt.id, kind, attempt = attempt.number, error,
                    "dead; `supportdesk jobs retry` revives it");
            }
        }
        Ok(outcome)
    }

    /// The attempt, its claim extended every third of the claim while it runs, for at most
    /// [`MAX_CLAIMED`] claims: an attempt stuck for longer (a silent peer, a lock) lets its
    /// claim lapse, and another worker runs the message, as before claims were extended.
    async fn carry_out_claimed(&self, attempt: &Attempt) -> Outcome {
        let claim = self.settings.claim;
        let work = self.carry_out(attempt);
        tokio::pin!(work);
        let until = tokio::time::Instant::now() + claim * MAX_CLAIMED;
        let mut renew =
            tokio::time::interval_at(tokio::time::Instant::now() + claim / 3, claim / 3);
        loop {
            tokio::select! {
                outcome = &mut work => return outcome,
                _ = renew.tick(), if tokio::time::Instant::now() < until => {
                    if let Err(e) = outbox::extend_claim(&self.db, attempt.id, attempt.number, claim).await {
                        tracing::warn!(outbox_id = %attempt.id, error = %e, "extending an attempt's claim failed");
                    }
                }
            }
        }
    }

    /// Writes the attempt's outcome, retrying for a while within the attempt's claim: an
    /// error left to the queue would run the task again once the claim lapsed, and send
    /// what was sent already.
    async fn record(&self, attempt: &Attempt, outcome: &Outcome) -> sqlx::Result<()> {
        let mut pause = Duration::from_millis(250);
        let give_up = tokio::time::Instant::now() + self.settings.claim / 2;
        loop {
            match outbox::record(&self.db, attempt.id, attempt.number, outcome).await {
                Ok(()) => return Ok(()),
                Err(e) if tokio::time::Instant::now() + pause < give_up => {
                    tracing::warn!(outbox_id = %attempt.id, error = %e, "recording an attempt's outcome failed; retrying");
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_secs(5));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// One attempt. Every failure becomes an outcome on the row; none escapes to the queue.
    async fn carry_out(&self, attempt: &Attempt) -> Outcome {
        let result = match attempt.message {
            OutboxMessage::DropWorkspace { workspace_id } => {
                delete_workspace(&self.db, &*self.store, self.delete_batch, workspace_id)
                    .await
                    .map(|_| Outcome::Done)
                    .map_err(|e| {
                        Failure::Transient(format!("dropping workspace {workspace_id}: {e}"))
                    })
            }
            OutboxMessage::ReindexSearch { workspace_id } => {
                supportdesk_core::search::reindex(&self.db, workspace_id, REINDEX_BATCH)
                    .await
                    .map(|written| match written {
                        Some(rows) => {
                            tracing::info!(%workspace_id, rows, "search index written again");
                            Outcome::Done
                        }
                        None => Outcome::Skipped,
                    })
                    .map_err(|e| {
                        Failure::Transient(format!("re-indexing workspace {workspace_id}: {e}"))
                    })
            }
            OutboxMessage::AgentDigestEmail {
                workspace_id,
                agent_id,
            } => self.send_digest(attempt, workspace_id, agent_id).await,
            OutboxMessage::VisitorReplyEmail {
                workspace_id,
                conversation_id,
            } => {
                self.send_visitor_reply(attempt, workspace_id, conversation_id)
                    .await
            }
            OutboxMessage::ConversationEmail {
                workspace_id,
                message_id,
            } => {
                self.send_conversation_email(attempt, workspace_id, message_id)
                    .await
            }
            OutboxMessage::SmtpTestEmail {
                workspace_id,
                user_id,
            } => self.send_smtp_test(attempt, workspace_id, user_id).await,
            OutboxMessage::RatingRequestEmail {
                workspace_id,
                request_id,
            } => {
                self.send_rating_request(attempt, workspace_id, request_id)
                    .await
            }
            OutboxMessage::WebhookDisabledEmail {
                workspace_id,
                endpoint_id,
                user_id,
            } => {
                self.send_webhook_disabled(attempt, workspace_id, endpoint_id, user_id)
                    .await
            }
            _ => self.send_email(attempt).await,
        };
        let outcome = self.outcome(attempt, result);
        if let OutboxMessage::ConversationEmail {
            workspace_id,
            message_id,
        } = attempt.message
        {
            // The reply shows how its delivery stands; a failure to record it is logged and
            // leaves it pending.
            let delivered = match &outcome {
                Outcome::Done => Some(Delivered::Sent),
                Outcome::RetryScheduled { error, .. } => Some(Delivered::Retrying(error)),
                Outcome::Dead { error } => Some(Delivered::Failed(error)),
                Outcome::Skipped => None,
            };
            if let Some(delivered) = delivered
                && let Err(e) = conversation_email::record_delivery(
                    &self.db,
                    workspace_id,
                    message_id,
                    delivered,
                )
                .await
            {
                tracing::warn!(error = %e, %message_id, "recording a reply's delivery failed");
            }
        }
        outcome
    }

    /// What an attempt's result means for the message: done, retried later, or dead.
    fn outcome(&self, attempt: &Attempt, result: Result<Outcome, Failure>) -> Outcome {
        match result {
            Ok(outcome) => outcome,
            Err(Failure::Permanent(error)) => Outcome::Dead { error },
            Err(Failure::Transient(error)) if attempt.number >= self.settings.max_attempts => {
                Outcome::Dead {
                    error: format!("{error} (after {} attempts)", attempt.number),
                }
            }
            Err(Failure::Transient(error)) => Outcome::RetryScheduled {
                retry_in: self.settings.backoff(attempt.number),
                error,
            },
        }
    }

    /// Renders and sends. A message that cannot even be built (an address the mail library
    /// refuses) is a permanent failure: retrying cannot help.
    async fn send_email(&self, attempt: &Attempt) -> Result<Outcome, Failure> {
        let email = match self.render(attempt).await {
            Ok(Some(email)) => email,
            Ok(None) => return Ok(Outcome::Skipped),
            Err(RenderError::Database(e)) => {
                return Err(Failure::Transient(format!("reading the message: {e}")));
            }
            Err(RenderError::Content(e)) => {
                return Err(Failure::Permanent(format!("rendering: {e:#}")));
            }
        };
        self.send(attempt, email).await
    }

    /// An agent's digest: the notices claimed for this message, mailed together and then
    /// marked, so no other message lists them again. Nothing left to tell is `Skipped`.
    async fn send_digest(
        &self,
        attempt: &Attempt,
        workspace_id: uuid::Uuid,
        agent_id: uuid::Uuid,
    ) -> Result<Outcome, Failure> {
        let digest = agent_digest::claim(&self.db, workspace_id, agent_id, attempt.id)
            .await
            .map_err(|e| Failure::Transient(format!("claiming the notices: {e}")))?;
        let Some(digest) = digest else {
            return Ok(Outcome::Skipped);
        };
        let email = self
            .renderer
            .agent_digest(&digest)
            .map_err(|e| Failure::Permanent(format!("rendering: {e:#}")))?;
        let outcome = self.send(attempt, email).await?;
        // Sent: a failure to mark it must not send it again. The notices stay claimed by
        // this message, which is done, so no later digest lists them.
        if let Err(e) = agent_digest::mark_emailed(&self.db, &digest.schema, attempt.id).await {
            tracing::warn!(outbox_id = %attempt.id, error = %e, "a digest was sent but its notices could not be marked emailed");
        }
        metrics::counter!("agent_notices_emailed_total").increment(digest.items.len() as u64);
        Ok(outcome)
    }

    /// A visitor's unseen replies: claimed for this message, mailed, and recorded as sent
    /// (the next email waits ten minutes after it). Nothing unseen is `Skipped`. The email's
    /// Message-ID joins the conversation's thread and answers go to the support address with
    /// the email's token, so the visitor's answer by email continues the conversation.
    async fn send_visitor_reply(
        &self,
        attempt: &Attempt,
        workspace_id: uuid::Uuid,
        conversation_id: uuid::Uuid,
    ) -> Result<Outcome, Failure> {
        let reply = visitor_reply::claim(&self.db, workspace_id, conversation_id, attempt.id)
            .await
            .map_err(|e| Failure::Transient(format!("claiming the replies: {e}")))?;
        let Some(reply) = reply else {
            return Ok(Outcome::Skipped);
        };
        let email = self
            .renderer
            .visitor_reply(&reply)
            .map_err(|e| Failure::Permanent(format!("rendering: {e:#}")))?;
        let (schema, team) = (&reply.schema, &reply.workspace_name);
        let outcome = self
            .transmit_in_thread(attempt, workspace_id, schema, conversation_id, email, team)
            .await?;
        // Sent: a failure to record it must not send it again (the next email may then
        // follow sooner than ten minutes after it).
        if let Err(e) = visitor_reply::mark_sent(&self.db, &reply.schema, attempt.id).await {
            tracing::warn!(outbox_id = %attempt.id, error = %e, "a reply email was sent but could not be recorded as sent");
        }
        Ok(outcome)
    }

    /// The rating request of a resolved email conversation, in the conversation's thread from
    /// the address its replies come from. No longer worth asking (reopened, rated, expired,
    /// the workspace gone) is `Skipped`; without `WIDGET_URL` the links would lead nowhere,
    /// so the message fails for the operator to see.
    async fn send_rating_request(
        &self,
        attempt: &Attempt,
        workspace_id: uuid::Uuid,
        request_id: uuid::Uuid,
    ) -> Result<Outcome, Failure> {
        let Some(widget_url) = self.widget_url.as_deref() else {
            return Err(Failure::Permanent(
                "WIDGET_URL is not set: rating links need the widget app's address".to_owned(),
            ));
        };
        let request = rating_request::load(&self.db, &self.tokens, workspace_id, request_id)
            .await
            .map_err(|e| Failure::Transient(format!("reading the rating request: {e}")))?;
        let Some(request) = request else {
            return Ok(Outcome::Skipped);
        };
        let email = self
            .renderer
            .rating_request(&request, widget_url)
            .map_err(|e| Failure::Permanent(format!("rendering: {e:#}")))?;
        let (schema, team) = (&request.schema, &request.team);
        self.transmit_in_thread(
            attempt,
            workspace_id,
            schema,
            request.conversation_id,
            email,
            team,
        )
        .await
    }

    /// `email` about conversation `conversation_id`, sent by the workspace's route from
    /// `team` at its address, as part of the conversation's thread (an answer to it lands in
    /// the conversation).
    async fn transmit_in_thread(
        &self,
        attempt: &Attempt,
        workspace_id: uuid::Uuid,
        schema: &TenantSchema,
        conversation_id: uuid::Uuid,
        email: Email,
        team: &str,
    ) -> Result<Outcome, Failure> {
        let thread = conversation_email::join_thread(
            &self.db,
            workspace_id,
            schema,
            conversation_id,
            attempt.id,
            &self.inbound_domain,
        )
        .await
        .map_err(|e| Failure::Transient(format!("joining the conversation's thread: {e}")))?;
        let route = self.route(workspace_id, schema).await?;
        let from = Mailbox::new(Some(team.to_owned()), route.address(self));
        let message = self
            .renderer
            .threaded_message(email, &thread, from, team)
            .map_err(|e| Failure::Permanent(format!("building the message: {e:#}")))?;
        self.transmit_by(&route, attempt, message).await
    }

    /// An agent's reply on an email conversation, with its files read from the store. Already
    /// sent (or its workspace gone) is `Skipped`.
    async fn send_conversation_email(
        &self,
        attempt: &Attempt,
        workspace_id: uuid::Uuid,
        message_id: uuid::Uuid,
    ) -> Result<Outcome, Failure> {
        let email = conversation_email::pending(&self.db, workspace_id, message_id)
            .await
            .map_err(|e| Failure::Transient(format!("reading the reply: {e}")))?;
        let Some(email) = email else {
            return Ok(Outcome::Skipped);
        };
        let mut files = Vec::with_capacity(email.files.len());
        for file in &email.files {
            let path = attachment_path(workspace_id, file.id, Variant::Original);
            let bytes = async { self.store.get(&path).await?.bytes().await }
                .await
                .map_err(|e| Failure::Transient(format!("reading {}: {e}", file.name)))?;
            files.push(bytes.to_vec());
        }
        let route = self.route(workspace_id, &email.schema).await?;
        let message = conversation::build(&email, route.address(self), files)
            .map_err(|e| Failure::Permanent(format!("building the message: {e:#}")))?;
        self.transmit_by(&route, attempt, message).await
    }

    /// The test email an Owner asked for, through the way the workspace's customer emails
    /// leave. Not retried: the Owner is waiting to see whether it works, and the server's
    /// status shows the error.
    async fn send_smtp_test(
        &self,
        attempt: &Attempt,
        workspace_id: uuid::Uuid,
        user_id: uuid::Uuid,
    ) -> Result<Outcome, Failure> {
        let test = workspace_smtp::test_email(&self.db, workspace_id, user_id)
            .await
            .map_err(|e| Failure::Transient(format!("reading the test email: {e}")))?;
        let Some(test) = test else {
            return Ok(Outcome::Skipped);
        };
        let route = self.route(workspace_id, &test.schema).await?;
        let from = Mailbox::new(Some(test.workspace_name.clone()), route.address(self));
        let message = smtp_test::build(&test, from)
            .map_err(|e| Failure::Permanent(format!("building the message: {e:#}")))?;
        self.transmit_by(&route, attempt, message)
            .await
            .map_err(|failure| match failure {
                Failure::Transient(e) | Failure::Permanent(e) => Failure::Permanent(e),
            })
    }

    /// Tells an Owner the product disabled a webhook endpoint. Enabled again meanwhile (or
    /// gone) is `Skipped`.
    async fn send_webhook_disabled(
        &self,
        attempt: &Attempt,
        workspace_id: uuid::Uuid,
        endpoint_id: uuid::Uuid,
        user_id: uuid::Uuid,
    ) -> Result<Outcome, Failure> {
        let disabled = webhook_disabled::pending(&self.db, workspace_id, endpoint_id, user_id)
            .await
            .map_err(|e| Failure::Transient(format!("reading the endpoint: {e}")))?;
        let Some(disabled) = disabled else {
            return Ok(Outcome::Skipped);
        };
        let settings = format!("{}/settings", self.renderer.app_url());
        let message =
            webhook_disabled_email::build(&disabled, self.renderer.from().clone(), &settings)
                .map_err(|e| Failure::Permanent(format!("building the message: {e:#}")))?;
        self.transmit(&self.mailer, attempt, message).await
    }

    /// How workspace `workspace_id`'s customer emails leave now. A password that cannot be
    /// opened fails the send for good, shown on the server's status.
    async fn route(
        &self,
        workspace_id: uuid::Uuid,
        schema: &TenantSchema,
    ) -> Result<Route, Failure> {
        let mut conn = self
            .db
            .acquire()
            .await
            .map_err(|e| Failure::Transient(format!("reading the SMTP settings: {e}")))?;
        let smtp = workspace_smtp::find(&mut conn, schema)
            .await
            .map_err(|e| Failure::Transient(format!("reading the SMTP settings: {e}")))?;
        drop(conn);
        let Some(smtp) = smtp else {
            return Ok(Route::Platform);
        };
        match self.workspace_mailer(&smtp) {
            Ok((mailer, address)) => Ok(Route::Workspace {
                workspace_id,
                mailer,
                address,
            }),
            Err(error) => {
                self.record_smtp(workspace_id, SmtpOutcome::Failing(&error))
                    .await;
                Err(Failure::Permanent(error))
            }
        }
    }

    fn workspace_mailer(&self, smtp: &WorkspaceSmtp) -> Result<(Mailer, lettre::Address), String> {
        let password = smtp
            .password_sealed
            .as_deref()
            .map(|sealed| self.credentials.open(sealed))
            .transpose()
            .map_err(|e| e.to_string())?;
        let address = smtp
            .address
            .parse()
            .map_err(|e| format!("the support address {}: {e}", smtp.address))?;
        let mailer = Mailer::workspace(smtp, password).map_err(|e| e.message)?;
        Ok((mailer, address))
    }

    /// Sends by `route`, recording on the workspace's server how it went.
    async fn transmit_by(
        &self,
        route: &Route,
        attempt: &Attempt,
        message: Message,
    ) -> Result<Outcome, Failure> {
        match route {
            Route::Platform => self.transmit(&self.mailer, attempt, message).await,
            Route::Workspace {
                workspace_id,
                mailer,
                ..
            } => {
                let result = self.transmit(mailer, attempt, message).await;
                let outcome = match &result {
                    Ok(_) => SmtpOutcome::Working,
                    Err(Failure::Permanent(e) | Failure::Transient(e)) => SmtpOutcome::Failing(e),
                };
                self.record_smtp(*workspace_id, outcome).await;
                result
            }
        }
    }

    /// A failure to record is logged: the send's own outcome is what matters.
    async fn record_smtp(&self, workspace_id: uuid::Uuid, outcome: SmtpOutcome<'_>) {
        if let Err(e) = workspace_smtp::record(&self.db, workspace_id, outcome).await {
            tracing::warn!(error = %e, %workspace_id, "recording the SMTP server's status failed");
        }
    }

    /// Builds and sends a rendered email.
    async fn send(&self, attempt: &Attempt, email: Email) -> Result<Outcome, Failure> {
        let message = self
            .renderer
            .message(attempt.id, email)
            .map_err(|e| Failure::Permanent(format!("building the message: {e:#}")))?;
        self.transmit(&self.mailer, attempt, message).await
    }

    /// Sends a built message by `mailer`.
    async fn transmit(
        &self,
        mailer: &Mailer,
        attempt: &Attempt,
        message: Message,
    ) -> Result<Outcome, Failure> {
        let kind = attempt.message.kind().as_str();
        let started = Instant::now();
        let sent = mailer.send(message).await;
        metrics::histogram!("email_send_duration_seconds", "kind" => kind)
            .record(started.elapsed().as_secs_f64());
        sent.map(|()| Outcome::Done).map_err(|e| {
            if e.permanent {
                Failure::Permanent(e.message)
            } else {
                Failure::Transient(e.message)
            }
        })
    }

    /// The email for this message, or `None` when there is nothing left to send (the token was
    /// used, replaced or expired before we got to it).
    async fn render(&self, attempt: &Attempt) -> Result<Option<Email>, RenderError> {
        Ok(match attempt.message {
            OutboxMessage::VerificationEmail { verification_id } => {
                match verification::pending(&self.db, &self.tokens, verification_id).await? {
                    None => None,
                    Some(p) => Some(
                        self.renderer
                            .verification(&p.email, &p.full_name, &p.token)
                            .map_err(RenderError::Content)?,
                    ),
                }
            }
            OutboxMessage::InvitationEmail { invitation_id } => {
                match invitation::pending(&self.db, &self.tokens, invitation_id).await? {
                    None => None,
                    Some(p) => Some(
                        self.renderer
                            .invitation(
                                &p.email,
                                p.inviter_name.as_deref(),
                                &p.workspace_name,
                                p.role,
                                &p.token,
                                p.expires_at,
                            )
                            .map_err(RenderError::Content)?,
                    ),
                }
            }
            OutboxMessage::MailboxFailingEmail {
                workspace_id,
                user_id,
            } => match mailbox_failing::pending(&self.db, workspace_id, user_id).await? {
                None => None,
                Some(failing) => Some(
                    self.renderer
                        .mailbox_failing(&failing)
                        .map_err(RenderError::Content)?,
                ),
            },
            OutboxMessage::PasswordResetEmail { reset_id } => {
                // `None` once the reset is used, replaced by a newer request, or expired.
                match password_reset::pending(&self.db, &self.tokens, reset_id).await? {
                    None => None,
                    Some(p) => Some(
                        self.renderer
                            .password_reset(&p.email, &p.full_name, &p.token)
                            .map_err(RenderError::Content)?,
                    ),
                }
            }
            OutboxMessage::DropWorkspace { .. }
            | OutboxMessage::ReindexSearch { .. }
            | OutboxMessage::AgentDigestEmail { .. }
            | OutboxMessage::VisitorReplyEmail { .. }
            | OutboxMessage::ConversationEmail { .. }
            | OutboxMessage::SmtpTestEmail { .. }
            | OutboxMessage::WebhookDisabledEmail { .. }
            | OutboxMessage::RatingRequestEmail { .. } => None,
        })
    }
}

impl Route {
    /// The address customer emails come from by this route.
    fn address(&self, deliverer: &Deliverer) -> lettre::Address {
        match self {
            Self::Platform => deliverer.renderer.from().email.clone(),
            Self::Workspace { address, .. } => address.clone(),
        }
    }
}

/// Why an attempt failed, which decides what happens to the message next.
#[derive(Debug)]
enum Failure {
    /// Retrying cannot help (an SMTP 5xx, an address the mail library refuses, a template
    /// that does not render): the message is dead at once.
    Permanent(String),
    /// It may work later (a database or SMTP outage): retried with backoff until the last
    /// attempt.
    Transient(String),
}

enum RenderError {
    Database(sqlx::Error),
    Content(anyhow::Error),
}

impl From<sqlx::Error> for RenderError {
    fn from(err: sqlx::Error) -> Self {
        Self::Database(err)
    }
}
