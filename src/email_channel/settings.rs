//! `GET|PUT /api/settings/email` (Owners): the workspace's support address, the address
//! customers write to (their own, forwarded by their mail provider), the forwarding address it
//! must forward to, which the deployment's MTA hands to the product, an IMAP mailbox to take
//! mail from instead (or as well), and the workspace's own SMTP server to send through.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use super::address;
use super::mailbox::{self, Mailbox, MailboxInput};
use super::smtp::{self, SmtpInput, SmtpServer};
use crate::audit::{self, Action, Entry};
use crate::authz::Actor;
use crate::email_address::EmailAddress;
use crate::error::responses::OwnerErrors;
use crate::error::{Error, FieldChecks, Result};
use crate::extract::{AppJson, ClientIp};
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};
use supportdesk_core::sealed_credentials::CredentialKey;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmailSettings {
    /// The support address customers write to and replies come from; null until set.
    #[schema(example = "support@acme.example")]
    pub address: Option<String>,
    /// Where the support address must forward mail to (read only).
    #[schema(example = "acme.3f9a0c1b2d@inbound.desk.example")]
    pub inbound_address: String,
    /// The IMAP mailbox the workspace's mail is taken from, if one is connected, with how
    /// watching it goes.
    pub imap: Option<Mailbox>,
    /// The workspace's own outgoing mail server, if one is set: replies to customers leave
    /// through it from the support address. Without one they leave through the platform's.
    pub smtp: Option<SmtpServer>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailSettingsInput {
    /// The support address; null clears it (replies then come from the forwarding address),
    /// left out keeps it.
    #[serde(default, with = "::serde_with::rust::double_option")]
    #[schema(value_type = Option<String>)]
    address: Option<Option<String>>,
    /// An IMAP mailbox to take mail from; null disconnects it, left out keeps it as it is.
    #[serde(default, with = "::serde_with::rust::double_option")]
    #[schema(value_type = Option<MailboxInput>)]
    imap: Option<Option<MailboxInput>>,
    /// The workspace's own SMTP server; null forgets it, left out keeps it as it is.
    #[serde(default, with = "::serde_with::rust::double_option")]
    #[schema(value_type = Option<SmtpInput>)]
    smtp: Option<Option<SmtpInput>>,
}

async fn load(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    actor: &Actor,
) -> Result<EmailSettings> {
    let (slug, tag): (String, String) =
        sqlx::query_as("SELECT slug, inbound_tag FROM public.workspaces WHERE id = $1")
            .bind(actor.workspace_id)
            .fetch_one(&mut *conn)
            .await?;
    let support: Option<String> = sqlx::query_scalar(
        actor
            .schema
            .sql("SELECT address FROM {schema}.email_settings"),
    )
    .fetch_one(&mut *conn)
    .await?;
    let imap = mailbox::find(conn, actor.workspace_id).await?;
    let smtp = smtp::find(conn, &actor.schema).await?;
    Ok(EmailSettings {
        address: support,
        inbound_address: address::inbound_address(&slug, &tag, &state.settings.inbound.domain),
        imap,
        smtp,
    })
}

/// The workspace's email channel settings.
#[utoipa::path(
    get, path = "/api/settings/email", tag = "email",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The support and forwarding addresses", body = EmailSettings),
        OwnerErrors,
    )
)]
pub async fn get(
    State(state): State<AppState>,
    mut tenant: Tenant,
) -> Result<AppJson<EmailSettings>> {
    let actor = tenant.actor.clone();
    let (conn, _) = tenant.parts();
    Ok(AppJson(load(&state, conn, &actor).await?))
}

/// Set the support address, the IMAP mailbox or the SMTP server; what is left out stays as it
/// is.
#[utoipa::path(
    put, path = "/api/settings/email", tag = "email",
    security(("bearer" = [])),
    request_body = EmailSettingsInput,
    responses(
        (status = 200, description = "The updated settings", body = EmailSettings),
        OwnerErrors,
    )
)]
pub async fn put(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    AppJson(input): AppJson<EmailSettingsInput>,
) -> Result<AppJson<EmailSettings>> {
    let support = input
        .address
        .map(|address| {
            address
                .as_deref()
                .map(EmailAddress::parse)
                .transpose()
                .map_err(|e| Error::invalid_field("address", &e))
        })
        .transpose()?;
    if let Some(Some(support)) = &support
        && support
            .as_str()
            .ends_with(&format!("@{}", state.settings.inbound.domain))
    {
        return Err(Error::invalid_field(
            "address",
            "must be the workspace's own address, not one at the forwarding domain",
        ));
    }
    let mut checks = FieldChecks::default();
    let imap = input
        .imap
        .map(|imap| imap.map(|imap| imap.check(&mut checks)));
    let smtp_server = input
        .smtp
        .map(|smtp| smtp.map(|smtp| smtp.check(&mut checks)));
    if !checks.is_empty() {
        return Err(checks.failed());
    }
    // Checked: every `Some(Some(None))` was a failed check, returned above.
    let imap = imap.map(Option::flatten);
    let smtp_server = smtp_server.map(Option::flatten);
    let passwords = (
        matches!(&imap, Some(Some(new)) if new.sets_password()),
        matches!(&smtp_server, Some(Some(new)) if new.sets_password()),
    );
    let mut tenant = TenantTx::begin(&state, actor.clone()).await?;
    let (conn, schema) = tenant.parts();
    let before = load(&state, &mut *conn, &actor).await?;
    match imap {
        Some(Some(new)) => {
            let key = credential_key(&state);
            mailbox::set(&mut *conn, &key, actor.workspace_id, new).await?;
        }
        Some(None) => mailbox::remove(&mut *conn, actor.workspace_id).await?,
        None => {}
    }
    match smtp_server {
        Some(Some(new)) => smtp::set(&mut *conn, schema, &credential_key(&state), new).await?,
        Some(None) => smtp::remove(&mut *conn, schema).await?,
        None => {}
    }
    if let Some(support) = support {
        sqlx::query(
            schema.sql("UPDATE {schema}.email_settings SET address = $1, updated_at = now()"),
        )
        .bind(support.as_ref().map(EmailAddress::as_str))
        .execute(&mut *conn)
        .await?;
    }
    let settings = load(&state, conn, &actor).await?;
    if settings.smtp.is_some() && settings.address.is_none() {
        // Rolled back with the transaction: nothing changes.
        return Err(Error::invalid_field(
            "smtp",
            "needs the support address to send from: set the address first",
        ));
    }
    let mut changes = audit::diff(&[
        ("address", json!(before.address), json!(settings.address)),
        (
            "imap",
            server_of(before.imap.as_ref()),
            server_of(settings.imap.as_ref()),
        ),
        (
            "smtp",
            server_of(before.smtp.as_ref()),
            server_of(settings.smtp.as_ref()),
        ),
    ]);
    if let Some(map) = changes.as_object_mut() {
        // That a password changed, never the password.
        for (field, set) in [
            ("imap.password", passwords.0),
            ("smtp.password", passwords.1),
        ] {
            if set {
                map.insert(field.to_owned(), json!("changed"));
            }
        }
    }
    if changes.as_object().is_some_and(|c| !c.is_empty()) {
        let entry = Entry::new(
            &actor,
            Some(client),
            Action::EmailSettingsChanged,
            "email_settings",
            "workspace",
        )
        .changes(changes);
        let (conn, schema) = tenant.parts();
        audit::record(conn, schema, entry).await?;
    }
    tenant.commit().await?;
    Ok(AppJson(settings))
}

/// A mail server's settings as the audit log compares them: where it is and who logs in, not
/// how watching or sending goes.
fn server_of(server: Option<&impl Serialize>) -> serde_json::Value {
    let mut value = json!(server);
    if let Some(map) = value.as_object_mut() {
        for transient in ["status", "lastError", "checkedAt"] {
            map.remove(transient);
        }
    }
    value
}

/// The key mail server passwords are sealed with (from `EMAIL_TOKEN_SECRET`, which the worker
/// holds too: it opens the SMTP password).
pub fn credential_key(state: &AppState) -> CredentialKey {
    CredentialKey::derive(&state.settings.email.token_secret)
}
