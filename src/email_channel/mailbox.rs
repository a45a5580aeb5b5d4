//! A workspace's IMAP mailbox as Settings -> Email shows and changes it: where it is, who logs
//! in (the password write-only, sealed at rest by `supportdesk_core::sealed_credentials`), which folder, and how
//! watching it goes (`status`, `lastError`). Rows live in `public.email_mailboxes`, which the
//! watchers (`imap`) share out by lease.

use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{Error, FieldChecks};
use supportdesk_core::sealed_credentials::CredentialKey;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum MailboxStatus {
    /// Not connected yet since it was set.
    Connecting,
    Connected,
    /// The last attempt failed: `lastError` says why; it is tried again.
    Failing,
}

/// The mailbox as Settings shows it (no password).
#[derive(Debug, Clone, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Mailbox {
    #[schema(example = "imap.example.com")]
    pub host: String,
    #[schema(example = 993)]
    pub port: i32,
    /// Implicit TLS (port 993); false: plain IMAP (a server on a private network only).
    pub tls: bool,
    #[sqlx(rename = "username")]
    pub user: String,
    #[schema(example = "INBOX")]
    pub folder: String,
    pub status: MailboxStatus,
    pub last_error: Option<String>,
}

/// `imap` in `PUT /api/settings/email`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MailboxInput {
    host: String,
    port: i32,
    tls: bool,
    user: String,
    /// Write-only; left out, the stored one is kept (required the first time).
    password: Option<String>,
    /// Default `INBOX`.
    folder: Option<String>,
}

/// A checked [`MailboxInput`].
pub struct NewMailbox {
    host: String,
    port: i32,
    tls: bool,
    user: String,
    password: Option<SecretString>,
    folder: String,
}

impl NewMailbox {
    /// A new password comes with it.
    pub fn sets_password(&self) -> bool {
        self.password.is_some()
    }
}

impl MailboxInput {
    pub fn check(self, checks: &mut FieldChecks) -> Option<NewMailbox> {
        let host = check_server(["imap.host", "imap.port"], &self.host, self.port, checks);
        let user = self.user.trim().to_owned();
        if user.is_empty() || user.len() > 320 {
            checks.add("imap.user", "is required (at most 320 characters)");
        }
        if self
            .password
            .as_ref()
            .is_some_and(|p| p.is_empty() || p.len() > 1024)
        {
            checks.add("imap.password", "must be 1 to 1024 characters");
        }
        let folder = self
            .folder
            .map(|f| f.trim().to_owned())
            .filter(|f| !f.is_empty())
            .unwrap_or_else(|| "INBOX".to_owned());
        if folder.len() > 200 || folder.chars().any(|c| c.is_control() || c == '"') {
            checks.add("imap.folder", "must be a folder name without quotes");
        }
        checks.is_empty().then(|| NewMailbox {
            host,
            port: self.port,
            tls: self.tls,
            user,
            password: self.password.map(SecretString::from),
            folder,
        })
    }
}

/// A mail server's host (trimmed, lower case) and port, problems added under the fields named
/// (`imap.host`, `imap.port`, say).
pub(super) fn check_server(
    [host_field, port_field]: [&'static str; 2],
    host: &str,
    port: i32,
    checks: &mut FieldChecks,
) -> String {
    let host = host.trim().to_ascii_lowercase();
    if host.is_empty()
        || host.len() > 253
        || !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'))
    {
        checks.add(host_field, "must be a host name or an IP address");
    }
    if !(1..=65535).contains(&port) {
        checks.add(port_field, "must be between 1 and 65535");
    }
    host
}

/// The workspace's mailbox, if it has one.
pub async fn find(conn: &mut PgConnection, workspace_id: Uuid) -> sqlx::Result<Option<Mailbox>> {
    sqlx::query_as(
        "SELECT host, port, tls, username, folder, status, last_error
           FROM public.email_mailboxes WHERE workspace_id = $1",
    )
    .bind(workspace_id)
    .fetch_optional(conn)
    .await
}

/// Sets the workspace's mailbox; its watcher starts over with the new settings (a changed
/// server or folder also starts taking mail from the folder's current state over).
pub async fn set(
    conn: &mut PgConnection,
    key: &CredentialKey,
    workspace_id: Uuid,
    new: NewMailbox,
) -> Result<(), Error> {
    let sealed = new.password.as_ref().map(|p| key.seal(p));
    // Twice at most: a first connection that loses the race to insert to a concurrent one
    // changes the row that one made.
    for _ in 0..2 {
        let changed = sqlx::query(
            "UPDATE public.email_mailboxes m
                SET host = $2, port = $3, tls = $4, username = $5,
                    password_sealed = coalesce($6, m.password_sealed), folder = $7,
                    uid_validity = CASE WHEN (m.host, m.username, m.folder) = ($2, $5, $7)
                                        THEN m.uid_validity END,
                    last_uid = CASE WHEN (m.host, m.username, m.folder) = ($2, $5, $7)
                                    THEN m.last_uid ELSE 0 END,
                    status = 'connecting', last_error = NULL, owners_alerted = false,
                    version = m.version + 1, updated_at = now()
              WHERE m.workspace_id = $1
                -- The stored password goes only to the server and user it was given for.
                AND ($6::bytea IS NOT NULL OR (m.host, m.port, m.username) = ($2, $3, $5))",
        )
        .bind(workspace_id)
        .bind(&new.host)
        .bind(new.port)
        .bind(new.tls)
        .bind(&new.user)
        .bind(&sealed)
        .bind(&new.folder)
        .execute(&mut *conn)
        .await?
        .rows_affected();
        if changed > 0 {
            return Ok(());
        }
        // A first connection needs its password.
        let Some(sealed) = &sealed else {
            return Err(Error::invalid_field(
                "imap.password",
                "is required to connect a mailbox, and when its server, port or user changes",
            ));
        };
        let inserted = sqlx::query(
            "INSERT INTO public.email_mailboxes
                    (workspace_id, host, port, tls, username, password_sealed, folder)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (workspace_id) DO NOTHING",
        )
        .bind(workspace_id)
        .bind(&new.host)
        .bind(new.port)
        .bind(new.tls)
        .bind(&new.user)
        .bind(sealed)
        .bind(&new.folder)
        .execute(&mut *conn)
        .await?
        .rows_affected();
        if inserted > 0 {
            return Ok(());
        }
    }
    Err(Error::Internal(anyhow::anyhow!(
        "the mailbox row of workspace {workspace_id} neither changed nor could be made"
    )))
}

/// Stops watching the workspace's mailbox and forgets its settings.
pub async fn remove(conn: &mut PgConnection, workspace_id: Uuid) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM public.email_mailboxes WHERE workspace_id = $1")
        .bind(workspace_id)
        .execute(conn)
        .await?;
    Ok(())
}
