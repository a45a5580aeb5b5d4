//! The workspace's own outgoing mail server, as Settings -> Email shows and changes it: replies
//! to customers then leave through their provider, from the support address, instead of
//! through the platform's `SMTP_URL`. The password is write-only and sealed at rest
//! (`supportdesk_core::sealed_credentials`); the worker opens it to send. `status` and
//! `lastError` say how the last send or test through it went, and "Send a test email"
//! (`POST /api/settings/email/test`) asks the worker to try it now.

use axum::extract::State;
use axum::http::StatusCode;
use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use supportdesk_core::outbox::{self, OutboxMessage};
use supportdesk_core::sealed_credentials::CredentialKey;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::mailbox::check_server;
use crate::authz::Actor;
use crate::error::responses::OwnerErrors;
use crate::error::{Error, FieldChecks, Result};
use crate::extract::AppJson;
use crate::state::AppState;
use crate::tenancy::context::TenantTx;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum SmtpStatus {
    /// Nothing was sent through it since it was set.
    Untested,
    /// A test email is on its way.
    Testing,
    /// The last email sent through it was accepted.
    Working,
    /// The last email sent through it failed: `lastError` says why.
    Failing,
}

/// The workspace's SMTP server as Settings shows it (no password).
#[derive(Debug, Clone, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct SmtpServer {
    #[schema(example = "smtp.example.com")]
    #[sqlx(rename = "smtp_host")]
    pub host: String,
    #[schema(example = 587)]
    #[sqlx(rename = "smtp_port")]
    pub port: i32,
    /// TLS required (implicit on port 465, STARTTLS on others); false: plain SMTP, STARTTLS
    /// when the server offers it (a server on a private network only).
    #[sqlx(rename = "smtp_tls")]
    pub tls: bool,
    /// Who logs in; null: the server takes mail without a login.
    #[sqlx(rename = "smtp_username")]
    pub user: Option<String>,
    #[sqlx(rename = "smtp_status")]
    pub status: SmtpStatus,
    #[sqlx(rename = "smtp_last_error")]
    pub last_error: Option<String>,
    /// When the last email went through it (or failed to).
    #[serde(with = "time::serde::rfc3339::option")]
    #[sqlx(rename = "smtp_checked_at")]
    pub checked_at: Option<OffsetDateTime>,
}

/// `smtp` in `PUT /api/settings/email`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SmtpInput {
    host: String,
    port: i32,
    tls: bool,
    /// Left out or null: no login.
    user: Option<String>,
    /// Write-only; left out, the stored one is kept while host, port and user stay the same.
    password: Option<String>,
}

/// A checked [`SmtpInput`].
pub struct NewSmtp {
    host: String,
    port: i32,
    tls: bool,
    user: Option<String>,
    password: Option<SecretString>,
}

impl NewSmtp {
    /// A new password comes with it.
    pub fn sets_password(&self) -> bool {
        self.password.is_some()
    }
}

impl SmtpInput {
    pub fn check(self, checks: &mut FieldChecks) -> Option<NewSmtp> {
        let host = check_server(["smtp.host", "smtp.port"], &self.host, self.port, checks);
        let user = self
            .user
            .map(|u| u.trim().to_owned())
            .filter(|u| !u.is_empty());
        if user.as_ref().is_some_and(|u| u.len() > 320) {
            checks.add("smtp.user", "must be at most 320 characters");
        }
        if self
            .password
            .as_ref()
            .is_some_and(|p| p.is_empty() || p.len() > 1024)
        {
            checks.add("smtp.password", "must be 1 to 1024 characters");
        }
        if user.is_none() && self.password.is_some() {
            checks.add("smtp.password", "needs a user to log in with");
        }
        checks.is_empty().then(|| NewSmtp {
            host,
            port: self.port,
            tls: self.tls,
            user,
            password: self.password.map(SecretString::from),
        })
    }
}

/// The workspace's SMTP server, if it has one.
pub async fn find(
    conn: &mut PgConnection,
    schema: &TenantSchema,
) -> sqlx::Result<Option<SmtpServer>> {
    sqlx::query_as(schema.sql(
        "SELECT smtp_host, smtp_port, smtp_tls, smtp_username, smtp_status, smtp_last_error,
                smtp_checked_at
           FROM {schema}.email_settings WHERE smtp_host IS NOT NULL",
    ))
    .fetch_optional(conn)
    .await
}

/// Sets the workspace's SMTP server. A password left out keeps the stored one only while the
/// server and the user stay the same: the stored password never goes to a server it was not
/// given for.
pub async fn set(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    key: &CredentialKey,
    new: NewSmtp,
) -> Result<()> {
    let sealed = new.password.as_ref().map(|p| key.seal(p));
    let (has_password,): (bool,) = sqlx::query_as(schema.sql(
        "UPDATE {schema}.email_settings
            SET smtp_host = $1, smtp_port = $2, smtp_tls = $3, smtp_username = $4,
                smtp_password_sealed = CASE WHEN $4::text IS NULL THEN NULL
                                            WHEN $5::bytea IS NOT NULL THEN $5
                                            WHEN (smtp_host, smtp_port, smtp_username)
                                                 = ($1, $2, $4) THEN smtp_password_sealed
                                       END,
                smtp_status = 'untested', smtp_last_error = NULL, smtp_checked_at = NULL,
                updated_at = now()
         RETURNING $4::text IS NULL OR smtp_password_sealed IS NOT NULL",
    ))
    .bind(&new.host)
    .bind(new.port)
    .bind(new.tls)
    .bind(&new.user)
    .bind(&sealed)
    .fetch_one(conn)
    .await?;
    if !has_password {
        return Err(Error::invalid_field(
            "smtp.password",
            "is required when the server, its port or the user changes",
        ));
    }
    Ok(())
}

/// Forgets the workspace's SMTP server: replies leave through the platform's again.
pub async fn remove(conn: &mut PgConnection, schema: &TenantSchema) -> sqlx::Result<()> {
    sqlx::query(schema.sql(
        "UPDATE {schema}.email_settings
            SET smtp_host = NULL, smtp_port = NULL, smtp_tls = NULL, smtp_username = NULL,
                smtp_password_sealed = NULL, smtp_status = NULL, smtp_last_error = NULL,
                smtp_checked_at = NULL, updated_at = now()",
    ))
    .execute(conn)
    .await?;
    Ok(())
}

/// `POST /api/settings/email/test`: where the test email goes and what it leaves through.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestEmail {
    /// The Owner who asked: the test email is sent to their own address.
    #[schema(example = "owner@acme.example")]
    pub to: String,
    pub via: TestRoute,
}

#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TestRoute {
    /// Through the workspace's SMTP server (its `status` shows the outcome).
    Workspace,
    /// Through the platform's, as replies leave without one.
    Platform,
}

/// Send a test email to yourself through the workspace's outgoing mail server (or the
/// platform's when it has none). The worker sends it; the SMTP server's `status` and
/// `lastError` in `GET /api/settings/email` show how it went.
#[utoipa::path(
    post, path = "/api/settings/email/test", tag = "email",
    security(("bearer" = [])),
    responses(
        (status = 202, description = "The test email is queued", body = TestEmail),
        OwnerErrors,
    )
)]
pub async fn send_test(
    State(state): State<AppState>,
    actor: Actor,
) -> Result<(StatusCode, AppJson<TestEmail>)> {
    let user_id = actor.member_id()?;
    let mut tenant = TenantTx::begin(&state, actor.clone()).await?;
    let (conn, schema) = tenant.parts();
    let (to,): (String,) = sqlx::query_as("SELECT email FROM public.users WHERE id = $1")
        .bind(user_id)
        .fetch_one(&mut *conn)
        .await?;
    let testing = sqlx::query(schema.sql(
        "UPDATE {schema}.email_settings SET smtp_status = 'testing', smtp_last_error = NULL
          WHERE smtp_host IS NOT NULL AND address IS NOT NULL",
    ))
    .execute(&mut *conn)
    .await?
    .rows_affected()
        > 0;
    outbox::enqueue(
        &mut *conn,
        &OutboxMessage::SmtpTestEmail {
            workspace_id: actor.workspace_id,
            user_id,
        },
    )
    .await?;
    tenant.commit().await?;
    let via = if testing {
        TestRoute::Workspace
    } else {
        TestRoute::Platform
    };
    Ok((StatusCode::ACCEPTED, AppJson(TestEmail { to, via })))
}
