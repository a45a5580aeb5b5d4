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
pub struct SqlxMigrator<'c>(pub &'c mut PgConnection, pub Sending);

/// How a migration's SQL goes to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sending {
    /// The whole file as one simple query.
    Whole,
    /// One statement at a time (in the same transaction): for workspace schemas distributed
    /// by Citus, which forwards a `CREATE INDEX` to the worker node as the query text it came
    /// in, and a worker refuses a text of several statements.
    StatementByStatement,
}

impl<'c> SqlxMigrator<'c> {
    pub fn new(conn: &'c mut PgConnection) -> Self {
        Self(conn, Sending::Whole)
    }
}

/// `sql` split into its statements at the semicolons that end them: not those inside quotes
/// ('...', "...", dollar quotes such as a function body's `$$...$$`) or comments. Lexing
/// only, no parsing: enough for migration files, which are ours.
pub fn statements(sql: &str) -> Vec<&str> {
    let bytes = sql.as_bytes();
    let mut found = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\'' | b'"' => {
                let quote = bytes[i];
                i += 1;
                while i < bytes.len() {
                    if bytes[i] == quote {
                        // A doubled quote is one quote inside.
                        if bytes.get(i + 1) == Some(&quote) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < bytes.len() {
                    if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                continue;
            }
            b'$' => {
                // `$tag$` opens a dollar quote (a `$1` parameter does not: digits first).
                let tag_end = sql[i + 1..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map(|n| i + 1 + n);
                if let Some(end) = tag_end
                    && bytes[end] == b'$'
                    && !bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
                {
                    let tag = &sql[i..=end];
                    match sql[end + 1..].find(tag) {
                        Some(close) => i = end + 1 + close + tag.len() - 1,
                        None => i = bytes.len(),
                    }
                }
            }
            b';' => {
                let statement = sql[start..i].trim();
                if !statement.is_empty() {
                    found.push(statement);
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    let rest = sql[start.min(sql.len())..].trim();
    if !rest.is_empty() && !only_comments(rest) {
        found.push(rest);
    }
    found
}

/// Whether `text` holds nothing but comments and whitespace.
fn only_comments(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .all(|line| line.is_empty() || line.starts_with("--"))
}

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
            match self.1 {
                Sending::Whole => {
                    sqlx::raw_sql(AssertSqlSafe(query.to_owned()))
                        .execute(&mut *tx)
                        .await?;
                }
                Sending::StatementByStatement => {
                    for statement in statements(query) {
                        sqlx::raw_sql(AssertSqlSafe(statement.to_owned()))
                            .execute(&mut *tx)
                            .await?;
                    }
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_split_at_the_semicolons_that_end_them() {
        let sql = "-- a comment; with a semicolon
ALTER TABLE contacts ADD COLUMN nickname text DEFAULT 'a;b';
CREATE INDEX \"odd;name\" ON contacts (nickname); /* block; comment */
CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'no; never'; END $$;
CREATE FUNCTION g() RETURNS text LANGUAGE sql AS $body$ SELECT 'x;' $body$;
SELECT $1::int;
-- trailing comment";
        let found = statements(sql);
        assert_eq!(found.len(), 5, "{found:#?}");
        assert!(found[0].ends_with("DEFAULT 'a;b'"));
        assert_eq!(found[1], "CREATE INDEX \"odd;name\" ON contacts (nickname)");
        assert!(found[2].ends_with("END $$"));
        assert!(found[3].ends_with("$body$ SELECT 'x;' $body$"));
        assert_eq!(found[4], "SELECT $1::int");
    }

    #[test]
    fn every_tenant_migration_splits_into_whole_statements() {
        for migration in crate::tenancy::migrations::TenantMigrations::embedded().all() {
            let sql = migration.sql().unwrap_or_default();
            let parts = statements(sql);
            assert!(!parts.is_empty(), "{}", migration.name());
            // Put back together, the statements are the file less comments and whitespace.
            let squeezed = |s: &str| -> String {
                s.lines()
                    .map(|l| l.split("--").next().unwrap_or(""))
                    .collect::<String>()
                    .chars()
                    .filter(|c| !c.is_whitespace() && *c != ';')
                    .collect()
            };
            assert_eq!(
                squeezed(&parts.join(";")),
                squeezed(sql),
                "{}",
                migration.name()
            );
        }
    }
}
