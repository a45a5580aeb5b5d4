//! Keeps `SPARE_SCHEMAS` spare tenant schemas ready, so creating a workspace renames one
//! instead of creating ~45 relations on the request path (see `supportdesk_core::tenancy::spares`,
//! which owns the SQL).
//!
//! Each pass drops spares behind this binary's tenant version (after an upgrade; dropping is
//! simpler than migrating them and always correct) and makes a few spares, one transaction
//! each, when fewer than the target are ready. The loop wakes every second, and at once when a
//! claim commits (its NOTIFY), so a claimed spare is replaced before the next create. A
//! database error is logged and retried after a growing pause; a pass cut short (shutdown, a
//! killed process) rolls back and leaves no half-made spare.

use std::time::Duration;

use sqlx::PgPool;
use supportdesk_core::tenancy::migrations::TenantMigrations;
use supportdesk_core::tenancy::spares::{self, REFILL_CHANNEL, Refill};
use tokio_util::sync::CancellationToken;

/// Spares made (or stale ones dropped) per pass at most; the loop goes on at once while the
/// pool is short, so a pass stays short and shutdown waits for little.
pub const BATCH: u32 = 4;
const POLL: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

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
    while !stop.is_cancelled() {
        if listener.is_none() {
            listener = crate::wake::listen(&db, REFILL_CHANNEL).await;
        }
        let pass = tokio::select! {
            () = stop.cancelled() => break,
            pass = spares::refill(&db, &migrations, target, BATCH) => pass,
        };
        let wait = match pass {
            Ok(pass) => {
                failures = 0;
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
        };
        if !crate::wake::pause(&mut listener, wait, &stop).await {
            break;
        }
    }
    tracing::info!("spare schema refill stopped");
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
    fn backoff_grows_to_its_cap() {
        assert_eq!(backoff(1), Duration::from_millis(500));
        assert_eq!(backoff(2), Duration::from_secs(1));
        assert_eq!(backoff(50), MAX_BACKOFF);
    }
}
