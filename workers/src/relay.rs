//! The outbox relay: hands committed outbox rows to the job queues.
//!
//! Rows are taken with `FOR UPDATE SKIP LOCKED` (so any number of workers relay in parallel
//! without double hand-overs) and marked relayed with a new hand-over number, committed, then
//! pushed to Redis; a push that fails puts the rest of the batch back in line. A crash between
//! commit and push strands rows only until the janitor's reconciliation hands them over again.
//! The relay wakes on the outbox's NOTIFY, and polls as a safety net and for retries whose
//! backoff has run out.

use std::collections::HashMap;
use std::time::Duration;

use apalis::prelude::{TaskBuilder, TaskId, TaskSink};
use redis::aio::ConnectionManager;
use sqlx::PgPool;
use supportdesk_core::outbox::{self, MessageKind};
use tokio_util::sync::CancellationToken;

use crate::queues::{self, OutboxStorage, OutboxTask};

const BATCH: i64 = 200;
const POLL: Duration = Duration::from_secs(1);
/// The shortest sleep between partial batches.
const MIN_WAIT: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

pub struct Relay {
    db: PgPool,
    queues: HashMap<MessageKind, OutboxStorage>,
}

impl Relay {
    pub fn new(db: PgPool, redis: ConnectionManager, namespace: &str) -> Self {
        let queues = MessageKind::ALL
            .into_iter()
            .map(|kind| (kind, queues::storage(redis.clone(), namespace, kind)))
            .collect();
        Self { db, queues }
    }

    /// Relays until `stop` is cancelled.
    pub async fn run(mut self, stop: CancellationToken) {
        let mut listener = None;
        let mut failures = 0u32;
        while !stop.is_cancelled() {
            if listener.is_none() {
                listener = crate::wake::listen(&self.db, "supportdesk_outbox").await;
            }
            let wait = match self.relay_due().await {
                Ok(relayed) => {
                    failures = 0;
                    if relayed as i64 == BATCH {
                        continue;
                    }
                    let kinds: Vec<MessageKind> = self.queues.keys().copied().collect();
                    match outbox::next_due_in(&self.db, &kinds).await {
                        // Due rows another relay has locked are not taken here: not a spin.
                        Ok(Some(due)) => due.clamp(MIN_WAIT, POLL),
                        _ => POLL,
                    }
                }
                Err(err) => {
                    failures += 1;
                    let backoff = (Duration::from_millis(250)
                        * 2u32.saturating_pow(failures.min(8)))
                    .min(MAX_BACKOFF);
                    tracing::warn!(error = %err, retry_in_ms = backoff.as_millis() as u64,
                        "outbox relay failed; nothing was lost, retrying");
                    backoff
                }
            };
            if crate::wake::pause(&mut listener, wait, &stop).await == crate::wake::Woken::Stopped {
                break;
            }
        }
        tracing::info!("outbox relay stopped");
    }

    /// One batch: how many rows were handed over.
    pub async fn relay_due(&mut self) -> anyhow::Result<usize> {
        let kinds: Vec<MessageKind> = self.queues.keys().copied().collect();
        let mut tx = supportdesk_core::db::begin(&self.db, None).await?;
        let due = outbox::take_due(&mut tx, BATCH, &kinds).await?;
        tx.commit().await?;
        for (index, item) in due.iter().enumerate() {
            let Some(queue) = self.queues.get_mut(&item.kind) else {
                continue;
            };
            let task = TaskBuilder::new(OutboxTask {
                outbox_id: item.id,
                relay: item.relay,
            })
            .task_id(TaskId::from_string(item.task_name()))
            .build();
            if let Err(err) = queue.push_task(task).await {
                // Back in line: this one and every one not pushed yet.
                outbox::unrelay(&self.db, &due[index..]).await?;
                anyhow::bail!("pushing to the {} queue: {err}", item.kind.as_str());
            }
        }
        if !due.is_empty() {
            metrics::counter!("outbox_relayed_total").increment(due.len() as u64);
            tracing::debug!(count = due.len(), "relayed outbox messages");
        }
        Ok(due.len())
    }
}
