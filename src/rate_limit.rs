//! Sliding-window rate limits shared by every replica through Redis.
//!
//! One Lua script does the whole check-and-record, so parallel attempts cannot slip past the
//! limit between a read and a write, and it reads Redis's clock, so replicas with skewed
//! clocks agree. When Redis does not answer in time the same window is kept in this process
//! instead (per replica, bounded in size): the limit weakens by the replica count for the
//! length of the outage but never disappears, and logins keep working.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redis::aio::ConnectionManager;

/// `limit` events per `window`, per key.
#[derive(Debug, Clone, Copy)]
pub struct Quota {
    pub limit: u32,
    pub window: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Allowed,
    /// Over the limit; the oldest counted event leaves the window after this long.
    Limited {
        retry_after: Duration,
    },
}

const SLIDING_WINDOW: &str = r"
local now = redis.call('TIME')
local now_us = tonumber(now[1]) * 1000000 + tonumber(now[2])
local window_us = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_us - window_us)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now_us, now_us .. '-' .. ARGV[3])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window_us / 1000))
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tonumber(oldest[2]) + window_us - now_us
";

#[derive(Clone)]
pub struct RateLimiter {
    redis: ConnectionManager,
    namespace: Arc<str>,
    script: Arc<redis::Script>,
    redis_timeout: Duration,
    local: moka::sync::Cache<String, Arc<Mutex<VecDeque<Instant>>>>,
}

/// How long the local window keeps a key nobody counted under: the longest quota's window
/// (a widget's conversations, 12 hours), so an idle key forgets nothing still counted.
const LOCAL_IDLE: Duration = Duration::from_secs(12 * 3600);

impl RateLimiter {
    pub fn new(redis: ConnectionManager, namespace: &str, redis_timeout: Duration) -> Self {
        Self {
            redis,
            namespace: namespace.into(),
            script: Arc::new(redis::Script::new(SLIDING_WINDOW)),
            redis_timeout,
            local: moka::sync::Cache::builder()
                .max_capacity(100_000)
                .time_to_idle(LOCAL_IDLE)
                .build(),
        }
    }

    /// Counts one event under `key` if the quota allows it.
    pub async fn check(&self, key: &str, quota: Quota) -> Decision {
        let redis_key = format!("{}:ratelimit:{key}", self.namespace);
        let nonce: u64 = rand::random();
        let mut conn = self.redis.clone();
        let mut invocation = self.script.key(&redis_key);
        invocation
            .arg(quota.window.as_micros() as u64)
            .arg(quota.limit)
            .arg(nonce);
        let attempt = tokio::time::timeout(
            self.redis_timeout,
            invocation.invoke_async::<i64>(&mut conn),
        )
        .await;
        match attempt {
            Ok(Ok(0)) => Decision::Allowed,
            Ok(Ok(wait_us)) => Decision::Limited {
                retry_after: Duration::from_micros(wait_us.max(1) as u64),
            },
            Ok(Err(err)) => {
                tracing::warn!(error = %err, "redis rate limit failed; using the local window");
                self.check_locally(redis_key, quota)
            }
            Err(_) => {
                tracing::warn!("redis rate limit timed out; using the local window");
                self.check_locally(redis_key, quota)
            }
        }
    }

    fn check_locally(&self, key: String, quota: Quota) -> Decision {
        debug_assert!(
            quota.window <= LOCAL_IDLE,
            "a window longer than LOCAL_IDLE"
        );
        let events = self.local.get_with(key, Default::default);
        let now = Instant::now();
        let mut events = match events.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        while events
            .front()
            .is_some_and(|t| now.duration_since(*t) >= quota.window)
        {
            events.pop_front();
        }
        if events.len() < quota.limit as usize {
            events.push_back(now);
            return Decision::Allowed;
        }
        let oldest = events.front().copied().unwrap_or(now);
        Decision::Limited {
            retry_after: quota.window.saturating_sub(now.duration_since(oldest)),
        }
    }
}
