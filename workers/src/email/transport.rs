//! How email leaves: SMTP (`SMTP_URL`: `smtp://` with STARTTLS when the URL asks for it via
//! `?tls=required|opportunistic`, `smtps://` for implicit TLS, credentials in the URL) or,
//! when unset, `.eml` files under `MAIL_DIR` (the local default).

use std::time::Duration;

use lettre::{AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use secrecy::ExposeSecret;
use supportdesk_core::config::MailTransport;

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
