//! The `redis` section: the server (`REDIS_URL`) and the prefix of our keys
//! (`REDIS_NAMESPACE`), and the connection both processes open with them.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

use super::{ConfigError, invalid};

#[derive(Debug, Clone)]
pub struct RedisSettings {
    /// `REDIS_URL` (default `redis://127.0.0.1:6379`); it may carry a password.
    pub url: SecretString,
    /// `REDIS_NAMESPACE`: prefix of every Redis key and channel, so several deployments (or
    /// test runs) can share one Redis (default `supportdesk`).
    pub namespace: String,
}

impl RedisSettings {
    /// How long a Redis call may take before we treat Redis as down and use the fallback.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(500)
    }

    pub fn client(&self) -> Result<redis::Client, redis::RedisError> {
        redis::Client::open(self.url.expose_secret())
    }

    /// A Redis connection that connects on first use and reconnects by itself, with timeouts
    /// short enough that a Redis outage degrades requests instead of hanging them.
    pub fn connection_manager(&self) -> Result<ConnectionManager, redis::RedisError> {
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(self.timeout()))
            .set_response_timeout(Some(self.timeout()))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_secs(2));
        self.client()?.get_connection_manager_lazy(config)
    }
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Raw {
    redis_url: Option<String>,
    redis_namespace: Option<String>,
}

impl TryFrom<Raw> for RedisSettings {
    type Error = ConfigError;

    fn try_from(raw: Raw) -> Result<Self, ConfigError> {
        let url = raw
            .redis_url
            .unwrap_or_else(|| "redis://127.0.0.1:6379".into());
        redis::Client::open(url.as_str()).map_err(|e| invalid("REDIS_URL", e.to_string()))?;
        Ok(Self {
            url: SecretString::from(url),
            namespace: raw
                .redis_namespace
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "supportdesk".into()),
        })
    }
}
