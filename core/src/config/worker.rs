//! The `worker` section: what only `supportdesk-worker` reads (its probe port, concurrency,
//! retry policy and spare schemas). Loaded with the rest by `Settings::load_for` when the
//! component is the worker; the API, which runs no worker, has `None` here.

use std::str::FromStr;
use std::time::Duration;

use serde::Deserialize;

use super::{ConfigError, invalid};

#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// `WORKER_HEALTH_PORT`: where `/healthz` and `/metrics` listen (default 5001).
    pub health_port: u16,
    /// `WORKER_CONCURRENCY`: emails in flight at once, per queue (default 4).
    pub concurrency: usize,
    /// `JOB_MAX_ATTEMPTS`: delivery attempts before an email is dead (default 8).
    pub max_attempts: i32,
    /// `JOB_BACKOFF_BASE_MS`: wait after the first failed attempt, doubled each time
    /// (default 10 000, so 10 s, 20 s, 40 s, ...).
    pub backoff_base: Duration,
    /// `JOB_BACKOFF_MAX_SECS`: the longest wait between attempts (default 3600).
    pub backoff_max: Duration,
    /// `JOB_CLAIM_SECS`: how long an attempt holds its message before another worker may
    /// start one (default 60; longer than any send can take).
    pub claim: Duration,
    /// `SPARE_SCHEMAS`: spare tenant schemas kept ready for new workspaces (default 20; 0
    /// turns the refill off, and creating a workspace then makes its schema on the spot).
    pub spare_schemas: u32,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Raw {
    worker_health_port: Option<String>,
    worker_concurrency: Option<String>,
    job_max_attempts: Option<String>,
    job_backoff_base_ms: Option<String>,
    job_backoff_max_secs: Option<String>,
    job_claim_secs: Option<String>,
    spare_schemas: Option<String>,
}

/// A positive number, or `default` when unset.
fn number<T: FromStr + PartialOrd + Default>(
    name: &'static str,
    value: Option<String>,
    default: T,
) -> Result<T, ConfigError> {
    match value.as_deref().map(str::trim) {
        None | Some("") => Ok(default),
        Some(v) => match v.parse::<T>() {
            Ok(n) if n > T::default() => Ok(n),
            _ => Err(invalid(
                name,
                format!("expected a positive number, got {v:?}"),
            )),
        },
    }
}

/// 0 or a positive number, or `default` when unset.
fn count(name: &'static str, value: Option<String>, default: u32) -> Result<u32, ConfigError> {
    match value.as_deref().map(str::trim) {
        None | Some("") => Ok(default),
        Some(v) => v
            .parse::<u32>()
            .map_err(|_| invalid(name, format!("expected 0 or a positive number, got {v:?}"))),
    }
}

impl TryFrom<Raw> for WorkerSettings {
    type Error = ConfigError;

    fn try_from(raw: Raw) -> Result<Self, ConfigError> {
        Ok(Self {
            health_port: number("WORKER_HEALTH_PORT", raw.worker_health_port, 5001u16)?,
            concurrency: number("WORKER_CONCURRENCY", raw.worker_concurrency, 4usize)?,
            max_attempts: number("JOB_MAX_ATTEMPTS", raw.job_max_attempts, 8i32)?,
            backoff_base: Duration::from_millis(number(
                "JOB_BACKOFF_BASE_MS",
                raw.job_backoff_base_ms,
                10_000u64,
            )?),
            backoff_max: Duration::from_secs(number(
                "JOB_BACKOFF_MAX_SECS",
                raw.job_backoff_max_secs,
                3600u64,
            )?),
            claim: Duration::from_secs(number("JOB_CLAIM_SECS", raw.job_claim_secs, 60u64)?),
            spare_schemas: count("SPARE_SCHEMAS", raw.spare_schemas, 20)?,
        })
    }
}

impl WorkerSettings {
    /// The wait after failed attempt `attempt` (1-based): exponential, capped, with ±20 %
    /// jitter so a burst of failures does not retry in lockstep.
    pub fn backoff(&self, attempt: i32) -> Duration {
        let exponent = attempt.saturating_sub(1).clamp(0, 30) as u32;
        let raw = self.backoff_base.saturating_mul(1u32 << exponent.min(20));
        let capped = raw.min(self.backoff_max);
        let jitter = 0.8 + rand::random::<f64>() * 0.4;
        capped.mul_f64(jitter).min(self.backoff_max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, &str)]) -> Result<WorkerSettings, ConfigError> {
        let env = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        super::super::gather(None, Some(env))?
            .try_deserialize::<Raw>()?
            .try_into()
    }

    #[test]
    fn defaults() {
        let s = settings(&[]).unwrap();
        assert_eq!(s.health_port, 5001);
        assert_eq!(s.concurrency, 4);
        assert_eq!(s.max_attempts, 8);
        assert_eq!(s.spare_schemas, 20);
    }

    #[test]
    fn spare_schemas_may_be_turned_off() {
        assert_eq!(
            settings(&[("SPARE_SCHEMAS", "0")]).unwrap().spare_schemas,
            0
        );
        assert_eq!(
            settings(&[("SPARE_SCHEMAS", " 5 ")]).unwrap().spare_schemas,
            5
        );
        let err = settings(&[("SPARE_SCHEMAS", "-1")])
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("SPARE_SCHEMAS:"), "{err}");
    }

    #[test]
    fn bad_values_are_named() {
        let err = settings(&[("WORKER_CONCURRENCY", "0")])
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("WORKER_CONCURRENCY:"), "{err}");
        let err = settings(&[("WORKER_HEALTH_PORT", "http")])
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("WORKER_HEALTH_PORT:"), "{err}");
    }

    #[test]
    fn backoff_doubles_with_jitter_up_to_the_cap() {
        let s = settings(&[
            ("JOB_BACKOFF_BASE_MS", "1000"),
            ("JOB_BACKOFF_MAX_SECS", "30"),
        ])
        .unwrap();
        for (attempt, expected) in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0)] {
            let got = s.backoff(attempt).as_secs_f64();
            assert!(
                got >= expected * 0.8 - 1e-9 && got <= expected * 1.2 + 1e-9,
                "{attempt}: {got}"
            );
        }
        assert!(s.backoff(40) <= Duration::from_secs(30));
        assert!(s.backoff(40) >= Duration::from_secs(24));
    }
}
