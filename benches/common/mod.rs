//! Pieces the benchmarks share (`#[path]`-included by each bench target, so unused items
//! are expected in some of them).
#![allow(dead_code)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::PgPool;
use supportdesk_core::tenancy::migrations::{
    MigrateAllReport, Selection, TenantMigrations, migrate_all_with,
};

pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// `tenants migrate` with one migration more than this binary has (a column added to a
/// tenant table), across every workspace, `concurrency` at a time.
pub async fn apply_one_new_migration(
    pool: &PgPool,
    concurrency: usize,
) -> anyhow::Result<(Duration, MigrateAllReport)> {
    let next = TenantMigrations::embedded().latest_version() + 1;
    let with_new = TenantMigrations::embedded().with(
        &format!("V{next}__bench_add_column"),
        "ALTER TABLE agent_profiles ADD COLUMN bench_flag boolean NOT NULL DEFAULT false;",
    )?;
    let started = Instant::now();
    let report = migrate_all_with(
        pool,
        &Selection::default(),
        concurrency,
        Arc::new(|_| {}),
        &with_new,
    )
    .await?;
    let elapsed = started.elapsed();
    anyhow::ensure!(report.failed.is_empty(), "{:?}", report.failed);
    Ok((elapsed, report))
}
