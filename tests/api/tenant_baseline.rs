//! New tenant schemas are made from the baseline script (`tenant_migrations/baseline.sql`)
//! rather than by applying every migration in order; these hold the two ways to one result:
//! the same definitions and rows in `pg_dump`'s terms, the same refinery history, and the
//! same behaviour for migrations that come later.

use std::process::Command;

use sqlx::{PgConnection, PgPool};
use supportdesk_core::migrate::SqlxMigrator;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::migrations::{TenantMigrations, provision_with};
use supportdesk_test_support::database::{TestDatabase, pg_bindir};
use uuid::Uuid;

/// `pg_dump` of `schema` in `db`, definitions and rows, with the schema's name written as
/// `tenant`. refinery's history rows are left out (they hold the time they were applied):
/// [`history`] compares them.
fn dump(db: &TestDatabase, schema: &TenantSchema) -> String {
    let output = Command::new(pg_bindir().join("pg_dump"))
        .args(["--no-owner", "--no-privileges", "--inserts", "--schema"])
        .arg(schema.name())
        .arg(format!(
            "--exclude-table-data={}.refinery_schema_history",
            schema.name()
        ))
        .arg("--dbname")
        .arg(&db.url)
        .output()
        .expect("run pg_dump");
    assert!(
        output.status.success(),
        "pg_dump failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("pg_dump writes UTF-8")
        .lines()
        // A random key per dump, for psql's restricted mode.
        .filter(|line| !line.starts_with("\\restrict") && !line.starts_with("\\unrestrict"))
        .map(|line| line.replace(schema.name(), "tenant"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The schema's refinery history: version, name and checksum of each migration applied.
async fn history(pool: &PgPool, schema: &TenantSchema) -> Vec<(i32, String, String)> {
    sqlx::query_as(schema.sql(
        "SELECT version, name, checksum FROM {schema}.refinery_schema_history ORDER BY version",
    ))
    .fetch_all(pool)
    .await
    .unwrap()
}

/// The first line where `a` and `b` differ, with a few lines of each around it.
fn first_difference(a: &str, b: &str) -> Option<String> {
    let (a, b): (Vec<_>, Vec<_>) = (a.lines().collect(), b.lines().collect());
    let at = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))?;
    let around = |lines: &[&str]| lines[at.saturating_sub(3)..(at + 6).min(lines.len())].join("\n");
    Some(format!(
        "line {}:\n--- step by step\n{}\n--- from the baseline\n{}",
        at + 1,
        around(&a),
        around(&b)
    ))
}

async fn make(tx: &mut PgConnection, migrations: &TenantMigrations) -> TenantSchema {
    let schema = TenantSchema::for_workspace(Uuid::new_v4());
    provision_with(tx, &schema, migrations).await.unwrap();
    schema
}

#[tokio::test]
async fn a_schema_made_from_the_baseline_is_the_schema_the_migrations_make() {
    let db = TestDatabase::migrated().await;
    let pool = db.pool().await;
    let migrations = TenantMigrations::embedded();
    let version = migrations
        .baseline_version()
        .expect("the embedded migrations have a baseline");
    assert!(version >= 28, "the baseline stands for V{version}");

    // Both in one transaction, so the defaults taken from now() agree.
    let mut tx = pool.begin().await.unwrap();
    let stepped = make(&mut tx, &migrations.step_by_step()).await;
    let from_baseline = make(&mut tx, &migrations).await;
    tx.commit().await.unwrap();

    let (a, b) = (dump(&db, &stepped), dump(&db, &from_baseline));
    assert!(a.contains("CREATE TABLE tenant.conversations"), "{a}");
    assert!(a.contains("INSERT INTO tenant.settings"), "{a}");
    if let Some(difference) = first_difference(&a, &b) {
        panic!("the schemas differ at {difference}");
    }
    assert_eq!(
        history(&pool, &stepped).await,
        history(&pool, &from_baseline).await
    );
    assert_eq!(
        history(&pool, &from_baseline).await.len(),
        migrations.all().len()
    );
}

#[tokio::test]
async fn migrations_after_the_baseline_apply_to_new_and_to_existing_schemas() {
    let db = TestDatabase::migrated().await;
    let pool = db.pool().await;
    let today = TenantMigrations::embedded();
    let later = today
        .with(
            "V9999__later_column",
            "ALTER TABLE conversations ADD COLUMN later text NOT NULL DEFAULT 'yes';",
        )
        .unwrap();

    // Made today from the baseline, then migrated by a later release.
    let mut tx = pool.begin().await.unwrap();
    let existing = make(&mut tx, &today).await;
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "SET LOCAL search_path TO {}",
        existing.quoted()
    )))
    .execute(&mut *tx)
    .await
    .unwrap();
    let report = later
        .runner()
        .set_grouped(true)
        .run_async(&mut SqlxMigrator::new(&mut tx))
        .await
        .unwrap();
    let applied: Vec<String> = report
        .applied_migrations()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(applied, ["V9999__later_column"]);
    // Made by the later release: its baseline, then the later migration.
    let new = make(&mut tx, &later).await;
    tx.commit().await.unwrap();

    for schema in [&existing, &new] {
        let column: Option<String> = sqlx::query_scalar(
            "SELECT column_default FROM information_schema.columns
              WHERE table_schema = $1 AND table_name = 'conversations' AND column_name = 'later'",
        )
        .bind(schema.name())
        .fetch_optional(&pool)
        .await
        .unwrap();
        assert_eq!(column.as_deref(), Some("'yes'::text"), "{schema}");
    }
    assert_eq!(history(&pool, &existing).await, history(&pool, &new).await);
}
