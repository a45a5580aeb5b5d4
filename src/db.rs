//! The PostgreSQL pool.
//!
//! The pool connects lazily so the API can start (and report `Unhealthy`) while the database
//! is still coming up; a statement timeout keeps one slow query from holding a connection
//! forever. Every session has an empty `search_path`: control-plane SQL names `public.`,
//! tenant SQL names its schema (`tenancy::TenantSchema::sql`), and a table name that is
//! neither fails loudly (42P01) instead of reading whatever schema happened to be current.
//! Nothing else is ever set on a session, so a connection carries no tenant from one request
//! to the next.
//!
//! A read is one round trip: sqlx keeps each connection's prepared statements (the plans of
//! the tenant statements it has served, `DATABASE_STATEMENT_CACHE`), and a connection is not
//! pinged on every acquire, only after it sat idle (`IDLE_CHECK_AFTER`), when the server may
//! have closed it.

use std::time::Duration;

use sqlx::postgres::PgPoolOptions;
use sqlx::{AssertSqlSafe, Connection, PgPool, Postgres, Row, Transaction};

use crate::config::{DatabaseSettings, Pooler};

/// A connection idle for longer is pinged before use; a busy one is known to be alive.
const IDLE_CHECK_AFTER: Duration = Duration::from_secs(30);

pub fn pool(database: &DatabaseSettings, max_connections: u32) -> PgPool {
    let tuning = database.tuning;
    let mut options = database
        .connect_options()
        .application_name("supportdesk")
        .statement_cache_capacity(tuning.statement_cache);
    if tuning.pooler == Pooler::Direct {
        options = options.options([
            ("statement_timeout", "30s"),
            ("search_path", ""),
            ("plan_cache_mode", "force_generic_plan"),
        ]);
    }
    PgPoolOptions::new()
        .max_connections(max_connections)
        .min_connections(0)
        .acquire_timeout(Duration::from_secs(5))
        .idle_timeout(Some(Duration::from_secs(300)))
        .max_lifetime(Some(tuning.connection_lifetime))
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for > IDLE_CHECK_AFTER {
                    conn.ping().await?;
                }
                Ok(true)
            })
        })
        .after_connect(|conn, _| Box::pin(async move { require_empty_search_path(conn).await }))
        .connect_lazy_with(options)
}

/// Refuses a session whose `search_path` is not empty: behind PgBouncer it comes from the
/// database's or role's settings, and a forgotten `ALTER DATABASE ... SET search_path = ''`
/// must fail at the first connection, not weaken tenant isolation silently. A simple query
/// (one message), so a transaction-mode pooler cannot split it across server connections.
async fn require_empty_search_path(conn: &mut sqlx::PgConnection) -> Result<(), sqlx::Error> {
    let row = sqlx::raw_sql("SELECT current_setting('search_path')")
        .fetch_one(&mut *conn)
        .await?;
    let path: String = row.try_get(0)?;
    if path.trim().is_empty() || path.trim() == "\"\"" {
        Ok(())
    } else {
        Err(sqlx::Error::Configuration(
            format!(
                "sessions must start with an empty search_path, this one has {path:?}; \
                 behind PgBouncer run ALTER DATABASE <name> SET search_path = ''"
            )
            .into(),
        ))
    }
}

/// Begins a transaction on a pooled connection, with `statement` (`BEGIN` when `None`),
/// in a task of its own.
///
/// If the caller's future is dropped while BEGIN is on the wire (axum drops a handler whose
/// client went away), sqlx 0.9.0 has not yet counted the transaction and would return the
/// connection to the pool still inside it: the next user would run in someone else's
/// transaction (sqlx issue 4393). Run to completion in its own task, the BEGIN is always
/// counted, and a transaction nobody claims is dropped and rolled back before the connection
/// is reused.
pub async fn begin(
    pool: &PgPool,
    statement: Option<String>,
) -> Result<Transaction<'static, Postgres>, sqlx::Error> {
    let pool = pool.clone();
    tokio::spawn(async move {
        match statement {
            Some(statement) => pool.begin_with(AssertSqlSafe(statement)).await,
            None => pool.begin().await,
        }
    })
    .await
    .map_err(|e| sqlx::Error::Io(std::io::Error::other(e)))?
}
