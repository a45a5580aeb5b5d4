//! How email leaves: SMTP (`SMTP_URL`: `smtp://` with STARTTLS when the URL asks for it via
//! `?tls=required|opportunistic`, `smtps://` for implicit TLS, credentials in the URL) or,
//! when unset, `.eml` files under `MAIL_DIR` (the local default). A workspace with an SMTP
//! server of its own sends its customer emails through that one (`Mailer::workspace`).

use std::time::Duration;

use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use secrecy::{ExposeSecret, SecretString};
use supportdesk_core::config::MailTransport;
use supportdesk_core::outbox::messages::workspace_smtp::WorkspaceSmtp;

/// Longest a whole SMTP conversation may take; below the worker's 25 s drain, so a SIGTERM
/// does not cut a send short.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(20);
/// Longest one SMTP command may wait for its reply.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct SendError {
    /// The server refused for good (SMTP 5xx): retrying will not help.
    pub permanent: bool,
    pub message: String,
}

#[derive(Clone)]
pub enum Mailer {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Files(AsyncFileTransport<Tokio1Executor>),
}

impl Mailer {
    pub fn new(transport: &MailTransport) -> anyhow::Result<Self> {
        Ok(match transport {
            MailTransport::Smtp { url } => Self::Smtp(
                AsyncSmtpTransport::<Tokio1Executor>::from_url(url.expose_secret())
                    .map_err(|e| anyhow::anyhow!("SMTP_URL: {e}"))?
                    .timeout(Some(COMMAND_TIMEOUT))
                    .build(),
            ),
            MailTransport::Files { dir } => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| anyhow::anyhow!("MAIL_DIR {}: {e}", dir.display()))?;
                Self::Files(AsyncFileTransport::<Tokio1Executor>::new(dir))
            }
        })
    }

    /// The workspace's own server: TLS required (implicit on port 465, STARTTLS on others) or,
    /// when it asks for none, plain SMTP that takes STARTTLS when offered. Logs in when a user
    /// is set. Settings a mail library refuses are a permanent failure.
    pub fn workspace(
        smtp: &WorkspaceSmtp,
        password: Option<SecretString>,
    ) -> Result<Self, SendError> {
        let refused = |e: lettre::transport::smtp::Error| SendError {
            permanent: true,
            message: format!("the workspace's SMTP settings: {e}"),
        };
        let builder = if smtp.tls && smtp.port == 465 {
            AsyncSmtpTransport::<Tokio1Executor>::relay(&smtp.host).map_err(refused)?
        } else if smtp.tls {
            AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&smtp.host).map_err(refused)?
        } else {
            let parameters = TlsParameters::new(smtp.host.clone()).map_err(refused)?;
            AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&smtp.host)
                .tls(Tls::Opportunistic(parameters))
        };
        let mut builder = builder.port(smtp.port).timeout(Some(COMMAND_TIMEOUT));
        if let Some(user) = &smtp.user {
            let password = password
                .map(|p| p.expose_secret().to_owned())
                .unwrap_or_default();
            builder = builder.credentials(Credentials::new(user.clone(), password));
        }
        Ok(Self::Smtp(builder.build()))
    }

    pub async fn send(&self, message: Message) -> Result<(), SendError> {
        tokio::time::timeout(SEND_TIMEOUT, self.send_now(message))
            .await
            .unwrap_or_else(|_| {
                Err(SendError {
                    permanent: false,
                    message: format!("no answer within {} s", SEND_TIMEOUT.as_secs()),
                })
            })
    }

    async fn send_now(&self, message: Message) -> Result<(), SendError> {
        match self {
            Self::Smtp(smtp) => smtp.send(message).await.map(drop).map_err(|e| SendError {
                permanent: e.is_permanent(),
                message: format!("SMTP: {e}"),
            }),
            Self::Files(files) => files.send(message).await.map(drop).map_err(|e| SendError {
                permanent: false,
                message: format!("writing the email file: {e}"),
            }),
        }
    }
}
