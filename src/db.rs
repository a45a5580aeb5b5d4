//! The PostgreSQL pool.
//!
//! The pool connects lazily so the API can start (and report `Unhealthy`) while the database
//! is still coming up; a statement timeout keeps one slow query from holding a connection
//! forever. Every session starts with an empty `search_path`: control-plane SQL names
//! `public.`, tenant SQL runs where its schema was chosen explicitly, and a table name that is
//! neither fails loudly (42P01) instead of reading whatever schema happened to be current.

use std::time::Duration;

use sqlx::postgres::PgPoolOptions;
use sqlx::{AssertSqlSafe, PgPool, Postgres, Transaction};

use crate::config::DatabaseSettings;

pub fn pool(database: &DatabaseSettings, max_connections: u32) -> PgPool {
    let options = database
        .connect_options()
        .application_name("supportdesk")
        .options([("statement_timeout", "30s"), ("search_path", "")]);
    PgPoolOptions::new()
        .max_connections(max_connections)
        .min_connections(0)
        .acquire_timeout(Duration::from_secs(5))
        .idle_timeout(Some(Duration::from_secs(300)))
        .connect_lazy_with(options)
}

/// Begins a transaction on a pooled connection, with `statement` (`BEGIN` when `None`),
/// in a task of its own.
///
/// If the caller's future is dropped while BEGIN is on the wire (axum drops a handler whose
/// client went away), sqlx 0.9.0 has not yet counted the transaction and would return the
/// connection to the pool still inside it: the next user would run in someone else's
/// transaction, with someone else's `search_path` (sqlx issue 4393). Run to completion in its
/// own task, the BEGIN is always counted, and a transaction nobody claims is dropped and
/// rolled back before the connection is reused.
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
