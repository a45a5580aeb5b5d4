//! The `email` section: how the worker sends email (`SMTP_URL` or `.eml` files), from whom
//! (`MAIL_FROM`), and the secret emailed tokens are derived with (`EMAIL_TOKEN_SECRET`).

use std::fmt;
use std::path::PathBuf;

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

use super::{Component, ConfigError, SigningSecret, invalid};

/// Where email goes: a real SMTP server, or `.eml` files in a directory (the local default).
#[derive(Clone)]
pub enum MailTransport {
    /// `SMTP_URL`, which may carry credentials.
    Smtp {
        url: SecretString,
    },
    Files {
        dir: PathBuf,
    },
}

/// Shows the SMTP server, never the credentials in its URL.
impl fmt::Debug for MailTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Smtp { url } => {
                let url = url.expose_secret();
                let shown = match url.split_once("://") {
                    Some((scheme, rest)) => match rest.rsplit_once('@') {
                        Some((_, host)) => format!("{scheme}://<redacted>@{host}"),
                        None => format!("{scheme}://{rest}"),
                    },
                    None => "<redacted>".to_owned(),
                };
                f.debug_struct("Smtp").field("url", &shown).finish()
            }
            Self::Files { dir } => f.debug_struct("Files").field("dir", dir).finish(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct EmailSettings {
    pub transport: MailTransport,
    /// `MAIL_FROM` (default `Support Desk <no-reply@localhost>`).
    pub from: String,
    /// Keys the derivation of emailed tokens. Separate from the JWT secret so the worker, which
    /// renders emails, cannot mint tokens, and rotating one does not void the other. The API
    /// falls back to `JWT_SECRET` when `EMAIL_TOKEN_SECRET` is unset; the worker requires it.
    pub token_secret: SigningSecret,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Raw {
    email_token_secret: Option<String>,
    smtp_url: Option<String>,
    mail_dir: Option<String>,
    mail_from: Option<String>,
    mail_transport: Option<String>,
}

impl EmailSettings {
    /// `jwt_secret` stands in for a missing `EMAIL_TOKEN_SECRET` (the API's only: `None` in the
    /// worker).
    pub(super) fn from_raw(
        raw: Raw,
        component: Component,
        development: bool,
        jwt_secret: Option<&SigningSecret>,
    ) -> Result<Self, ConfigError> {
        let token_secret = match raw.email_token_secret.filter(|s| !s.is_empty()) {
            Some(s) => SigningSecret::parse(s).map_err(|e| invalid("EMAIL_TOKEN_SECRET", e))?,
            None => jwt_secret.cloned().ok_or(ConfigError::Missing {
                name: "EMAIL_TOKEN_SECRET",
            })?,
        };

        let file_transport_asked = match raw.mail_transport.as_deref().map(str::trim) {
            None | Some("" | "smtp") => false,
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
        let transport = match smtp_url.filter(|_| !file_transport_asked) {
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
                    url: SecretString::from(url),
                }
            }
            None => MailTransport::Files {
                dir: PathBuf::from(raw.mail_dir.unwrap_or_else(|| "./mail".into())),
            },
        };

        let from = raw
            .mail_from
            .unwrap_or_else(|| "Support Desk <no-reply@localhost>".into());
        if !from.contains('@') {
            return Err(invalid("MAIL_FROM", "must be an email address"));
        }
        Ok(Self {
            transport,
            from,
            token_secret,
        })
    }
}
