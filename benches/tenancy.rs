//! Tenancy benchmark, against the PostgreSQL the tests use (`TEST_DATABASE_URL`).
//!
//! 1. What selecting a tenant costs per request, for each way of doing it, beside a plain
//!    `SELECT 1` on the same pool. A bare pool, not the API's: every variant reads random
//!    tenants on any connection, so the schema-qualified one (the design used) prepares a
//!    statement on most reads once there are more tenants than its cache holds. The load
//!    benchmark measures the design as served (workspaces sharded over the read connections,
//!    `DATABASE_STATEMENT_CACHE` sized for them).
//! 2. Provisioning a workspace (row, schema, tenant migrations, owner) at 1 and at N tenants;
//!    and at N, making a schema alone from the tenant baseline beside applying every tenant
//!    migration in order (alternated, each in a transaction rolled back).
//! 3. `tenants migrate` across N tenants with nothing to do, and with one new migration.
//!
//! Run: `cargo bench --bench tenancy` (`BENCH_TENANTS=N`, default 10000).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test and benchmark harness: a failure here is a failed run, with its message"
)]

#[path = "common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{apply_one_new_migration, ms, percentile, provision};
use rand::seq::IndexedRandom;
use sqlx::{AssertSqlSafe, Connection, PgPool};
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::migrations::{
    Selection, TenantMigrations, migrate_all, provision_with,
};
use supportdesk_test_support::database::TestDatabase;
use uuid::Uuid;

const CLIENTS: usize = 8;
const QUERIES: usize = 20_000;

/// `QUERIES` requests from `CLIENTS` concurrent clients over random tenants; queries/s.
async fn drive<F, Fut>(schemas: &[TenantSchema], run: F) -> f64
where
    F: Fn(TenantSchema) -> Fut + Clone + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let started = Instant::now();
    let per_client = QUERIES / CLIENTS;
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let run = run.clone();
            let picks: Vec<TenantSchema> = (0..per_client)
                .map(|_| schemas.choose(&mut rand::rng()).expect("tenants").clone())
                .collect();
            tokio::spawn(async move {
                for schema in picks {
                    run(schema).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("client");
    }
    (per_client * CLIENTS) as f64 / started.elapsed().as_secs_f64()
}

/// The ways of reading a tenant's row that the benchmark compares.
#[derive(Debug, Clone, Copy)]
enum Variant {
    Baseline,
    Naive,
    CombinedCommit,
    CombinedDrop,
    Qualified,
}

impl Variant {
    const ALL: [Self; 5] = [
        Self::Baseline,
        Self::Naive,
        Self::CombinedCommit,
        Self::CombinedDrop,
        Self::Qualified,
    ];

    fn label(self) -> &'static str {
        match self {
            Self::Baseline => "baseline: SELECT 1",
            Self::Naive => "naive: BEGIN; SET LOCAL; SELECT; COMMIT (4 round trips)",
            Self::CombinedCommit => "BEGIN+SET LOCAL in one; SELECT; COMMIT (3)",
            Self::CombinedDrop => {
                "BEGIN+SET LOCAL in one; SELECT; rollback on release (2 on the path; the design before)"
            }
            Self::Qualified => {
                "schema-qualified SQL, no transaction (1; the design used, here with sqlx's default cache of 100 statements per connection over every tenant)"
            }
        }
    }

    async fn read(self, pool: &PgPool, schema: &TenantSchema) {
        const READ: &str = "SELECT branding FROM settings";
        let set = format!("SET LOCAL search_path TO {}", schema.quoted());
        match self {
            Self::Baseline => {
                sqlx::query("SELECT 1")
                    .execute(pool)
                    .await
                    .expect("select 1");
            }
            Self::Naive => {
                let mut tx = pool.begin().await.expect("begin");
                sqlx::raw_sql(AssertSqlSafe(set))
                    .execute(&mut *tx)
                    .await
                    .expect("set");
                sqlx::query(READ).fetch_one(&mut *tx).await.expect("read");
                tx.commit().await.expect("commit");
            }
            Self::CombinedCommit | Self::CombinedDrop => {
                let mut tx = pool
                    .begin_with(AssertSqlSafe(format!("BEGIN; {set}")))
                    .await
                    .expect("begin");
                sqlx::query(READ).fetch_one(&mut *tx).await.expect("read");
                if matches!(self, Self::CombinedCommit) {
                    tx.commit().await.expect("commit");
                }
            }
            Self::Qualified => {
                sqlx::query(AssertSqlSafe(format!(
                    "SELECT branding FROM {}.settings",
                    schema.quoted()
                )))
                .fetch_one(pool)
                .await
                .expect("read");
            }
        }
    }
}

/// `rounds` schemas made from the baseline and as many by applying every migration, one of
/// each in turn, each in a transaction rolled back; their times, sorted.
async fn schema_making(
    pool: &PgPool,
    rounds: usize,
) -> anyhow::Result<(Vec<Duration>, Vec<Duration>)> {
    let embedded = TenantMigrations::embedded();
    anyhow::ensure!(embedded.baseline_version().is_some(), "no tenant baseline");
    let ways = [embedded.clone(), embedded.step_by_step()];
    let mut times = [Vec::new(), Vec::new()];
    for _ in 0..rounds {
        for (way, migrations) in ways.iter().enumerate() {
            let mut tx = pool.begin().await?;
            let started = Instant::now();
            provision_with(
                &mut tx,
                &TenantSchema::for_workspace(Uuid::new_v4()),
                migrations,
            )
            .await?;
            times[way].push(started.elapsed());
            tx.rollback().await?;
        }
    }
    let [mut from_baseline, mut step_by_step] = times;
    from_baseline.sort();
    step_by_step.sort();
    Ok((from_baseline, step_by_step))
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> anyhow::Result<()> {
    let tenants: usize = std::env::var("BENCH_TENANTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let database = TestDatabase::migrated().await;
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(CLIENTS as u32)
        .connect_with(database.settings.connect_options())
        .await?;
    let owner = Uuid::now_v7();
    sqlx::query("INSERT INTO public.users (id, email, full_name, password_hash) VALUES ($1, 'bench@example.com', 'Bench', 'x')")
        .bind(owner)
        .execute(&pool)
        .await?;

    // 2a. Provisioning with (almost) no tenants yet.
    let first = provision(&pool, owner, 50, 1, "First").await?;
    // 2b. Fill up to N, then provision again.
    let started = Instant::now();
    provision(&pool, owner, tenants.saturating_sub(100), 4, "Bulk").await?;
    let bulk_elapsed = started.elapsed();
    let last = provision(&pool, owner, 50, 1, "Last").await?;
    // 2c. One schema at N: from the baseline, and step by step.
    let (from_baseline, step_by_step) = schema_making(&pool, 20).await?;

    let schemas: Vec<TenantSchema> =
        sqlx::query_scalar::<_, String>("SELECT schema_name FROM public.workspaces")
            .fetch_all(&pool)
            .await?
            .iter()
            .map(|s| TenantSchema::parse(s).expect("schema"))
            .collect();

    // 1. Tenant selection, each variant reading one row of the tenant's settings.
    let mut selection = Vec::new();
    for variant in Variant::ALL {
        let pool = pool.clone();
        let rate = drive(&schemas, move |schema| {
            let pool = pool.clone();
            async move { variant.read(&pool, &schema).await }
        })
        .await;
        selection.push((variant, rate));
    }
    let baseline = selection[0].1;

    // 3. tenants migrate: nothing to do, then one new migration everywhere.
    let started = Instant::now();
    let noop = migrate_all(&pool, &Selection::default(), 4, Arc::new(|_| {})).await?;
    let noop_elapsed = started.elapsed();
    anyhow::ensure!(noop.migrated == 0 && noop.already_current == noop.tenants);
    let (apply_elapsed, applied) = apply_one_new_migration(&pool, 8).await?;

    let mut conn = sqlx::PgConnection::connect_with(&database.settings.connect_options()).await?;
    let size: String =
        sqlx::query_scalar("SELECT pg_size_pretty(pg_database_size(current_database()))")
            .fetch_one(&mut conn)
            .await?;

    println!(
        "tenancy benchmark ({} tenants, {CLIENTS} clients, {QUERIES} reads per variant)",
        schemas.len()
    );
    println!("| measure | value |");
    println!("|---|---|");
    println!(
        "| provision, first 50 tenants: p50 / p95 | {} / {} |",
        ms(percentile(&first, 0.5)),
        ms(percentile(&first, 0.95))
    );
    println!(
        "| provision, at {} tenants: p50 / p95 | {} / {} |",
        schemas.len() - 50,
        ms(percentile(&last, 0.5)),
        ms(percentile(&last, 0.95))
    );
    println!(
        "| one schema at {} tenants, from the baseline: p50 / p95 | {} / {} ({:.2} of step by step) |",
        schemas.len(),
        ms(percentile(&from_baseline, 0.5)),
        ms(percentile(&from_baseline, 0.95)),
        percentile(&from_baseline, 0.5).as_secs_f64()
            / percentile(&step_by_step, 0.5).as_secs_f64()
    );
    println!(
        "| one schema at {} tenants, every migration in order: p50 / p95 | {} / {} |",
        schemas.len(),
        ms(percentile(&step_by_step, 0.5)),
        ms(percentile(&step_by_step, 0.95))
    );
    println!(
        "| bulk provisioning (4 at a time) | {:.0} tenants/s |",
        (tenants.saturating_sub(100)) as f64 / bulk_elapsed.as_secs_f64()
    );
    for (variant, rate) in &selection {
        println!(
            "| {} | {rate:.0} q/s ({:.2}) |",
            variant.label(),
            rate / baseline
        );
    }
    println!("| tenants migrate, nothing to do | {} |", ms(noop_elapsed));
    println!(
        "| tenants migrate, one new migration (8 at a time) | {:.1} s ({} tenants) |",
        apply_elapsed.as_secs_f64(),
        applied.migrated
    );
    println!("| database size | {size} |");
    Ok(())
}
