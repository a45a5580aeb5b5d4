//! The `database` section: where PostgreSQL is and how our pools keep connections to it.
//!
//! `ConnectionStrings__DefaultConnection` comes in either of the two forms operators use, a
//! `postgres://` URL or the .NET key=value form; `impl FromStr for DatabaseSettings` reads
//! both. The pool knobs (`DATABASE_*`) bound PostgreSQL's memory per backend.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::Deserialize;
use sqlx::postgres::PgConnectOptions;

use super::connection_string::parse_key_value_connection_string;
use super::{ConfigError, invalid, parse_positive};

/// What stands between the API and PostgreSQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pooler {
    /// PostgreSQL itself (or a pooler in session mode): each session starts with an empty
    /// `search_path` and a statement timeout, sent as startup options.
    #[default]
    Direct,
    /// PgBouncer in transaction mode, which forwards no startup options: the database or role
    /// must carry `search_path = ''` (checked on every new connection) and the timeout.
    PgBouncer,
}

impl FromStr for Pooler {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, String> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "none" | "direct" => Ok(Self::Direct),
            "pgbouncer" => Ok(Self::PgBouncer),
            other => Err(format!("expected direct or pgbouncer, got {other:?}")),
        }
    }
}

/// How pooled connections are kept; the knobs that bound PostgreSQL's memory per backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolTuning {
    /// `DATABASE_POOLER`.
    pub pooler: Pooler,
    /// `DATABASE_STATEMENT_CACHE`: prepared statements kept per connection (their plans,
    /// about 40 KiB each in the backend). Tenant statements are a text per tenant, so this is
    /// the hot set of (tenant, statement) pairs a connection serves without re-planning. 0
    /// prepares nothing by name (PgBouncer before 1.21 in transaction mode), and every read
    /// then runs in a transaction of its own.
    pub statement_cache: usize,
    /// `DATABASE_CONNECTION_LIFETIME_SECONDS`: a connection is replaced after this long, which
    /// bounds the catalog entries its backend caches for every schema it has served.
    pub connection_lifetime: Duration,
}

impl Default for PoolTuning {
    fn default() -> Self {
        Self {
            pooler: Pooler::Direct,
            statement_cache: 500,
            connection_lifetime: Duration::from_secs(1800),
        }
    }
}

/// `ConnectionStrings__DefaultConnection` and the pool settings. `Debug` shows where the
/// database is, never the password.
#[derive(Clone)]
pub struct DatabaseSettings {
    options: PgConnectOptions,
    pub tuning: PoolTuning,
    /// `DATABASE_MAX_CONNECTIONS`: the API's main pool, and its read pool, each hold at most
    /// this many (default 20).
    pub max_connections: u32,
}

impl DatabaseSettings {
    pub const DEFAULT_MAX_CONNECTIONS: u32 = 20;

    pub fn connect_options(&self) -> PgConnectOptions {
        self.options.clone()
    }

    /// The same server with another database: tests create their own databases with it.
    pub fn with_database(&self, database: &str) -> Self {
        Self {
            options: self.options.clone().database(database),
            ..self.clone()
        }
    }

    pub fn database_name(&self) -> Option<&str> {
        self.options.get_database()
    }
}

/// A connection string in either form, with the default pool settings.
impl FromStr for DatabaseSettings {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, String> {
        let value = value.trim();
        let options = if value.starts_with("postgres://") || value.starts_with("postgresql://") {
            PgConnectOptions::from_str(value).map_err(|e| format!("not a valid URL: {e}"))?
        } else {
            parse_key_value_connection_string(value)?
        };
        Ok(Self {
            options,
            tuning: PoolTuning::default(),
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
        })
    }
}

impl fmt::Debug for DatabaseSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DatabaseSettings")
            .field("host", &self.options.get_host())
            .field("port", &self.options.get_port())
            .field("database", &self.options.get_database())
            .field("username", &self.options.get_username())
            .field("tuning", &self.tuning)
            .field("max_connections", &self.max_connections)
            .finish_non_exhaustive()
    }
}

/// The section as the environment (or the file) spells it. Keys are lower case because the
/// environment source lower-cases them; `ConnectionStrings__DefaultConnection` arrives nested.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Raw {
    #[serde(default)]
    connectionstrings: RawConnectionStrings,
    database_max_connections: Option<String>,
    database_pooler: Option<String>,
    database_statement_cache: Option<String>,
    database_connection_lifetime_seconds: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct RawConnectionStrings {
    defaultconnection: Option<String>,
}

impl TryFrom<Raw> for DatabaseSettings {
    type Error = ConfigError;

    fn try_from(raw: Raw) -> Result<Self, ConfigError> {
        let tuning = pool_tuning(&raw)?;
        let mut database: DatabaseSettings = raw
            .connectionstrings
            .defaultconnection
            .filter(|s| !s.trim().is_empty())
            .ok_or(ConfigError::Missing {
                name: "ConnectionStrings__DefaultConnection",
            })
            .and_then(|s| {
                s.parse()
                    .map_err(|e| invalid("ConnectionStrings__DefaultConnection", e))
            })?;
        database.tuning = tuning;
        database.max_connections = parse_positive(
            "DATABASE_MAX_CONNECTIONS",
            raw.database_max_connections,
            Self::DEFAULT_MAX_CONNECTIONS as usize,
        )? as u32;
        Ok(database)
    }
}

fn pool_tuning(raw: &Raw) -> Result<PoolTuning, ConfigError> {
    let defaults = PoolTuning::default();
    let pooler = match raw.database_pooler.as_deref() {
        Some(v) => v.parse().map_err(|e| invalid("DATABASE_POOLER", e))?,
        None => defaults.pooler,
    };
    let statement_cache = match raw.database_statement_cache.as_deref().map(str::trim) {
        None | Some("") => defaults.statement_cache,
        Some(v) => v.parse::<usize>().map_err(|_| {
            invalid(
                "DATABASE_STATEMENT_CACHE",
                format!("expected a number of statements (0 turns the cache off), got {v:?}"),
            )
        })?,
    };
    let lifetime = parse_positive(
        "DATABASE_CONNECTION_LIFETIME_SECONDS",
        raw.database_connection_lifetime_seconds.clone(),
        defaults.connection_lifetime.as_secs() as usize,
    )?;
    Ok(PoolTuning {
        pooler,
        statement_cache,
        connection_lifetime: Duration::from_secs(lifetime as u64),
    })
}

#[cfg(test)]
mod tests {
    use sqlx::postgres::PgSslMode;

    use super::*;

    fn parse(value: &str) -> Result<DatabaseSettings, String> {
        value.parse()
    }

    #[test]
    fn key_value_connection_string_is_accepted() {
        let db = parse(
            "Host=db.internal;Port=6432;Database=desk;Username=app;Password=s3cret;SSL Mode=require",
        )
        .unwrap();
        let options = db.connect_options();
        assert_eq!(options.get_host(), "db.internal");
        assert_eq!(options.get_port(), 6432);
        assert_eq!(options.get_database(), Some("desk"));
        assert_eq!(options.get_username(), "app");
        assert!(!format!("{db:?}").contains("s3cret"));
    }

    #[test]
    fn quoted_values_may_hold_separators_and_quotes() {
        let db = parse(
            "Host=db;Database=desk;Username=app;Password='pa;ss''word';SSL Mode=VerifyFull;Trust Server Certificate=true",
        )
        .unwrap();
        let options = db.connect_options();
        assert_eq!(options.get_database(), Some("desk"));
        assert!(matches!(options.get_ssl_mode(), PgSslMode::VerifyFull));
        assert!(parse(r#"Host=db;Password="x"y"#).is_err());
        assert!(parse("Host=db;Password='open").is_err());
    }

    #[test]
    fn connection_string_errors_never_echo_values() {
        for bad in [
            "Host=db;Password=hunter2;tail-of-secret",
            "Host=db;Port=hunter2",
            "Host=db;SSL Mode=hunter2",
            "Host=db;Password='hunter2",
        ] {
            let err = parse(bad).err().unwrap();
            assert!(!err.contains("hunter2") && !err.contains("tail"), "{err}");
        }
    }

    #[test]
    fn bad_key_value_connection_string_is_refused() {
        assert!(parse("Host=x;Port=abc").is_err());
        assert!(parse("Database=x").is_err());
        assert!(parse("Host=x;Colour=blue").is_err());
    }
}
