//! Settings only the worker has; the shared ones come from `supportdesk::config`.

use anyhow::bail;

pub struct WorkerSettings {
    /// `WORKER_HEALTH_PORT`: where `/healthz` and `/metrics` listen (default 5001).
    pub health_port: u16,
}

impl WorkerSettings {
    pub fn from_env() -> anyhow::Result<Self> {
        let health_port = match std::env::var("WORKER_HEALTH_PORT") {
            Err(_) => 5001,
            Ok(value) => match value.trim().parse::<u16>() {
                Ok(port) => port,
                Err(_) => bail!("WORKER_HEALTH_PORT: expected a port number, got {value:?}"),
            },
        };
        Ok(Self { health_port })
    }
}
