//! Configuration: one typed `Settings` for the API and the worker, in sections
//! (`application`, `database`, `redis`, `email`, `worker`), layered by the `config` crate:
//! built-in defaults, then an optional file (`supportdesk.toml` in the working directory, or
//! `--config PATH`), then the environment.
//!
//! The names are the interface contract's (`ConnectionStrings__DefaultConnection`,
//! `JWT_SECRET`, `ASPNETCORE_ENVIRONMENT`, `RUN_MIGRATIONS_ON_STARTUP`) plus our own, flat as
//! operators write them. Each section deserializes its raw strings from the one gathered
//! source (serde), then parses them into types that cannot hold a bad value
//! (`TryFrom`), so a bad value fails start-up with the variable's exact name. Secrets are
//! `secrecy` types: `format!("{settings:?}")` shows none of them.

mod application;
mod connection_string;
mod database;
mod email;
mod inbound;
mod redis;
mod secret;
mod storage;
mod webhooks;
mod worker;

use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;

use serde::Deserialize;

pub use self::application::{ApplicationSettings, TrustedProxies, origin_of};
pub use self::database::{DatabaseSettings, PoolTuning, Pooler};
pub use self::email::{EmailSettings, MailTransport};
pub use self::inbound::InboundEmailSettings;
pub use self::redis::RedisSettings;
pub use self::secret::SigningSecret;
pub use self::storage::{S3Location, StorageLocation, StorageSettings};
pub use self::webhooks::WebhookSettings;
pub use self::worker::WorkerSettings;

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

#[derive(Debug, Clone)]
pub struct Settings {
    pub environment: Environment,
    pub application: ApplicationSettings,
    pub database: DatabaseSettings,
    pub redis: RedisSettings,
    pub email: EmailSettings,
    pub inbound: InboundEmailSettings,
    pub storage: StorageSettings,
    pub webhooks: WebhookSettings,
    /// The worker's own settings: `Some` when loaded for [`Component::Worker`], `None` in the
    /// API, which runs no worker and so does not read (or refuse) them.
    pub worker: Option<WorkerSettings>,
}

/// The one value outside the sections.
#[derive(Debug, Default, Deserialize)]
struct RawEnvironment {
    aspnetcore_environment: Option<String>,
}

/// Defaults, then the file, then the environment (`env` stands in for the process's in tests),
/// as one source every section deserializes from.
fn gather(
    file: Option<&Path>,
    env: Option<HashMap<String, String>>,
) -> Result<config::Config, ConfigError> {
    let file_source = match file {
        Some(path) => config::File::from(path).required(true),
        None => config::File::with_name("supportdesk").required(false),
    };
    Ok(config::Config::builder()
        .add_source(file_source)
        .add_source(config::Environment::default().separator("__").source(env))
        .build()?)
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
        let source = gather(file, env)?;
        let raw: RawEnvironment = section(&source)?;
        let environment = match raw.aspnetcore_environment.as_deref() {
            None | Some("") => Environment::Production,
            Some(v) => v
                .parse()
                .map_err(|e| invalid("ASPNETCORE_ENVIRONMENT", e))?,
        };
        let development = environment == Environment::Development;

        let database = DatabaseSettings::try_from(section::<database::Raw>(&source)?)?;
        let application = ApplicationSettings::from_raw(section(&source)?, component, development)?;
        let email = EmailSettings::from_raw(
            section(&source)?,
            component,
            development,
            application.jwt_secret.as_ref(),
        )?;
        let inbound = InboundEmailSettings::from_raw(
            section(&source)?,
            component,
            Some(&application.app_url),
        )?;
        let redis = RedisSettings::try_from(section::<self::redis::Raw>(&source)?)?;
        let storage = StorageSettings::from_raw(section(&source)?, development)?;
        let webhooks = WebhookSettings::try_from(section::<webhooks::Raw>(&source)?)?;
        let worker = match component {
            Component::Worker => Some(WorkerSettings::try_from(section::<worker::Raw>(&source)?)?),
            Component::Api => None,
        };
        Ok(Self {
            environment,
            application,
            database,
            redis,
            email,
            inbound,
            storage,
            webhooks,
            worker,
        })
    }
}

/// One section's raw strings, from the source every section shares (each takes the names it
/// knows and ignores the rest).
fn section<T: serde::de::DeserializeOwned>(source: &config::Config) -> Result<T, ConfigError> {
    Ok(source.clone().try_deserialize()?)
}

fn parse_bool(value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        other => Err(format!("expected true or false, got {other:?}")),
    }
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
    use std::time::Duration;

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
            ("STORAGE_URL", "s3://desk-files"),
        ]
    }

    fn load(pairs: &[(&str, &str)]) -> Result<Settings, ConfigError> {
        Settings::load_from(None, Some(env(pairs)))
    }

    #[test]
    fn defaults_are_production_with_file_mail() {
        let settings = load(&base()).unwrap();
        assert_eq!(settings.environment, Environment::Production);
        assert!(!settings.application.run_migrations_on_startup);
        assert_eq!(settings.application.app_url, "https://desk.example.com");
        assert!(matches!(
            settings.email.transport,
            MailTransport::Files { .. }
        ));
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
        assert_eq!(
            load(&pairs).unwrap().application.app_url,
            "http://localhost:3000"
        );
    }

    #[test]
    fn widget_url_defaults_in_development_only_and_must_be_http() {
        assert_eq!(load(&base()).unwrap().application.widget_url, None);
        let mut pairs = base();
        pairs.push(("ASPNETCORE_ENVIRONMENT", "Development"));
        assert_eq!(
            load(&pairs).unwrap().application.widget_url.as_deref(),
            Some("http://localhost:3001")
        );
        let mut pairs = base();
        pairs.push(("WIDGET_URL", "https://chat.example.com/"));
        assert_eq!(
            load(&pairs).unwrap().application.widget_url.as_deref(),
            Some("https://chat.example.com")
        );
        let mut pairs = base();
        pairs.push(("WIDGET_URL", "chat.example.com"));
        assert!(load(&pairs).is_err());
    }

    #[test]
    fn cors_allowed_origins_are_origins() {
        assert!(
            load(&base())
                .unwrap()
                .application
                .cors_allowed_origins
                .is_empty()
        );
        let mut pairs = base();
        pairs.push((
            "CORS_ALLOWED_ORIGINS",
            " https://Staging.Example.com/ , http://localhost:3100",
        ));
        assert_eq!(
            load(&pairs).unwrap().application.cors_allowed_origins,
            ["https://staging.example.com", "http://localhost:3100"]
        );
        let mut pairs = base();
        pairs.push(("CORS_ALLOWED_ORIGINS", "staging.example.com"));
        let err = load(&pairs).unwrap_err().to_string();
        assert!(err.contains("CORS_ALLOWED_ORIGINS"), "{err}");
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
        let shown = format!("{:?}", settings.email.transport);
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
            base()[3],
        ];
        let settings = load_worker(&pairs).unwrap();
        assert!(settings.application.jwt_secret.is_none());
        let mut with_jwt = pairs.to_vec();
        with_jwt.push(("JWT_SECRET", SECRET));
        let settings = load_worker(&with_jwt).unwrap();
        assert!(
            settings.application.jwt_secret.is_none(),
            "the worker ignores JWT_SECRET"
        );
        assert!(!format!("{settings:?}").contains(SECRET));
        let err = load_worker(&[pairs[0], pairs[1], pairs[3], pairs[4]])
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
            base()[3],
        ];
        let err = load_worker(&pairs).unwrap_err().to_string();
        assert!(
            err.starts_with("SMTP_URL:") && err.contains("MAIL_TRANSPORT=file"),
            "{err}"
        );
        let mut asked = pairs.clone();
        asked.push(("MAIL_TRANSPORT", "file"));
        assert!(matches!(
            load_worker(&asked).unwrap().email.transport,
            MailTransport::Files { .. }
        ));
        let mut development = pairs.clone();
        development.push(("ASPNETCORE_ENVIRONMENT", "Development"));
        assert!(matches!(
            load_worker(&development).unwrap().email.transport,
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
        assert_eq!(settings.application.max_workspaces_per_user, 20);
        assert_eq!(settings.application.workspace_creates_per_hour, Some(10));
        assert_eq!(settings.application.metrics_bind, "0.0.0.0:9464");
        let mut pairs = base();
        pairs.push(("WORKSPACE_CREATES_PER_HOUR", "0"));
        pairs.push(("MAX_WORKSPACES_PER_USER", "500"));
        pairs.push(("METRICS_BIND", "127.0.0.1:0"));
        let settings = load(&pairs).unwrap();
        assert_eq!(settings.application.workspace_creates_per_hour, None);
        assert_eq!(settings.application.max_workspaces_per_user, 500);
        assert_eq!(settings.application.metrics_bind, "127.0.0.1:0");
        let mut bad = base();
        bad.push(("METRICS_BIND", "everywhere"));
        assert!(
            load(&bad)
                .unwrap_err()
                .to_string()
                .starts_with("METRICS_BIND:")
        );
    }

    #[test]
    fn debug_output_holds_no_secret() {
        let pairs = [
            (
                "ConnectionStrings__DefaultConnection",
                "Host=db;Database=desk;Username=app;Password=db-pa55word",
            ),
            ("JWT_SECRET", SECRET),
            ("EMAIL_TOKEN_SECRET", "email-token-secret-0123456789abcdef"),
            ("APP_URL", "https://desk.example.com"),
            ("REDIS_URL", "redis://:redis-pa55word@cache.internal:6379"),
            (
                "SMTP_URL",
                "smtps://user:smtp-pa55word@mail.example.com:465",
            ),
            ("STORAGE_URL", "s3://desk-files"),
            ("AWS_ACCESS_KEY_ID", "desk-key-id"),
            ("AWS_SECRET_ACCESS_KEY", "s3-pa55word"),
        ];
        let api = load(&pairs).unwrap();
        let worker = load_worker(&pairs).unwrap();
        assert!(worker.worker.is_some() && api.worker.is_none());
        for shown in [
            format!("{api:?}"),
            format!("{worker:?}"),
            format!("{api:#?}"),
        ] {
            for secret in [
                "db-pa55word",
                "s3-pa55word",
                SECRET,
                "email-token-secret",
                "redis-pa55word",
                "smtp-pa55word",
            ] {
                assert!(!shown.contains(secret), "{secret} in {shown}");
            }
            assert!(shown.contains("mail.example.com"), "{shown}");
        }
    }
}
