//! Schema migrations with refinery, driven over our own sqlx connection.
//!
//! The driver, `SqlxMigrator`, is refinery's on a sqlx connection (`supportdesk_core::migrate`,
//! shared with the tenant migrations). Every run holds a PostgreSQL advisory
//! lock on a dedicated connection, so many replicas starting with
//! `RUN_MIGRATIONS_ON_STARTUP=true` migrate exactly once; the lock dies with the connection
//! if the process does.

use refinery_core::Runner;
use sqlx::Connection;
use sqlx::postgres::PgConnection;
use supportdesk_core::config::DatabaseSettings;
use supportdesk_core::locks::CONTROL_PLANE_MIGRATIONS;
use supportdesk_core::migrate::SqlxMigrator;

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// What a migration run did, for the CLI's output.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MigrationReport {
    pub applied: Vec<String>,
}

/// Applies pending control-plane migrations (schema `public`), once across all replicas.
pub async fn control_plane(database: &DatabaseSettings) -> anyhow::Result<MigrationReport> {
    let mut conn = PgConnection::connect_with(&database.connect_options()).await?;
    sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(CONTROL_PLANE_MIGRATIONS)
        .execute(&mut conn)
        .await?;
    let result = embedded::migrations::runner()
        .set_abort_divergent(true)
        .set_abort_missing(true)
        .run_async(&mut SqlxMigrator::new(&mut conn))
        .await;
    // Closing the connection releases the lock even if the unlock below never runs.
    let _ = sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(CONTROL_PLANE_MIGRATIONS)
        .execute(&mut conn)
        .await;
    let _ = conn.close().await;
    let report = result?;
    Ok(MigrationReport {
        applied: report
            .applied_migrations()
            .iter()
            .map(ToString::to_string)
            .collect(),
    })
}

/// The control-plane migrations compiled into this binary, for status output.
pub fn control_plane_runner() -> Runner {
    embedded::migrations::runner()
}
