//! Tenant migrations: `tenant_migrations/` applied to each workspace schema with refinery,
//! each schema keeping its own history table.
//!
//! A new schema is made from the tenant baseline (`tenancy::baseline`) and then the
//! migrations after it; an existing one is brought up to date by the migrations it lacks.
//!
//! Every run for a tenant is one transaction under that tenant's advisory lock, with
//! `search_path` set (locally) to the tenant's schema only, and it records the schema's new
//! version on the workspace row. `migrate_all` reads those versions in one query, so tenants
//! already current cost nothing, and it migrates the rest with bounded parallelism; one
//! tenant's failure is reported and does not stop the others, and a re-run resumes.

use std::sync::Arc;

use futures::StreamExt;
use refinery_core::{Migration, Runner, Target};
use serde::Serialize;
use sqlx::{AssertSqlSafe, PgConnection, PgPool};
use uuid::Uuid;

use crate::migrate::{Sending, SqlxMigrator};
use crate::tenancy::TenantSchema;
use crate::tenancy::baseline::Baseline;

mod embedded {
    // The tenant migrations live at the workspace root, beside the control plane's.
    refinery::embed_migrations!("../tenant_migrations");
}

/// A set of tenant migrations: the ones compiled in, or (for rehearsals and benchmarks) those
/// plus more; with the baseline new schemas are made from, when it stands for a prefix of them.
#[derive(Clone)]
pub struct TenantMigrations {
    migrations: Arc<Vec<Migration>>,
    baseline: Option<Baseline>,
}

impl TenantMigrations {
    pub fn embedded() -> Self {
        let migrations = embedded::migrations::runner().get_migrations().clone();
        let latest = migrations.iter().map(Migration::version).max().unwrap_or(0);
        Self {
            migrations: Arc::new(migrations),
            baseline: Baseline::embedded().filter(|b| b.version <= latest),
        }
    }

    /// This set and one more migration (`V<n>__<name>` and its SQL), applied after the
    /// baseline.
    pub fn with(&self, name: &str, sql: &str) -> anyhow::Result<Self> {
        let mut migrations = (*self.migrations).clone();
        migrations.push(Migration::unapplied(name, sql)?);
        Ok(Self {
            migrations: Arc::new(migrations),
            baseline: self.baseline,
        })
    }

    /// This set without its baseline: new schemas are made by applying every migration in
    /// order (what the baseline is checked against).
    pub fn step_by_step(&self) -> Self {
        Self {
            migrations: self.migrations.clone(),
            baseline: None,
        }
    }

    /// The version new schemas are made at in one go, before the migrations after it.
    pub fn baseline_version(&self) -> Option<i32> {
        self.baseline.map(|b| b.version)
    }

    /// Every migration of the set, in order.
    pub fn all(&self) -> &[Migration] {
        &self.migrations
    }

    pub fn runner(&self) -> Runner {
        Runner::new(&self.migrations)
            .set_abort_divergent(true)
            .set_abort_missing(true)
    }

    /// The version a schema is at once every migration of the set is applied.
    pub fn latest_version(&self) -> i32 {
        self.migrations
            .iter()
            .map(Migration::version)
            .max()
            .unwrap_or(0)
    }
}

/// The version every tenant schema should be at: the highest tenant migration compiled in.
pub fn latest_version() -> i32 {
    TenantMigrations::embedded().latest_version()
}

/// Creates `schema` and brings it to the latest version, in the caller's transaction.
pub async fn provision(tx: &mut PgConnection, schema: &TenantSchema) -> anyhow::Result<()> {
    provision_with(tx, schema, &TenantMigrations::embedded()).await
}

/// [`provision`] with a given set of migrations.
pub async fn provision_with(
    tx: &mut PgConnection,
    schema: &TenantSchema,
    migrations: &TenantMigrations,
) -> anyhow::Result<()> {
    create_migrated(tx, schema, migrations).await
}

/// A schema name of ours (a workspace's, a spare's), quoted for SQL. Only these types reach
/// [`create_migrated`], so a schema it creates is never named by user input.
pub(crate) trait OwnSchemaName {
    fn quoted(&self) -> String;
}

impl OwnSchemaName for TenantSchema {
    fn quoted(&self) -> String {
        TenantSchema::quoted(self)
    }
}

/// Creates `schema` and applies `migrations` to it, in the caller's transaction: the
/// baseline's script, recorded as the migrations up to its version, then the migrations after
/// it. The unqualified names (and refinery's history table) land in the new schema because
/// `search_path` is set to it, locally, while they run; it is then reset to the session's own,
/// which pooled sessions keep empty.
///
/// On Citus with schema-based sharding on, the schema is made and migrated on the coordinator
/// and then distributed whole (`citus_schema_distribute`, still in the caller's transaction),
/// rather than distributed from its `CREATE SCHEMA` on: the tenant migrations then run as they
/// always have, on plain tables, whatever Citus would refuse of their DDL on distributed ones
/// (V2 and V5 combine `ADD CONSTRAINT` with other subcommands, which Citus refuses), and their
/// recorded checksums stay what they are on every other deployment; the baseline's script runs
/// there too. Migrations after those
/// run on distributed schemas too (`migrate_one`), so they are written as statements Citus
/// plans; `tests/api/citus.rs` applies them to a distributed schema.
pub(crate) async fn create_migrated(
    tx: &mut PgConnection,
    schema: &impl OwnSchemaName,
    migrations: &TenantMigrations,
) -> anyhow::Result<()> {
    let distribute = schema_based_sharding(&mut *tx).await?;
    if distribute {
        sqlx::raw_sql("SET LOCAL citus.enable_schema_based_sharding = off")
            .execute(&mut *tx)
            .await?;
    }
    sqlx::raw_sql(AssertSqlSafe(format!(
        "CREATE SCHEMA {schema}; SET LOCAL search_path TO {schema}",
        schema = schema.quoted()
    )))
    .execute(&mut *tx)
    .await?;
    if let Some(baseline) = migrations.baseline {
        // The script is ours, compiled into the binary: not user input.
        sqlx::raw_sql(baseline.sql).execute(&mut *tx).await?;
        migrations
            .runner()
            .set_target(Target::FakeVersion(baseline.version))
            .run_async(&mut SqlxMigrator::new(&mut *tx))
            .await?;
    }
    migrations
        .runner()
        .set_grouped(true)
        .run_async(&mut SqlxMigrator::new(&mut *tx))
        .await?;
    sqlx::query("RESET search_path").execute(&mut *tx).await?;
    if distribute {
        // The audit log's append-only triggers go with its table to the worker node; Citus
        // calls triggers on distributed tables unsafe because one could reach other nodes,
        // and these only raise.
        sqlx::raw_sql(AssertSqlSafe(format!(
            "SET LOCAL citus.enable_unsafe_triggers = on;
             SELECT citus_schema_distribute('{schema}');
             SET LOCAL citus.enable_schema_based_sharding = on",
            schema = schema.quoted()
        )))
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}

/// Whether this database is a Citus coordinator with schema-based sharding on (the operator's
/// `ALTER DATABASE ... SET citus.enable_schema_based_sharding = on`): every tenant schema is
/// then to be a distributed schema.
pub async fn schema_based_sharding(conn: &mut PgConnection) -> sqlx::Result<bool> {
    let setting: Option<String> =
        sqlx::query_scalar("SELECT current_setting('citus.enable_schema_based_sharding', true)")
            .fetch_one(&mut *conn)
            .await?;
    Ok(setting.as_deref() == Some("on"))
}

/// Brings one tenant to the latest version in its own transaction; the migrations applied.
pub async fn migrate_one(
    pool: &PgPool,
    workspace_id: Uuid,
    schema: &TenantSchema,
    migrations: &TenantMigrations,
) -> anyhow::Result<Vec<String>> {
    let mut tx = crate::db::begin(pool, None).await?;
    sqlx::query!("SELECT pg_advisory_xact_lock($1)", schema.lock_key())
        .execute(&mut *tx)
        .await?;
    // No statement limit (a large tenant's index build may take long), but never queue
    // forever behind live traffic's locks: that tenant fails and a re-run resumes it.
    sqlx::raw_sql(AssertSqlSafe(format!(
        "SET LOCAL search_path TO {}; SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = '30s'",
        schema.quoted()
    )))
    .execute(&mut *tx)
    .await?;
    // A distributed schema takes its migrations a statement at a time (see `Sending`).
    let sending = if schema_based_sharding(&mut tx).await? {
        Sending::StatementByStatement
    } else {
        Sending::Whole
    };
    let report = migrations
        .runner()
        .set_grouped(true)
        .run_async(&mut SqlxMigrator(&mut tx, sending))
        .await?;
    sqlx::query!(
        "UPDATE public.workspaces SET schema_version = $2 WHERE id = $1",
        workspace_id,
        migrations.latest_version(),
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(report
        .applied_migrations()
        .iter()
        .map(ToString::to_string)
        .collect())
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TenantFailure {
    pub slug: String,
    pub error: String,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MigrateAllReport {
    pub latest_version: i32,
    pub tenants: usize,
    pub already_current: usize,
    pub migrated: usize,
    pub failed: Vec<TenantFailure>,
}

/// Which tenants a run covers.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Only the workspace with this slug.
    pub only: Option<String>,
}

/// Migrates every tenant that is behind, `concurrency` at a time; `progress` hears of each
/// tenant as it finishes (after being told the count of tenants to migrate).
pub async fn migrate_all(
    pool: &PgPool,
    selection: &Selection,
    concurrency: usize,
    progress: Arc<dyn Fn(Progress) + Send + Sync>,
) -> anyhow::Result<MigrateAllReport> {
    migrate_all_with(
        pool,
        selection,
        concurrency,
        progress,
        &TenantMigrations::embedded(),
    )
    .await
}

/// [`migrate_all`] with a given set of migrations.
///
/// Workspaces only: spare schemas (`tenancy::spares`) are not brought up to date here. The
/// worker's refill loop drops the ones behind its version and makes new ones, which is
/// simpler and always correct, as a spare holds no data.
pub async fn migrate_all_with(
    pool: &PgPool,
    selection: &Selection,
    concurrency: usize,
    progress: Arc<dyn Fn(Progress) + Send + Sync>,
    migrations: &TenantMigrations,
) -> anyhow::Result<MigrateAllReport> {
    let latest = migrations.latest_version();
    let rows: Vec<(Uuid, String, String, i32)> = sqlx::query!(
        "SELECT id, slug, schema_name, schema_version FROM public.workspaces
          WHERE status = 'active' AND ($1::text IS NULL OR slug = $1)
          ORDER BY created_at",
        selection.only.as_deref(),
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| (r.id, r.slug, r.schema_name, r.schema_version))
    .collect();
    if let Some(only) = &selection.only
        && rows.is_empty()
    {
        anyhow::bail!("no active workspace with slug {only:?}");
    }
    let mut report = MigrateAllReport {
        latest_version: latest,
        tenants: rows.len(),
        ..Default::default()
    };
    let behind: Vec<_> = rows.into_iter().filter(|r| r.3 < latest).collect();
    report.already_current = report.tenants - behind.len();
    progress(Progress::Started {
        behind: behind.len(),
    });

    let results: Vec<(String, anyhow::Result<Vec<String>>)> = futures::stream::iter(behind)
        .map(|(id, slug, schema_name, _)| {
            let progress = progress.clone();
            async move {
                let result = match TenantSchema::parse(&schema_name) {
                    Ok(schema) => migrate_one(pool, id, &schema, migrations).await,
                    Err(e) => Err(anyhow::anyhow!(e)),
                };
                progress(Progress::Finished {
                    slug: slug.clone(),
                    ok: result.is_ok(),
                });
                (slug, result)
            }
        })
        .buffer_unordered(concurrency.max(1))
        .collect()
        .await;
    for (slug, result) in results {
        match result {
            Ok(_) => report.migrated += 1,
            Err(err) => report.failed.push(TenantFailure {
                slug,
                error: format!("{err:#}"),
            }),
        }
    }
    report.failed.sort_by(|a, b| a.slug.cmp(&b.slug));
    Ok(report)
}

/// What `migrate_all` reports as it goes.
#[derive(Debug, Clone)]
pub enum Progress {
    Started { behind: usize },
    Finished { slug: String, ok: bool },
}
