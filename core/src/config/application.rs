//! The `application` section: what the API serves with. Its public address (`APP_URL`, also
//! the base of emailed links), the JWT secret, whom it trusts for client addresses, its
//! limits, and where `/metrics` listens.

use std::net::IpAddr;

use ipnet::IpNet;
use serde::Deserialize;

use super::{Component, ConfigError, SigningSecret, invalid, parse_bool, parse_positive};

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

#[derive(Debug, Clone)]
pub struct ApplicationSettings {
    /// `APP_URL`, without a trailing slash: the web app's address, which emailed links point
    /// at. Required in Production; `http://localhost:3000` in Development.
    pub app_url: String,
    /// `JWT_SECRET`: signs and verifies JWTs. The API's only: `None` in the worker, which never
    /// reads it.
    pub jwt_secret: Option<SigningSecret>,
    /// `RUN_MIGRATIONS_ON_STARTUP` (default false).
    pub run_migrations_on_startup: bool,
    /// `TRUSTED_PROXIES`.
    pub trusted_proxies: TrustedProxies,
    /// `PASSWORD_HASH_CONCURRENCY`: how many password hashes may run at once; each takes one
    /// core for tens of milliseconds (default: the cores but one).
    pub password_hash_concurrency: usize,
    /// `METRICS_BIND`: the separate listener of `/metrics`, kept off the public port (and so
    /// out of the Ingress). Port 0 picks a free one.
    pub metrics_bind: String,
    /// `MAX_WORKSPACES_PER_USER`: how many workspaces one account may own (default 20).
    pub max_workspaces_per_user: u32,
    /// `WORKSPACE_CREATES_PER_HOUR`: workspaces one account may create per hour (default 10;
    /// `None` when set to 0, which turns the limit off for load tests).
    pub workspace_creates_per_hour: Option<u32>,
    /// `HUB_MAX_CONNECTIONS_PER_WORKSPACE`: chat hub connections one workspace may hold open
    /// on one replica (default 2 000): a large team's dashboards and their tabs fit; a script
    /// opening sockets in a loop gets 429.
    pub hub_max_connections_per_workspace: usize,
    /// `WIDGET_URL`, without a trailing slash: the chat widget app's address. Its origin may
    /// call the visitor routes (`/widget/v1/*`) and the hub's negotiate from browsers.
    /// `http://localhost:3001` in Development; unset elsewhere means no browser may.
    pub widget_url: Option<String>,
    /// `CORS_ALLOWED_ORIGINS` (comma separated): browser origins besides `APP_URL`'s that may
    /// call the API as the dashboard does (another dashboard host, a staging one).
    pub cors_allowed_origins: Vec<String>,
}

/// A browser origin as browsers send it (`scheme://host[:port]`, lower case, no default port).
pub fn origin_of(url: &str) -> Result<String, String> {
    let parsed = url::Url::parse(url.trim()).map_err(|_| format!("{url:?} is not a URL"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(format!("{url:?} is not an http or https origin"));
    }
    Ok(parsed.origin().ascii_serialization())
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Raw {
    jwt_secret: Option<String>,
    run_migrations_on_startup: Option<String>,
    app_url: Option<String>,
    trusted_proxies: Option<String>,
    password_hash_concurrency: Option<String>,
    metrics_bind: Option<String>,
    max_workspaces_per_user: Option<String>,
    workspace_creates_per_hour: Option<String>,
    hub_max_connections_per_workspace: Option<String>,
    widget_url: Option<String>,
    cors_allowed_origins: Option<String>,
}

impl ApplicationSettings {
    pub(super) fn from_raw(
        raw: Raw,
        component: Component,
        development: bool,
    ) -> Result<Self, ConfigError> {
        let jwt_secret = match component {
            Component::Api => Some(
                raw.jwt_secret
                    .ok_or(ConfigError::Missing { name: "JWT_SECRET" })
                    .and_then(|s| SigningSecret::parse(s).map_err(|e| invalid("JWT_SECRET", e)))?,
            ),
            Component::Worker => None,
        };

        let run_migrations_on_startup = match raw.run_migrations_on_startup.as_deref() {
            None | Some("") => false,
            Some(v) => parse_bool(v).map_err(|e| invalid("RUN_MIGRATIONS_ON_STARTUP", e))?,
        };

        let app_url = match raw.app_url {
            Some(url) => url,
            None if development => "http://localhost:3000".into(),
            None => return Err(ConfigError::Missing { name: "APP_URL" }),
        };
        if !(app_url.starts_with("http://") || app_url.starts_with("https://")) {
            return Err(invalid("APP_URL", "must start with http:// or https://"));
        }
        let app_url = app_url.trim_end_matches('/').to_owned();

        let widget_url = match raw.widget_url.filter(|url| !url.trim().is_empty()) {
            Some(url) => Some(url),
            None if development => Some("http://localhost:3001".into()),
            None => None,
        };
        if let Some(url) = &widget_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(invalid("WIDGET_URL", "must start with http:// or https://"));
        }
        let widget_url = widget_url.map(|url| url.trim_end_matches('/').to_owned());
        let cors_allowed_origins = raw
            .cors_allowed_origins
            .as_deref()
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(origin_of)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| invalid("CORS_ALLOWED_ORIGINS", e))?;

        let trusted_proxies = TrustedProxies::parse(raw.trusted_proxies.as_deref().unwrap_or(""))
            .map_err(|e| invalid("TRUSTED_PROXIES", e))?;

        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let password_hash_concurrency = parse_positive(
            "PASSWORD_HASH_CONCURRENCY",
            raw.password_hash_concurrency,
            cores.saturating_sub(1).max(1),
        )?;
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
        let hub_max_connections_per_workspace = parse_positive(
            "HUB_MAX_CONNECTIONS_PER_WORKSPACE",
            raw.hub_max_connections_per_workspace,
            2_000,
        )?;
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
            app_url,
            jwt_secret,
            run_migrations_on_startup,
            trusted_proxies,
            password_hash_concurrency,
            metrics_bind,
            max_workspaces_per_user,
            workspace_creates_per_hour,
            hub_max_connections_per_workspace,
            widget_url,
            cors_allowed_origins,
        })
    }
}
