//! The PostgreSQL pool.
//!
//! The pool connects lazily so the API can start (and report `Unhealthy`) while the database
//! is still coming up; a statement timeout keeps one slow query from holding a connection
//! forever.

use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;

use crate::config::DatabaseSettings;

pub fn pool(database: &DatabaseSettings, max_connections: u32) -> PgPool {
    let options = database
        .connect_options()
        .application_name("supportdesk")
        .options([("statement_timeout", "30s")]);
    PgPoolOptions::new()
        .max_connections(max_connections)
        .min_connections(0)
        .acquire_timeout(Duration::from_secs(5))
        .idle_timeout(Some(Duration::from_secs(300)))
        .connect_lazy_with(options)
}
