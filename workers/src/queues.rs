//! The job queues on Redis (apalis-redis): one per kind of outbox work, with explicit names.
//!
//! apalis-redis's defaults are unsafe for a service: a 500 ms Redis response timeout that
//! kills a worker under load, orphan detection after 10 missed 30 s heartbeats, and queue
//! names taken from Rust type paths. Here the connection is ours (5 s timeouts), heartbeats
//! are 5 s with orphans re-enqueued after 6 misses, and queue names are stable strings.

use std::time::Duration;

use anyhow::Context;
use apalis_redis::{Config, RedisStorage};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use serde::{Deserialize, Serialize};
use supportdesk_core::config::Settings;
use supportdesk_core::outbox::MessageKind;
use uuid::Uuid;

/// One attempt at carrying out one outbox message. Everything else is read from the row, so
/// the task format never needs to change when the work does.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutboxTask {
    #[serde(rename = "outboxId")]
    pub outbox_id: Uuid,
    /// The hand-over this task belongs to; a task of an earlier one is stale.
    pub relay: i32,
}

pub type OutboxStorage = RedisStorage<OutboxTask>;

pub const HEARTBEAT: Duration = Duration::from_secs(5);
/// Orphans are re-enqueued after 30 s of silence: longer than a draining worker's 25 s, during
/// which apalis sends no heartbeats, so a drain is never mistaken for a crash.
pub const MISSED_HEARTBEATS: usize = 6;

/// `{namespace}:email:verification`, `{namespace}:email:invitation`,
/// `{namespace}:email:password-reset`, `{namespace}:email:agent-digest`,
/// `{namespace}:email:visitor-reply`, `{namespace}:email:conversation`,
/// `{namespace}:email:mailbox-failing`, `{namespace}:email:smtp-test`,
/// `{namespace}:email:webhook-disabled`,
/// `{namespace}:workspace:drop`, `{namespace}:search:reindex`. A queue per kind, so a
/// backlog of one (a bulk invitation, say) never delays another (a reset someone waits for).
pub fn queue_name(namespace: &str, kind: MessageKind) -> String {
    let suffix = match kind {
        MessageKind::VerificationEmail => "email:verification",
        MessageKind::InvitationEmail => "email:invitation",
        MessageKind::PasswordResetEmail => "email:password-reset",
        MessageKind::DropWorkspace => "workspace:drop",
        MessageKind::AgentDigestEmail => "email:agent-digest",
        MessageKind::VisitorReplyEmail => "email:visitor-reply",
        MessageKind::ConversationEmail => "email:conversation",
        MessageKind::MailboxFailingEmail => "email:mailbox-failing",
        MessageKind::SmtpTestEmail => "email:smtp-test",
        MessageKind::WebhookDisabledEmail => "email:webhook-disabled",
        MessageKind::ReindexSearch => "search:reindex",
        MessageKind::RatingRequestEmail => "email:rating-request",
    };
    format!("{namespace}:{suffix}")
}

pub fn queue_config(namespace: &str, kind: MessageKind) -> Config {
    Config::default()
        .queue(queue_name(namespace, kind))
        .batch_size(8)
        .heartbeat_interval(HEARTBEAT)
        .missed_heartbeats(MISSED_HEARTBEATS)
        .persist_results(true)
}

pub fn storage(conn: ConnectionManager, namespace: &str, kind: MessageKind) -> OutboxStorage {
    RedisStorage::new(conn).with_config(queue_config(namespace, kind))
}

/// A Redis connection for the queues, connecting on first use, with timeouts long enough not
/// to fail healthy-but-busy calls and short enough to notice an outage.
pub fn connect(settings: &Settings) -> anyhow::Result<ConnectionManager> {
    let client = settings.redis.client().context("REDIS_URL")?;
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(Duration::from_secs(5)))
        .set_response_timeout(Some(Duration::from_secs(5)))
        .set_number_of_retries(2)
        .set_max_delay(Duration::from_secs(2));
    Ok(client.get_connection_manager_lazy(config)?)
}

/// Tasks waiting in a queue (ready or scheduled), for metrics.
pub async fn depth(conn: &mut ConnectionManager, config: &Config) -> redis::RedisResult<u64> {
    let (ready, scheduled): (u64, u64) = redis::pipe()
        .cmd("LLEN")
        .arg(config.active_jobs_list())
        .cmd("ZCARD")
        .arg(config.scheduled_jobs_set())
        .query_async(conn)
        .await?;
    Ok(ready + scheduled)
}

/// Deletes up to `batch` finished tasks' data and bookkeeping from a queue; how many. Only ids
/// in the queue's set of done tasks are touched (apalis's own vacuum also deletes tasks that
/// failed and wait for a retry, and reads the whole queue in one blocking call).
pub async fn purge_done(
    conn: &mut ConnectionManager,
    config: &Config,
    batch: usize,
) -> redis::RedisResult<usize> {
    const SCRIPT: &str = r"
local ids = redis.call('SPOP', KEYS[1], ARGV[1])
for _, id in ipairs(ids) do
  redis.call('HDEL', KEYS[2], id)
  redis.call('HDEL', KEYS[3] .. ':result', id)
  redis.call('DEL', KEYS[3] .. ':' .. id)
end
return #ids
";
    redis::Script::new(SCRIPT)
        .key(config.done_jobs_set())
        .key(config.job_data_hash())
        .key(config.job_meta_hash())
        .arg(batch)
        .invoke_async(conn)
        .await
}
