//! `GET|PUT /api/settings/email` (Owners): the workspace's support address, the address
//! customers write to (their own, forwarded by their mail provider), and the forwarding address
//! it must forward to, which the deployment's MTA hands to the product.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::address;
use crate::authz::Actor;
use crate::email_address::EmailAddress;
use crate::error::responses::OwnerErrors;
use crate::error::{Error, Result};
use crate::extract::AppJson;
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmailSettings {
    /// The support address customers write to and replies come from; null until set.
    #[schema(example = "support@acme.example")]
    pub address: Option<String>,
    /// Where the support address must forward mail to (read only).
    #[schema(example = "acme.3f9a0c1b2d@inbound.desk.example")]
    pub inbound_address: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailSettingsInput {
    /// The support address; null clears it (replies then come from the forwarding address).
    address: Option<String>,
}

async fn load(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    actor: &Actor,
) -> Result<EmailSettings> {
    let (slug, tag, support): (String, String, Option<String>) = sqlx::query_as(actor.schema.sql(
        "SELECT w.slug, w.inbound_tag, s.address
               FROM public.workspaces w, {schema}.email_settings s
              WHERE w.id = $1",
    ))
    .bind(actor.workspace_id)
    .fetch_one(conn)
    .await?;
    Ok(EmailSettings {
        address: support,
        inbound_address: address::inbound_address(&slug, &tag, &state.settings.inbound.domain),
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

/// Set the support address.
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
    actor: Actor,
    AppJson(input): AppJson<EmailSettingsInput>,
) -> Result<AppJson<EmailSettings>> {
    let support = input
        .address
        .as_deref()
        .map(EmailAddress::parse)
        .transpose()
        .map_err(|e| Error::invalid_field("address", &e))?;
    if let Some(support) = &support
        && support
            .as_str()
            .ends_with(&format!("@{}", state.settings.inbound.domain))
    {
        return Err(Error::invalid_field(
            "address",
            "must be the workspace's own address, not one at the forwarding domain",
        ));
    }
    let mut tenant = TenantTx::begin(&state, actor.clone()).await?;
    let (conn, schema) = tenant.parts();
    sqlx::query(schema.sql("UPDATE {schema}.email_settings SET address = $1, updated_at = now()"))
        .bind(support.as_ref().map(EmailAddress::as_str))
        .execute(&mut *conn)
        .await?;
    let settings = load(&state, conn, &actor).await?;
    tenant.commit().await?;
    Ok(AppJson(settings))
}
