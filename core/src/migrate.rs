//! refinery's driver on sqlx: both the control-plane migrations (run by the API and its
//! operator commands) and the tenant migrations (run also by the worker, which migrates spare
//! schemas) go through it.
//!
//! refinery ships drivers for tokio-postgres but not for sqlx; rather than run a second
//! PostgreSQL client (with its own TLS setup) just for migrations, `SqlxMigrator` implements
//! refinery's async driver traits on a sqlx connection.

use refinery_core::Migration;
use refinery_core::traits::r#async::{AsyncMigrate, AsyncQuery, AsyncTransaction};
use sqlx::postgres::PgConnection;
use sqlx::{AssertSqlSafe, Connection, Row};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

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
