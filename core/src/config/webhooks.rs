//! The `webhooks` section: what endpoints the product may call. `WEBHOOK_ALLOW_HTTP=true`
//! allows plain `http://` endpoints (local development, tests); `WEBHOOK_ALLOWED_PRIVATE_RANGES`
//! (comma-separated CIDRs, e.g. `127.0.0.0/8`) lets the address guard through to addresses in
//! them that it refuses otherwise (loopback, private, link-local, metadata). Both the API (when
//! an endpoint is saved) and the worker (when it connects) read them.

use ipnet::IpNet;
use serde::Deserialize;

use super::{ConfigError, invalid, parse_bool};

#[derive(Debug, Clone, Default)]
pub struct WebhookSettings {
    pub allow_http: bool,
    pub allowed_private_ranges: Vec<IpNet>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Raw {
    webhook_allow_http: Option<String>,
    webhook_allowed_private_ranges: Option<String>,
}

impl TryFrom<Raw> for WebhookSettings {
    type Error = ConfigError;

    fn try_from(raw: Raw) -> Result<Self, ConfigError> {
        let allow_http = match raw.webhook_allow_http.as_deref().map(str::trim) {
            None | Some("") => false,
            Some(value) => parse_bool(value).map_err(|e| invalid("WEBHOOK_ALLOW_HTTP", e))?,
        };
        let allowed_private_ranges = raw
            .webhook_allowed_private_ranges
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|range| !range.is_empty())
            .map(|range| {
                range.parse::<IpNet>().map_err(|e| {
                    invalid(
                        "WEBHOOK_ALLOWED_PRIVATE_RANGES",
                        format!("{range:?} is not a CIDR range: {e}"),
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            allow_http,
            allowed_private_ranges,
        })
    }
}
