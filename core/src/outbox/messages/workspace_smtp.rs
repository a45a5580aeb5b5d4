//! A workspace's own outgoing mail server, as the worker sends through it: where it is, who
//! logs in (the password still sealed: the worker opens it with the key from
//! `EMAIL_TOKEN_SECRET`), and the support address its emails come from. The worker records how
//! each send through it went, which Settings -> Email shows; and the test email an Owner asks
//! for there.

use sqlx::PgConnection;
use sqlx::PgPool;
use uuid::Uuid;

use super::workspace;
use crate::tenancy::TenantSchema;

#[derive(Debug, Clone)]
pub struct WorkspaceSmtp {
    pub host: String,
    pub port: u16,
    /// TLS required (implicit on 465, STARTTLS elsewhere); false: plain, STARTTLS if offered.
    pub tls: bool,
    pub user: Option<String>,
    pub password_sealed: Option<Vec<u8>>,
    /// The support address (else the forwarding address): From of what leaves through it.
    pub address: String,
}

type Row = (
    Option<String>,
    Option<i32>,
    Option<bool>,
    Option<String>,
    Option<Vec<u8>>,
    Option<String>,
);

/// The workspace's SMTP server, if it has one.
pub async fn find(
    conn: &mut PgConnection,
    schema: &TenantSchema,
) -> sqlx::Result<Option<WorkspaceSmtp>> {
    let row: Option<Row> = sqlx::query_as(schema.sql(
        "SELECT smtp_host, smtp_port, smtp_tls, smtp_username, smtp_password_sealed, address
           FROM {schema}.email_settings",
    ))
    .fetch_optional(conn)
    .await?;
    Ok(match row {
        Some((Some(host), Some(port), Some(tls), user, password_sealed, Some(address))) => {
            Some(WorkspaceSmtp {
                host,
                port: u16::try_from(port).map_err(|e| sqlx::Error::Decode(e.into()))?,
                tls,
                user,
                password_sealed,
                address,
            })
        }
        // No server, or no support address to send from: the platform's server sends.
        _ => None,
    })
}

/// How the last email through the workspace's server went.
#[derive(Debug, Clone, Copy)]
pub enum SmtpOutcome<'a> {
    Working,
    Failing(&'a str),
}

/// Records `outcome` on the workspace's SMTP server (nothing when it has none, or its
/// workspace is gone).
pub async fn record(db: &PgPool, workspace_id: Uuid, outcome: SmtpOutcome<'_>) -> sqlx::Result<()> {
    let mut conn = db.acquire().await?;
    let Some(ws) = workspace::active(&mut conn, workspace_id).await? else {
        return Ok(());
    };
    let (status, error) = match outcome {
        SmtpOutcome::Working => ("working", None),
        SmtpOutcome::Failing(e) => ("failing", Some(e)),
    };
    sqlx::query(ws.schema.sql(
        "UPDATE {schema}.email_settings
            SET smtp_status = $1, smtp_last_error = $2, smtp_checked_at = now()
          WHERE smtp_host IS NOT NULL",
    ))
    .bind(status)
    .bind(error)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// The test email an Owner asked for in Settings -> Email.
#[derive(Debug, Clone)]
pub struct SmtpTest {
    pub schema: TenantSchema,
    pub workspace_name: String,
    pub email: String,
    pub full_name: String,
    /// The workspace's server; `None`: the platform's sends it.
    pub smtp: Option<WorkspaceSmtp>,
}

/// The test email for Owner `user_id` of workspace `workspace_id`, while they are still an
/// active Owner of an active workspace.
pub async fn test_email(
    db: &PgPool,
    workspace_id: Uuid,
    user_id: Uuid,
) -> sqlx::Result<Option<SmtpTest>> {
    let mut conn = db.acquire().await?;
    let Some(ws) = workspace::active(&mut conn, workspace_id).await? else {
        return Ok(None);
    };
    let owner = workspace::active_owner(&mut conn, workspace_id, user_id).await?;
    let Some((email, full_name)) = owner else {
        return Ok(None);
    };
    let smtp = find(&mut conn, &ws.schema).await?;
    Ok(Some(SmtpTest {
        schema: ws.schema,
        workspace_name: ws.name,
        email,
        full_name,
        smtp,
    }))
}
