//! Schema migrations with refinery, driven over our own sqlx connection.
//!
//! refinery ships drivers for tokio-postgres but not for sqlx; rather than run a second
//! PostgreSQL client (with its own TLS setup) just for migrations, `SqlxMigrator` implements
//! refinery's async driver traits on a sqlx connection. Every run holds a PostgreSQL advisory
//! lock on a dedicated connection, so many replicas starting with
//! `RUN_MIGRATIONS_ON_STARTUP=true` migrate exactly once; the lock dies with the connection
//! if the process does.

use refinery_core::traits::r#async::{AsyncQuery, AsyncTransaction};
use refinery_core::{AsyncMigrate, Migration, Runner};
use sqlx::postgres::PgConnection;
use sqlx::{AssertSqlSafe, Connection, Row};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::config::DatabaseSettings;

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// Advisory lock key for control-plane migrations (`'supportdesk'` as bytes, then 1).
const CONTROL_PLANE_LOCK: i64 = 0x7375_7070_6f72_7401;

/// What a migration run did, for the CLI's output.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MigrationReport {
    pub applied: Vec<String>,
}

/// Applies pending control-plane migrations (schema `public`), once across all replicas.
pub async fn control_plane(database: &DatabaseSettings) -> anyhow::Result<MigrationReport> {
    let mut conn = PgConnection::connect_with(&database.connect_options()).await?;
    sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(CONTROL_PLANE_LOCK)
        .execute(&mut conn)
        .await?;
    let result = embedded::migrations::runner()
        .set_abort_divergent(true)
        .set_abort_missing(true)
        .run_async(&mut SqlxMigrator(&mut conn))
        .await;
    // Closing the connection releases the lock even if the unlock below never runs.
    let _ = sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(CONTROL_PLANE_LOCK)
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

/// refinery's async driver on a borrowed sqlx connection.
pub struct SqlxMigrator<'c>(pub &'c mut PgConnection);

impl AsyncTransaction for SqlxMigrator<'_> {
    type Error = sqlx::Error;

    async fn execute<'a, T: Iterator<Item = &'a str> + Send + 'a>(
        &'a mut self,
        queries: T,
    ) -> Result<usize, Self::Error> {
        let mut tx = self.0.begin().await?;
        let mut count = 0;
        for query in queries {
            // Migration files are ours, compiled into the binary: not user input.
            sqlx::raw_sql(AssertSqlSafe(query.to_owned()))
                .execute(&mut *tx)
                .await?;
            count += 1;
        }
        tx.commit().await?;
        Ok(count)
    }
}

impl AsyncQuery<Vec<Migration>> for SqlxMigrator<'_> {
    async fn query<'a>(&'a mut self, query: &'a str) -> Result<Vec<Migration>, Self::Error> {
        let rows = sqlx::raw_sql(AssertSqlSafe(query.to_owned()))
            .fetch_all(&mut *self.0)
            .await?;
        rows.iter()
            .map(|row| {
                let applied_on: String = row.try_get(2)?;
                let checksum: String = row.try_get(3)?;
                Ok(Migration::applied(
                    row.try_get(0)?,
                    row.try_get(1)?,
                    OffsetDateTime::parse(&applied_on, &Rfc3339)
                        .map_err(|e| sqlx::Error::Decode(Box::new(e)))?,
                    checksum
                        .parse()
                        .map_err(|e| sqlx::Error::Decode(Box::new(e)))?,
                ))
            })
            .collect()
    }
}

impl AsyncMigrate for SqlxMigrator<'_> {}
