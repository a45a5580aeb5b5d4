//! Keeps `SPARE_SCHEMAS` spare tenant schemas ready, so creating a workspace renames one
//! instead of creating ~45 relations on the request path (see `supportdesk_core::tenancy::spares`,
//! which owns the SQL).
//!
//! Each pass drops spares behind this binary's tenant version (after an upgrade; dropping is
//! simpler than migrating them and always correct) and makes a few spares, one transaction
//! each, when fewer than the target are ready. The loop wakes every second, and when a claim
//! commits (its NOTIFY). A database error is logged and retried after a growing pause; a pass
//! cut short (shutdown, a killed process) rolls back and leaves no half-made spare.
//!
//! The pool exists to keep DDL off the request path, so the refill stays out of the way of a
//! burst of creates: while claims keep coming it waits until none has come for [`SETTLE`],
//! and only a pool down to a quarter of its target is refilled at once. Making a spare creates
//! ~45 relations; done beside every claim, it competed with the next create for the CPU and the
//! catalog, and sent every backend its invalidations in the middle of the burst.

use std::time::{Duration, Instant};

use sqlx::PgPool;
use supportdesk_core::tenancy::migrations::TenantMigrations;
use supportdesk_core::tenancy::spares::{self, REFILL_CHANNEL, Refill};
use tokio_util::sync::CancellationToken;

use crate::wake::Woken;

/// Spares made (or stale ones dropped) per pass at most; the loop goes on at once while the
/// pool is short, so a pass stays short and shutdown waits for little.
pub const BATCH: u32 = 4;
const POLL: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// Quiet after the last claim before the pool is refilled (unless it runs low).
pub const SETTLE: Duration = Duration::from_secs(2);

/// Refills until `stop` is cancelled, keeping `target` spares at the embedded tenant version.
pub async fn run(db: PgPool, target: u32, stop: CancellationToken) {
    run_with(db, target, TenantMigrations::embedded(), stop).await;
}

/// [`run`] with a given set of tenant migrations.
pub async fn run_with(
    db: PgPool,
    target: u32,
    migrations: TenantMigrations,
    stop: CancellationToken,
) {
    let mut listener = None;
    let mut failures = 0u32;
    // Ready spares as of the last pass, less the claims heard of since; unknown at first.
    let mut ready: Option<i64> = None;
    let mut last_claim: Option<Instant> = None;
    while !stop.is_cancelled() {
        if listener.is_none() {
            listener = crate::wake::listen(&db, REFILL_CHANNEL).await;
        }
        let settle = settling(ready, target, last_claim.map(|at| at.elapsed()));
        let wait = match settle {
            Some(wait) => wait,
            None => {
                let pass = tokio::select! {
                    () = stop.cancelled() => break,
                    pass = spares::refill(&db, &migrations, target, BATCH) => pass,
                };
                match pass {
                    Ok(pass) => {
                        failures = 0;
                        ready = Some(pass.ready);
                        report(&pass);
                        if pass.made == BATCH || pass.dropped == BATCH {
                            continue;
                        }
                        POLL
                    }
                    Err(err) => {
                        failures += 1;
                        let backoff = backoff(failures);
                        tracing::warn!(error = %format!("{err:#}"), retry_in_ms = backoff.as_millis() as u64,
                            "refilling spare schemas failed; retrying");
                        backoff
                    }
                }
            }
        };
        match crate::wake::pause(&mut listener, wait, &stop).await {
            Woken::Stopped => break,
            Woken::Notified => {
                ready = ready.map(|n| n - 1);
                last_claim = Some(Instant::now());
            }
            Woken::Timer => {}
        }
    }
    tracing::info!("spare schema refill stopped");
}

/// How much longer to hold the refill back: `Some` while a claim came less than [`SETTLE`]
/// ago and more than a quarter of `target` spares are (as far as the loop knows) ready.
fn settling(ready: Option<i64>, target: u32, since_claim: Option<Duration>) -> Option<Duration> {
    let low_water = i64::from(target / 4).max(1);
    match (ready, since_claim) {
        (Some(ready), Some(since)) if ready > low_water && since < SETTLE => Some(SETTLE - since),
        _ => None,
    }
}

fn report(pass: &Refill) {
    metrics::gauge!("spare_schemas_ready").set(pass.ready as f64);
    if pass.dropped > 0 {
        tracing::info!(dropped = pass.dropped, "dropped stale spare schemas");
    }
    if pass.made > 0 {
        tracing::debug!(made = pass.made, ready = pass.ready, "made spare schemas");
    }
}

/// The pause after `failures` failed passes in a row: 0.5 s doubling, at most 30 s.
fn backoff(failures: u32) -> Duration {
    (Duration::from_millis(250) * 2u32.saturating_pow(failures.min(8))).min(MAX_BACKOFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_of_claims_is_left_alone_until_it_settles() {
        let just_now = Some(Duration::from_millis(300));
        assert_eq!(
            settling(Some(40), 60, just_now),
            Some(SETTLE - Duration::from_millis(300))
        );
        assert_eq!(settling(Some(40), 60, Some(SETTLE)), None, "quiet: refill");
        assert_eq!(settling(Some(40), 60, None), None, "no claim heard of");
        assert_eq!(settling(None, 60, just_now), None, "no pass yet");
    }

    #[test]
    fn a_pool_down_to_a_quarter_is_refilled_at_once() {
        let just_now = Some(Duration::from_millis(1));
        assert!(settling(Some(16), 60, just_now).is_some());
        assert_eq!(settling(Some(15), 60, just_now), None);
        assert_eq!(
            settling(Some(1), 3, just_now),
            None,
            "at least one in reserve"
        );
        assert!(settling(Some(2), 3, just_now).is_some());
    }

    #[test]
    fn backoff_grows_to_its_cap() {
        assert_eq!(backoff(1), Duration::from_millis(500));
        assert_eq!(backoff(2), Duration::from_secs(1));
        assert_eq!(backoff(50), MAX_BACKOFF);
    }
}
