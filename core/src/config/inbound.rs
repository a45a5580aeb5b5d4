//! The `inbound` section: how mail reaches the email channel. `INBOUND_EMAIL_DOMAIN` is the
//! domain of the workspaces' forwarding addresses (`<workspace>@<domain>`; its MX points at
//! the operator's MTA) and of the `Message-ID`s of the mail we send; the host of `APP_URL`
//! when unset. `INBOUND_EMAIL_SECRET` is the bearer token the MTA presents to
//! `POST /inbound/email`; unset, that route refuses every request (mail can still be piped to
//! `supportdesk mail receive`).

use serde::Deserialize;

use super::{Component, ConfigError, SigningSecret, invalid};

#[derive(Debug, Clone)]
pub struct InboundEmailSettings {
    /// Lower case, without a leading `@`.
    pub domain: String,
    /// Only the API reads it.
    pub secret: Option<SigningSecret>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Raw {
    inbound_email_domain: Option<String>,
    inbound_email_secret: Option<String>,
}

impl InboundEmailSettings {
    pub(super) fn from_raw(
        raw: Raw,
        component: Component,
        app_url: Option<&str>,
    ) -> Result<Self, ConfigError> {
        let domain = match raw.inbound_email_domain.as_deref().map(str::trim) {
            Some(d) if !d.is_empty() => d.trim_start_matches('@').to_ascii_lowercase(),
            _ => app_url
                .and_then(|u| url::Url::parse(u).ok())
                .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
                .unwrap_or_else(|| "localhost".to_owned()),
        };
        let valid = !domain.is_empty()
            && domain
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
        if !valid {
            return Err(invalid(
                "INBOUND_EMAIL_DOMAIN",
                format!("expected a domain name, got {domain:?}"),
            ));
        }
        let secret = match (component, raw.inbound_email_secret) {
            (Component::Api, Some(s)) if !s.is_empty() => {
                Some(SigningSecret::parse(s).map_err(|e| invalid("INBOUND_EMAIL_SECRET", e))?)
            }
            _ => None,
        };
        Ok(Self { domain, secret })
    }
}
