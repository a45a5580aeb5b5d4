//! Configuration, layered by the `config` crate: built-in defaults, then an optional file
//! (`supportdesk.toml` in the working directory, or `--config PATH`), then the environment.
//!
//! The names are the interface contract's (`ConnectionStrings__DefaultConnection`,
//! `JWT_SECRET`, `ASPNETCORE_ENVIRONMENT`, `RUN_MIGRATIONS_ON_STARTUP`) plus our own. The
//! `config` crate only gathers raw strings; every value is then parsed here into a type that
//! cannot hold a bad value, and a bad value fails start-up with the variable's exact name.

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use ipnet::IpNet;
use serde::Deserialize;
use sqlx::postgres::{PgConnectOptions, PgSslMode};

/// Which process is loading its settings: each reads only what it uses, so the worker, which
/// never signs a token, starts without `JWT_SECRET` and cannot leak it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Component {
    /// `supportdesk serve` and the operator commands.
    Api,
    /// `supportdesk-worker`: sends email, needs `EMAIL_TOKEN_SECRET` but not `JWT_SECRET`.
    Worker,
}

/// A configuration value that could not be used, named as the operator wrote it.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{name}: {reason}")]
    Invalid { name: &'static str, reason: String },
    #[error("{name} is required")]
    Missing { name: &'static str },
    #[error("could not read configuration: {0}")]
    Source(#[from] config::ConfigError),
}

fn invalid(name: &'static str, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        name,
        reason: reason.into(),
    }
}

/// `ASPNETCORE_ENVIRONMENT`: decides the log format and the defaults that are only safe locally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Environment {
    Development,
    Production,
}

impl FromStr for Environment {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value.to_ascii_lowercase().as_str() {
            "development" => Ok(Self::Development),
            "production" => Ok(Self::Production),
            other => Err(format!("expected Development or Production, got {other:?}")),
        }
    }
}

/// A secret that signs or keys something (JWTs, emailed tokens), at least 32 characters.
/// Its `Debug` never shows the value.
#[derive(Clone)]
pub struct SigningSecret(String);

impl SigningSecret {
    pub const MIN_LEN: usize = 32;

    pub fn parse(value: String) -> Result<Self, String> {
        if value.chars().count() < Self::MIN_LEN {
            return Err(format!(
                "must be at least {} characters (got {})",
                Self::MIN_LEN,
                value.chars().count()
            ));
        }
        Ok(Self(value))
    }

    pub fn expose(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl fmt::Debug for SigningSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningSecret(<redacted>)")
    }
}

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

/// `ConnectionStrings__DefaultConnection`, in either of the two forms operators use:
/// a `postgres://` URL, or the key=value form `Host=..;Port=..;Database=..;Username=..;Password=..`.
#[derive(Clone)]
pub struct DatabaseSettings {
    options: PgConnectOptions,
    pub tuning: PoolTuning,
}

impl DatabaseSettings {
    pub fn parse(value: &str) -> Result<Self, String> {
        let value = value.trim();
        let options = if value.starts_with("postgres://") || value.starts_with("postgresql://") {
            PgConnectOptions::from_str(value).map_err(|e| format!("not a valid URL: {e}"))?
        } else {
            parse_key_value_connection_string(value)?
        };
        Ok(Self {
            options,
            tuning: PoolTuning::default(),
        })
    }

    pub fn connect_options(&self) -> PgConnectOptions {
        self.options.clone()
    }

    /// The same server with another database: tests create their own databases with it.
    pub fn with_database(&self, database: &str) -> Self {
        Self {
            options: self.options.clone().database(database),
            tuning: self.tuning,
        }
    }

    pub fn database_name(&self) -> Option<&str> {
        self.options.get_database()
    }
}

impl fmt::Debug for DatabaseSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DatabaseSettings")
            .field("host", &self.options.get_host())
            .field("port", &self.options.get_port())
            .field("database", &self.options.get_database())
            .field("username", &self.options.get_username())
            .finish_non_exhaustive()
    }
}

/// Splits `Key=Value;Key='Value'` pairs the way ADO.NET connection strings do: values may be
/// quoted with `'` or `"` (a doubled quote inside is a literal one), so a password may contain
/// `;`. Errors name keys, never values: a value may be a password.
fn split_key_values(value: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    let mut chars = value.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == ';') {
            chars.next();
        }
        if chars.peek().is_none() {
            return Ok(pairs);
        }
        let mut key = String::new();
        let mut saw_equals = false;
        for c in chars.by_ref() {
            match c {
                '=' => {
                    saw_equals = true;
                    break;
                }
                ';' => break,
                c => key.push(c),
            }
        }
        let key = key.trim().to_owned();
        if !saw_equals || key.is_empty() {
            return Err("expected Key=Value pairs separated by ';'".into());
        }
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut val = String::new();
        match chars.peek().copied() {
            Some(quote @ ('\'' | '"')) => {
                chars.next();
                loop {
                    match chars.next() {
                        Some(c) if c == quote => {
                            if chars.peek() == Some(&quote) {
                                chars.next();
                                val.push(quote);
                            } else {
                                break;
                            }
                        }
                        Some(c) => val.push(c),
                        None => return Err(format!("unterminated quote in the value of {key}")),
                    }
                }
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
                if chars.next().is_some_and(|c| c != ';') {
                    return Err(format!("unexpected text after the quoted value of {key}"));
                }
            }
            _ => {
                val = chars.by_ref().take_while(|c| *c != ';').collect();
                val = val.trim().to_owned();
            }
        }
        pairs.push((key, val));
    }
}

fn parse_key_value_connection_string(value: &str) -> Result<PgConnectOptions, String> {
    let mut options = PgConnectOptions::new_without_pgpass();
    let mut saw_host = false;
    for (key, val) in split_key_values(value)? {
        let normalised = key.to_ascii_lowercase().replace([' ', '_'], "");
        options = match normalised.as_str() {
            "host" | "server" => {
                saw_host = true;
                options.host(&val)
            }
            "port" => options.port(
                val.parse()
                    .map_err(|_| format!("{key} must be a port number"))?,
            ),
            "database" | "initialcatalog" => options.database(&val),
            "username" | "user" | "userid" | "uid" => options.username(&val),
            "password" | "pwd" => options.password(&val),
            "sslmode" => options.ssl_mode(
                match val.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
                    "verifyca" => "verify-ca".to_owned(),
                    "verifyfull" => "verify-full".to_owned(),
                    other => other.to_owned(),
                }
                .parse::<PgSslMode>()
                .map_err(|_| {
                    format!("{key} must be Disable, Allow, Prefer, Require, VerifyCA or VerifyFull")
                })?,
            ),
            "rootcertificate" | "sslrootcert" => options.ssl_root_cert(val.as_str()),
            // Knobs of other drivers that mean nothing here (our pool and TLS verification are
            // configured by SSL Mode and our own settings): accepted so a shared connection
            // string works unchanged.
            "pooling"
            | "minimumpoolsize"
            | "minpoolsize"
            | "maximumpoolsize"
            | "maxpoolsize"
            | "timeout"
            | "commandtimeout"
            | "connectionidlelifetime"
            | "keepalive"
            | "includeerrordetail"
            | "trustservercertificate"
            | "applicationname"
            | "connectionlifetime"
            | "multiplexing" => options,
            _ if key.len() <= 40 && key.chars().all(|c| c.is_ascii_alphabetic() || c == ' ') => {
                return Err(format!("unknown key {key:?}"));
            }
            _ => return Err("unknown key".into()),
        };
    }
    if !saw_host {
        return Err("missing Host".into());
    }
    Ok(options)
}

/// The CIDRs whose `X-Forwarded-For` we believe (`TRUSTED_PROXIES`, comma separated).
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    pub fn parse(value: &str) -> Result<Self, String> {
        value
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<IpNet>()
                    .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("{s:?} is not an IP address or CIDR"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Self)
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|net| net.contains(&ip))
    }
}

/// Where email goes: a real SMTP server, or `.eml` files in a directory (the local default).
#[derive(Debug, Clone)]
pub enum MailTransport {
    Smtp { url: RedactedUrl },
    Files { dir: PathBuf },
}

/// A URL that may carry credentials; `Debug` shows it without them.
#[derive(Clone)]
pub struct RedactedUrl(String);

impl RedactedUrl {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for RedactedUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.split_once("://") {
            Some((scheme, rest)) => match rest.rsplit_once('@') {
                Some((_, host)) => write!(f, "{scheme}://<redacted>@{host}"),
                None => write!(f, "{scheme}://{rest}"),
            },
            None => f.write_str("<redacted>"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub environment: Environment,
    pub database: DatabaseSettings,
    pub database_max_connections: u32,
    /// Signs and verifies JWTs. The API's only: `None` in the worker, which never reads it.
    pub jwt_secret: Option<SigningSecret>,
    /// Keys the derivation of emailed tokens. Separate from the JWT secret so the worker, which
    /// renders emails, cannot mint tokens, and rotating one does not void the other. The API
    /// falls back to `JWT_SECRET` when `EMAIL_TOKEN_SECRET` is unset; the worker requires it.
    pub email_token_secret: SigningSecret,
    pub run_migrations_on_startup: bool,
    pub redis_url: RedactedUrl,
    /// Prefix of every Redis key and channel, so several deployments (or test runs) can share one Redis.
    pub redis_namespace: String,
    pub mail: MailTransport,
    pub mail_from: String,
    pub app_url: String,
    pub trusted_proxies: TrustedProxies,
    /// How many password hashes may run at once; each takes one core for tens of milliseconds.
    pub password_hash_concurrency: usize,
    /// `METRICS_BIND`: the separate listener of `/metrics`, kept off the public port (and so
    /// out of the Ingress). Port 0 picks a free one.
    pub metrics_bind: String,
    /// `MAX_WORKSPACES_PER_USER`: how many workspaces one account may own (default 20).
    pub max_workspaces_per_user: u32,
    /// `WORKSPACE_CREATES_PER_HOUR`: workspaces one account may create per hour (default 10;
    /// `None` when set to 0, which turns the limit off for load tests).
    pub workspace_creates_per_hour: Option<u32>,
}

/// The raw strings as `config` gathered them. Keys are lower case because the environment
/// source lower-cases them; `ConnectionStrings__DefaultConnection` arrives nested.
#[derive(Debug, Default, Deserialize)]
struct Raw {
    #[serde(default)]
    connectionstrings: RawConnectionStrings,
    jwt_secret: Option<String>,
    email_token_secret: Option<String>,
    aspnetcore_environment: Option<String>,
    run_migrations_on_startup: Option<String>,
    database_max_connections: Option<String>,
    database_pooler: Option<String>,
    database_statement_cache: Option<String>,
    database_connection_lifetime_seconds: Option<String>,
    redis_url: Option<String>,
    redis_namespace: Option<String>,
    smtp_url: Option<String>,
    mail_dir: Option<String>,
    mail_from: Option<String>,
    app_url: Option<String>,
    trusted_proxies: Option<String>,
    password_hash_concurrency: Option<String>,
    mail_transport: Option<String>,
    metrics_bind: Option<String>,
    max_workspaces_per_user: Option<String>,
    workspace_creates_per_hour: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct RawConnectionStrings {
    defaultconnection: Option<String>,
}

impl Settings {
    /// The API's settings: defaults, then the optional file, then the process environment.
    pub fn load(file: Option<&Path>) -> Result<Self, ConfigError> {
        Self::load_for(Component::Api, file, None)
    }

    /// As [`Settings::load`], with an explicit environment instead of the process's (tests).
    pub fn load_from(
        file: Option<&Path>,
        env: Option<HashMap<String, String>>,
    ) -> Result<Self, ConfigError> {
        Self::load_for(Component::Api, file, env)
    }

    /// The settings `component` runs with; `env` replaces the process environment (tests).
    pub fn load_for(
        component: Component,
        file: Option<&Path>,
        env: Option<HashMap<String, String>>,
    ) -> Result<Self, ConfigError> {
        let file_source = match file {
            Some(path) => config::File::from(path).required(true),
            None => config::File::with_name("supportdesk").required(false),
        };
        let raw: Raw = config::Config::builder()
            .add_source(file_source)
            .add_source(config::Environment::default().separator("__").source(env))
            .build()?
            .try_deserialize()?;
        Self::from_raw(raw, component)
    }

    fn from_raw(raw: Raw, component: Component) -> Result<Self, ConfigError> {
        let environment = match raw.aspnetcore_environment.as_deref() {
            None | Some("") => Environment::Production,
            Some(v) => v
                .parse()
                .map_err(|e| invalid("ASPNETCORE_ENVIRONMENT", e))?,
        };
        let development = environment == Environment::Development;

        let tuning = pool_tuning(&raw)?;
        let mut database = raw
            .connectionstrings
            .defaultconnection
            .filter(|s| !s.trim().is_empty())
            .ok_or(ConfigError::Missing {
                name: "ConnectionStrings__DefaultConnection",
            })
            .and_then(|s| {
                DatabaseSettings::parse(&s)
                    .map_err(|e| invalid("ConnectionStrings__DefaultConnection", e))
            })?;

        let jwt_secret = match component {
            Component::Api => Some(
                raw.jwt_secret
                    .ok_or(ConfigError::Missing { name: "JWT_SECRET" })
                    .and_then(|s| SigningSecret::parse(s).map_err(|e| invalid("JWT_SECRET", e)))?,
            ),
            Component::Worker => None,
        };

        let email_token_secret = match raw.email_token_secret.filter(|s| !s.is_empty()) {
            Some(s) => SigningSecret::parse(s).map_err(|e| invalid("EMAIL_TOKEN_SECRET", e))?,
            None => jwt_secret.clone().ok_or(ConfigError::Missing {
                name: "EMAIL_TOKEN_SECRET",
            })?,
        };

        let run_migrations_on_startup = match raw.run_migrations_on_startup.as_deref() {
            None | Some("") => false,
            Some(v) => parse_bool(v).map_err(|e| invalid("RUN_MIGRATIONS_ON_STARTUP", e))?,
        };

        let redis_url = raw
            .redis_url
            .unwrap_or_else(|| "redis://127.0.0.1:6379".into());
        redis::Client::open(redis_url.as_str()).map_err(|e| invalid("REDIS_URL", e.to_string()))?;

        let file_transport_asked = match raw.mail_transport.as_deref().map(str::trim) {
            None | Some("") | Some("smtp") => false,
            Some("file") => true,
            Some(other) => {
                return Err(invalid(
                    "MAIL_TRANSPORT",
                    format!("expected smtp or file, got {other:?}"),
                ));
            }
        };
        let smtp_url = raw.smtp_url.filter(|s| !s.trim().is_empty());
        // Files hold live sign-in links: in Production they are written only when asked for.
        if component == Component::Worker
            && !development
            && smtp_url.is_none()
            && !file_transport_asked
        {
            return Err(invalid(
                "SMTP_URL",
                "is required in Production (emails carry live links); set MAIL_TRANSPORT=file to write .eml files under MAIL_DIR instead",
            ));
        }
        let mail = match smtp_url.filter(|_| !file_transport_asked) {
            Some(url) => {
                if !(url.starts_with("smtp://") || url.starts_with("smtps://")) {
                    return Err(invalid("SMTP_URL", "must start with smtp:// or smtps://"));
                }
                let authority = url.split_once("://").map_or("", |(_, rest)| {
                    rest.split(['/', '?']).next().unwrap_or_default()
                });
                let cleartext = url.starts_with("smtp://") && !url.contains("tls=required");
                if authority.contains('@') && cleartext && !development {
                    return Err(invalid(
                        "SMTP_URL",
                        "carries credentials over an unencrypted connection: use smtps:// or add ?tls=required",
                    ));
                }
                MailTransport::Smtp {
                    url: RedactedUrl(url),
                }
            }
            None => MailTransport::Files {
                dir: PathBuf::from(raw.mail_dir.unwrap_or_else(|| "./mail".into())),
            },
        };

        let mail_from = raw
            .mail_from
            .unwrap_or_else(|| "Support Desk <no-reply@localhost>".into());
        if !mail_from.contains('@') {
            return Err(invalid("MAIL_FROM", "must be an email address"));
        }

        let app_url = match raw.app_url {
            Some(url) => url,
            None if development => "http://localhost:3000".into(),
            None => return Err(ConfigError::Missing { name: "APP_URL" }),
        };
        if !(app_url.starts_with("http://") || app_url.starts_with("https://")) {
            return Err(invalid("APP_URL", "must start with http:// or https://"));
        }
        let app_url = app_url.trim_end_matches('/').to_owned();

        let trusted_proxies = TrustedProxies::parse(raw.trusted_proxies.as_deref().unwrap_or(""))
            .map_err(|e| invalid("TRUSTED_PROXIES", e))?;

        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let password_hash_concurrency = parse_positive(
            "PASSWORD_HASH_CONCURRENCY",
            raw.password_hash_concurrency,
            cores.saturating_sub(1).max(1),
        )?;
        database.tuning = tuning;
        let database_max_connections =
            parse_positive("DATABASE_MAX_CONNECTIONS", raw.database_max_connections, 20)? as u32;
        let max_workspaces_per_user =
            parse_positive("MAX_WORKSPACES_PER_USER", raw.max_workspaces_per_user, 20)? as u32;
        let workspace_creates_per_hour = match raw.workspace_creates_per_hour.as_deref() {
            Some(v) if v.trim() == "0" => None,
            _ => Some(parse_positive(
                "WORKSPACE_CREATES_PER_HOUR",
                raw.workspace_creates_per_hour,
                10,
            )? as u32),
        };
        let metrics_bind = raw
            .metrics_bind
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| "0.0.0.0:9464".into());
        if metrics_bind.parse::<std::net::SocketAddr>().is_err() {
            return Err(invalid(
                "METRICS_BIND",
                "expected HOST:PORT with an IP address, such as 0.0.0.0:9464",
            ));
        }

        Ok(Self {
            environment,
            database,
            database_max_connections,
            jwt_secret,
            email_token_secret,
            run_migrations_on_startup,
            redis_url: RedactedUrl(redis_url),
            redis_namespace: raw
                .redis_namespace
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "supportdesk".into()),
            mail,
            mail_from,
            app_url,
            trusted_proxies,
            password_hash_concurrency,
            metrics_bind,
            max_workspaces_per_user,
            workspace_creates_per_hour,
        })
    }

    /// The secret emailed tokens are derived with.
    pub fn email_token_secret(&self) -> &SigningSecret {
        &self.email_token_secret
    }

    /// How long a Redis call may take before we treat Redis as down and use the fallback.
    pub fn redis_timeout(&self) -> Duration {
        Duration::from_millis(500)
    }
}

fn parse_bool(value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        other => Err(format!("expected true or false, got {other:?}")),
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

fn parse_positive(
    name: &'static str,
    value: Option<String>,
    default: usize,
) -> Result<usize, ConfigError> {
    match value.as_deref().map(str::trim) {
        None | Some("") => Ok(default),
        Some(v) => match v.parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(invalid(
                name,
                format!("expected a positive number, got {v:?}"),
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    fn base() -> Vec<(&'static str, &'static str)> {
        vec![
            (
                "ConnectionStrings__DefaultConnection",
                "postgres://postgres@127.0.0.1:5432/supportdesk",
            ),
            ("JWT_SECRET", SECRET),
            ("APP_URL", "https://desk.example.com/"),
        ]
    }

    fn load(pairs: &[(&str, &str)]) -> Result<Settings, ConfigError> {
        Settings::load_from(None, Some(env(pairs)))
    }

    #[test]
    fn defaults_are_production_with_file_mail() {
        let settings = load(&base()).unwrap();
        assert_eq!(settings.environment, Environment::Production);
        assert!(!settings.run_migrations_on_startup);
        assert_eq!(settings.app_url, "https://desk.example.com");
        assert!(matches!(settings.mail, MailTransport::Files { .. }));
    }

    #[test]
    fn short_jwt_secret_is_refused_by_name() {
        let mut pairs = base();
        pairs[1] = ("JWT_SECRET", "too-short");
        let err = load(&pairs).unwrap_err().to_string();
        assert!(err.starts_with("JWT_SECRET:"), "{err}");
        assert!(err.contains("at least 32"), "{err}");
    }

    #[test]
    fn missing_connection_string_is_named() {
        let err = load(&base()[1..]).unwrap_err().to_string();
        assert_eq!(err, "ConnectionStrings__DefaultConnection is required");
    }

    #[test]
    fn key_value_connection_string_is_accepted() {
        let db = DatabaseSettings::parse(
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
        let db = DatabaseSettings::parse(
            "Host=db;Database=desk;Username=app;Password='pa;ss''word';SSL Mode=VerifyFull;Trust Server Certificate=true",
        )
        .unwrap();
        let options = db.connect_options();
        assert_eq!(options.get_database(), Some("desk"));
        assert!(matches!(options.get_ssl_mode(), PgSslMode::VerifyFull));
        assert!(DatabaseSettings::parse(r#"Host=db;Password="x"y"#).is_err());
        assert!(DatabaseSettings::parse("Host=db;Password='open").is_err());
    }

    #[test]
    fn connection_string_errors_never_echo_values() {
        for bad in [
            "Host=db;Password=hunter2;tail-of-secret",
            "Host=db;Port=hunter2",
            "Host=db;SSL Mode=hunter2",
            "Host=db;Password='hunter2",
        ] {
            let err = DatabaseSettings::parse(bad).err().unwrap();
            assert!(!err.contains("hunter2") && !err.contains("tail"), "{err}");
        }
    }

    #[test]
    fn bad_key_value_connection_string_is_refused() {
        assert!(DatabaseSettings::parse("Host=x;Port=abc").is_err());
        assert!(DatabaseSettings::parse("Database=x").is_err());
        assert!(DatabaseSettings::parse("Host=x;Colour=blue").is_err());
    }

    #[test]
    fn bad_boolean_is_named() {
        let mut pairs = base();
        pairs.push(("RUN_MIGRATIONS_ON_STARTUP", "perhaps"));
        let err = load(&pairs).unwrap_err().to_string();
        assert!(err.starts_with("RUN_MIGRATIONS_ON_STARTUP:"), "{err}");
    }

    #[test]
    fn the_pool_is_tuned_for_the_pooler_in_front_of_postgres() {
        let defaults = load(&base()).unwrap().database.tuning;
        assert_eq!(defaults, PoolTuning::default());
        assert_eq!(defaults.pooler, Pooler::Direct);
        assert!(defaults.statement_cache > 0);

        let mut pairs = base();
        pairs.push(("DATABASE_POOLER", "PgBouncer"));
        pairs.push(("DATABASE_STATEMENT_CACHE", "0"));
        pairs.push(("DATABASE_CONNECTION_LIFETIME_SECONDS", "600"));
        let tuning = load(&pairs).unwrap().database.tuning;
        assert_eq!(
            tuning,
            PoolTuning {
                pooler: Pooler::PgBouncer,
                statement_cache: 0,
                connection_lifetime: Duration::from_secs(600),
            }
        );

        for (name, value) in [
            ("DATABASE_POOLER", "pgpool"),
            ("DATABASE_STATEMENT_CACHE", "-1"),
            ("DATABASE_CONNECTION_LIFETIME_SECONDS", "0"),
        ] {
            let mut pairs = base();
            pairs.push((name, value));
            let err = load(&pairs).unwrap_err().to_string();
            assert!(err.starts_with(name), "{err}");
        }
    }

    #[test]
    fn bad_environment_is_named() {
        let mut pairs = base();
        pairs.push(("ASPNETCORE_ENVIRONMENT", "Staging"));
        let err = load(&pairs).unwrap_err().to_string();
        assert!(err.starts_with("ASPNETCORE_ENVIRONMENT:"), "{err}");
    }

    #[test]
    fn app_url_is_required_in_production_only() {
        let err = load(&base()[..2]).unwrap_err().to_string();
        assert_eq!(err, "APP_URL is required");
        let mut pairs = base()[..2].to_vec();
        pairs.push(("ASPNETCORE_ENVIRONMENT", "Development"));
        assert_eq!(load(&pairs).unwrap().app_url, "http://localhost:3000");
    }

    #[test]
    fn trusted_proxies_accept_addresses_and_cidrs() {
        let proxies = TrustedProxies::parse("10.0.0.0/8, 192.168.1.1,::1").unwrap();
        assert!(proxies.contains("10.1.2.3".parse().unwrap()));
        assert!(proxies.contains("192.168.1.1".parse().unwrap()));
        assert!(proxies.contains("::1".parse().unwrap()));
        assert!(!proxies.contains("192.168.1.2".parse().unwrap()));
        // An IPv4 peer seen through an IPv6 socket still matches its IPv4 CIDR.
        assert!(proxies.contains("::ffff:10.0.0.1".parse().unwrap()));
        let mut pairs = base();
        pairs.push(("TRUSTED_PROXIES", "10.0.0.0/33"));
        let err = load(&pairs).unwrap_err().to_string();
        assert!(err.starts_with("TRUSTED_PROXIES:"), "{err}");
    }

    #[test]
    fn smtp_credentials_need_encryption_in_production() {
        let mut pairs = base();
        pairs.push(("SMTP_URL", "smtp://user:pa55@mail.example.com:587"));
        let err = load(&pairs).unwrap_err().to_string();
        assert!(
            err.starts_with("SMTP_URL:") && !err.contains("pa55"),
            "{err}"
        );
        pairs.pop();
        pairs.push((
            "SMTP_URL",
            "smtp://user:pa55@mail.example.com:587?tls=required",
        ));
        assert!(load(&pairs).is_ok());
        pairs.pop();
        pairs.push(("SMTP_URL", "smtp://relay.internal:25"));
        assert!(
            load(&pairs).is_ok(),
            "a local relay without credentials is fine"
        );
    }

    #[test]
    fn smtp_url_selects_smtp_and_hides_credentials() {
        let mut pairs = base();
        pairs.push(("SMTP_URL", "smtps://user:pa55@mail.example.com:465"));
        let settings = load(&pairs).unwrap();
        let shown = format!("{:?}", settings.mail);
        assert!(shown.contains("mail.example.com"), "{shown}");
        assert!(!shown.contains("pa55"), "{shown}");
        assert!(!format!("{settings:?}").contains(SECRET));
    }

    fn load_worker(pairs: &[(&str, &str)]) -> Result<Settings, ConfigError> {
        Settings::load_for(Component::Worker, None, Some(env(pairs)))
    }

    #[test]
    fn the_worker_starts_without_the_jwt_secret_and_never_reads_it() {
        let pairs = [
            base()[0],
            base()[2],
            ("EMAIL_TOKEN_SECRET", "email-token-secret-0123456789abcdef"),
            ("SMTP_URL", "smtps://mail.example.com:465"),
        ];
        let settings = load_worker(&pairs).unwrap();
        assert!(settings.jwt_secret.is_none());
        let mut with_jwt = pairs.to_vec();
        with_jwt.push(("JWT_SECRET", SECRET));
        let settings = load_worker(&with_jwt).unwrap();
        assert!(
            settings.jwt_secret.is_none(),
            "the worker ignores JWT_SECRET"
        );
        assert!(!format!("{settings:?}").contains(SECRET));
        let err = load_worker(&[pairs[0], pairs[1], pairs[3]])
            .unwrap_err()
            .to_string();
        assert_eq!(err, "EMAIL_TOKEN_SECRET is required");
    }

    #[test]
    fn a_production_worker_without_smtp_needs_the_file_transport_asked_for() {
        let pairs = vec![
            base()[0],
            base()[2],
            ("EMAIL_TOKEN_SECRET", "email-token-secret-0123456789abcdef"),
        ];
        let err = load_worker(&pairs).unwrap_err().to_string();
        assert!(
            err.starts_with("SMTP_URL:") && err.contains("MAIL_TRANSPORT=file"),
            "{err}"
        );
        let mut asked = pairs.clone();
        asked.push(("MAIL_TRANSPORT", "file"));
        assert!(matches!(
            load_worker(&asked).unwrap().mail,
            MailTransport::Files { .. }
        ));
        let mut development = pairs.clone();
        development.push(("ASPNETCORE_ENVIRONMENT", "Development"));
        assert!(matches!(
            load_worker(&development).unwrap().mail,
            MailTransport::Files { .. }
        ));
        let mut bad = pairs;
        bad.push(("MAIL_TRANSPORT", "carrier-pigeon"));
        assert!(
            load_worker(&bad)
                .unwrap_err()
                .to_string()
                .starts_with("MAIL_TRANSPORT:")
        );
        // The API sends no email: its start-up does not depend on SMTP_URL.
        assert!(load(&base()).is_ok());
    }

    #[test]
    fn workspace_limits_and_the_metrics_listener_are_configurable() {
        let settings = load(&base()).unwrap();
        assert_eq!(settings.max_workspaces_per_user, 20);
        assert_eq!(settings.workspace_creates_per_hour, Some(10));
        assert_eq!(settings.metrics_bind, "0.0.0.0:9464");
        let mut pairs = base();
        pairs.push(("WORKSPACE_CREATES_PER_HOUR", "0"));
        pairs.push(("MAX_WORKSPACES_PER_USER", "500"));
        pairs.push(("METRICS_BIND", "127.0.0.1:0"));
        let settings = load(&pairs).unwrap();
        assert_eq!(settings.workspace_creates_per_hour, None);
        assert_eq!(settings.max_workspaces_per_user, 500);
        assert_eq!(settings.metrics_bind, "127.0.0.1:0");
        let mut bad = base();
        bad.push(("METRICS_BIND", "everywhere"));
        assert!(
            load(&bad)
                .unwrap_err()
                .to_string()
                .starts_with("METRICS_BIND:")
        );
    }
}
