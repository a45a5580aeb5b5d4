//! Agent presence: online while any of the agent's connections is open on any replica.
//!
//! Redis keeps, per workspace, a sorted set of `<agent id>/<replica id>` scored by when that
//! entry stops counting (Redis's own clock, in milliseconds). A replica scores its agents 60 s
//! ahead and renews them every 20 s, so a replica that dies stops counting within a minute.
//! When an agent's last connection on a replica closes, the entry is kept for a 10 s grace
//! (a reconnect within it changes nothing anyone sees); a sweep then removes expired entries
//! and reports the agents left with none, atomically, so exactly one replica announces each
//! `offline`. The `online` announcement comes from the replica whose entry made the agent
//! count again.
//!
//! Reads (`GET /api/agents`) go through a per-workspace cache that every `PresenceChanged`
//! event, local or from another replica, clears. Without Redis, presence is what this replica
//! knows: its own connections.

use std::collections::HashSet;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use redis::Script;
use redis::aio::ConnectionManager;
use uuid::Uuid;

use super::registry::{AgentIdentity, Registry};

/// How long an entry counts after it was last renewed.
pub const TTL: Duration = Duration::from_secs(60);
/// How often a replica renews its agents' entries and sweeps its workspaces.
pub const HEARTBEAT: Duration = Duration::from_secs(20);
/// How long an agent stays online after their last connection closed.
pub const GRACE: Duration = Duration::from_secs(10);
/// The longest a cached presence read may lag a change it missed.
const READ_CACHE: Duration = Duration::from_secs(5);

/// Scores `ARGV[1]` `ARGV[2]` ms ahead; returns 1 when the agent (`ARGV[3]`, the member's
/// prefix) already counted before, 0 when this made them count.
const MARK: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local was = 0
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf')) do
  if string.sub(m, 1, #ARGV[3]) == ARGV[3] then was = 1 end
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return was
";

/// Removes expired entries; returns the agents left with no entry.
const SWEEP: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. now)
if #expired == 0 then return {} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now)
local live = {}
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  live[string.match(m, '^([^/]*)/')] = true
end
local gone, seen = {}, {}
for _, m in ipairs(expired) do
  local agent = string.match(m, '^([^/]*)/')
  if agent and not live[agent] and not seen[agent] then
    seen[agent] = true
    table.insert(gone, agent)
  end
end
return gone
";

/// The agents that count now.
const ONLINE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf')
";

static MARK_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(MARK));
static SWEEP_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(SWEEP));
static ONLINE_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(ONLINE));

#[derive(Clone)]
pub struct Presence {
    redis: ConnectionManager,
    prefix: Arc<str>,
    replica: Uuid,
    timeout: Duration,
    cache: moka::sync::Cache<Uuid, Arc<HashSet<Uuid>>>,
    /// After a failed read, reads skip Redis until then (this replica's view answers), so an
    /// unreachable Redis does not cost every request a timeout.
    skip_redis_until: Arc<std::sync::Mutex<Option<std::time::Instant>>>,
}

impl Presence {
    pub fn new(
        redis: ConnectionManager,
        namespace: &str,
        replica: Uuid,
        timeout: Duration,
    ) -> Self {
        Self {
            redis,
            prefix: format!("{namespace}:hub:presence:").into(),
            replica,
            timeout,
            cache: moka::sync::Cache::builder()
                .max_capacity(100_000)
                .time_to_live(READ_CACHE)
                .build(),
            skip_redis_until: Arc::default(),
        }
    }

    fn key(&self, workspace_id: Uuid) -> String {
        format!("{}{workspace_id}", self.prefix)
    }

    fn member(&self, agent_id: Uuid) -> String {
        format!("{agent_id}/{}", self.replica)
    }

    async fn mark(&self, agent: &AgentIdentity, ahead: Duration) -> Option<bool> {
        let mut conn = self.redis.clone();
        let mut invocation = MARK_SCRIPT.key(self.key(agent.workspace_id));
        invocation
            .arg(self.member(agent.agent_id))
            .arg(ahead.as_millis() as u64)
            .arg(format!("{}/", agent.agent_id));
        match tokio::time::timeout(self.timeout, invocation.invoke_async::<i64>(&mut conn)).await {
            Ok(Ok(was)) => Some(was == 1),
            Ok(Err(err)) => {
                tracing::warn!(error = %err, "presence not recorded");
                None
            }
            Err(_) => {
                tracing::warn!("presence not recorded: Redis timed out");
                None
            }
        }
    }

    /// The agent's first connection on this replica opened. True when they just came online
    /// (no replica counted them): the caller announces it.
    pub async fn connected(&self, agent: &AgentIdentity) -> bool {
        // Without Redis this replica's own view decides: it registered the connection, so
        // the agent is online as far as it knows.
        self.mark(agent, TTL).await.is_none_or(|was| !was)
    }

    /// The agent's last connection on this replica closed: their entry counts for the grace
    /// period only. The caller sweeps after it.
    pub async fn disconnected(&self, agent: &AgentIdentity) {
        self.mark(agent, GRACE).await;
    }

    /// Renews the entries of the agents connected here.
    pub async fn renew(&self, agents: &[AgentIdentity]) {
        for agent in agents {
            self.mark(agent, TTL).await;
        }
    }

    /// Removes expired entries of `workspace_id`; the agents who just went offline.
    pub async fn sweep(&self, workspace_id: Uuid) -> Vec<Uuid> {
        let mut conn = self.redis.clone();
        let invocation = SWEEP_SCRIPT.key(self.key(workspace_id));
        match tokio::time::timeout(
            self.timeout,
            invocation.invoke_async::<Vec<String>>(&mut conn),
        )
        .await
        {
            Ok(Ok(gone)) => gone.iter().filter_map(|a| a.parse().ok()).collect(),
            _ => Vec::new(),
        }
    }

    /// The workspace's agents online now, as far as the last few seconds tell.
    pub async fn online(&self, workspace_id: Uuid, registry: &Registry) -> Arc<HashSet<Uuid>> {
        if let Some(known) = self.cache.get(&workspace_id) {
            return known;
        }
        let skipping = self
            .skip_redis_until
            .lock()
            .is_ok_and(|until| until.is_some_and(|t| std::time::Instant::now() < t));
        if skipping {
            return Arc::new(registry.connected_agents(workspace_id));
        }
        let mut conn = self.redis.clone();
        let invocation = ONLINE_SCRIPT.key(self.key(workspace_id));
        let read = tokio::time::timeout(
            self.timeout,
            invocation.invoke_async::<Vec<String>>(&mut conn),
        )
        .await;
        let online: HashSet<Uuid> = match read {
            Ok(Ok(members)) => members
                .iter()
                .filter_map(|m| m.split('/').next()?.parse().ok())
                .collect(),
            // Not cached; Redis is asked again in a second.
            _ => {
                if let Ok(mut until) = self.skip_redis_until.lock() {
                    *until = Some(std::time::Instant::now() + Duration::from_secs(1));
                }
                return Arc::new(registry.connected_agents(workspace_id));
            }
        };
        let online = Arc::new(online);
        self.cache.insert(workspace_id, online.clone());
        online
    }

    /// A `PresenceChanged` event of `workspace_id` was seen: the next read asks Redis.
    pub fn changed(&self, workspace_id: Uuid) {
        self.cache.invalidate(&workspace_id);
    }
}
