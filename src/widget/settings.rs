//! `/api/settings/widget` (Owners): the site key, the allowed origins and identity
//! verification. The row is made the first time an Owner looks, with a fresh site key.
//!
//! Turning identity verification on revokes the tokens of visitors whose identity was only
//! claimed (`crate::widget::visitor`): it moves the workspace's identity epoch, which such
//! tokens carry, so they stay refused even if verification is turned off again, and it is told
//! to every replica as a change to the whole workspace, whose hub then closes their
//! connections (`crate::chat::lifecycle`).

use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::PgConnection;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::{self, Action, Entry};
use crate::authz::Actor;
use crate::credentials::widget_identity;
use crate::error::responses::OwnerErrors;
use crate::error::{Error, FieldChecks, Result};
use crate::extract::{AppJson, ClientIp};
use crate::state::AppState;

use super::site_key::{AllowedOrigin, MAX_ORIGINS, SiteKey};

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSettings {
    site_key: SiteKey,
    /// Origins (`https://www.example.com`) whose pages may start widget sessions.
    allowed_origins: Vec<String>,
    identity_verification: IdentityVerification,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdentityVerification {
    /// When on, every `identity` a session names must carry its HMAC `hash`; turning it on
    /// revokes the visitor tokens of identities that carried none.
    enabled: bool,
    /// Whether an identity secret was generated (it is shown only then).
    has_secret: bool,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WidgetSettingsPatch {
    allowed_origins: Option<Vec<String>>,
    identity_verification: Option<IdentityVerificationPatch>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IdentityVerificationPatch {
    enabled: bool,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegeneratedSiteKey {
    site_key: SiteKey,
}

#[derive(Serialize, ToSchema)]
pub struct RegeneratedSecret {
    /// Shown this once: sign each visitor's `externalId` with it on your server,
    /// `hex(HMAC-SHA256(secret, externalId))`.
    secret: String,
}

struct Row {
    site_key: String,
    allowed_origins: Vec<String>,
    identity_verification: bool,
    has_secret: bool,
}

impl TryFrom<Row> for WidgetSettings {
    type Error = Error;

    fn try_from(row: Row) -> Result<Self> {
        // The table's check keeps every stored key in the form `SiteKey` parses.
        let site_key = SiteKey::parse(&row.site_key)
            .ok_or_else(|| Error::Internal(anyhow::anyhow!("a stored site key is malformed")))?;
        Ok(Self {
            site_key,
            allowed_origins: row.allowed_origins,
            identity_verification: IdentityVerification {
                enabled: row.identity_verification,
                has_secret: row.has_secret,
            },
        })
    }
}

/// The workspace's row, made (with a fresh site key) when there is none yet; locked when
/// `for_update`, for a change in the same transaction.
async fn ensure(conn: &mut PgConnection, workspace_id: Uuid, for_update: bool) -> Result<Row> {
    let site_key = SiteKey::generate();
    sqlx::query!(
        "INSERT INTO public.widget_sites (workspace_id, site_key) VALUES ($1, $2)
         ON CONFLICT (workspace_id) DO NOTHING",
        workspace_id,
        site_key.as_str(),
    )
    .execute(&mut *conn)
    .await?;
    let row = if for_update {
        sqlx::query_as!(
            Row,
            r#"SELECT site_key, allowed_origins, identity_verification,
                      identity_secret_nonce IS NOT NULL AS "has_secret!"
                 FROM public.widget_sites WHERE workspace_id = $1 FOR UPDATE"#,
            workspace_id,
        )
        .fetch_one(conn)
        .await?
    } else {
        sqlx::query_as!(
            Row,
            r#"SELECT site_key, allowed_origins, identity_verification,
                      identity_secret_nonce IS NOT NULL AS "has_secret!"
                 FROM public.widget_sites WHERE workspace_id = $1"#,
            workspace_id,
        )
        .fetch_one(conn)
        .await?
    };
    Ok(row)
}

/// The widget's settings.
#[utoipa::path(
    get, path = "/api/settings/widget", tag = "settings",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The widget's settings (the identity secret is never shown again)", body = WidgetSettings),
        OwnerErrors,
    )
)]
pub async fn get(State(state): State<AppState>, actor: Actor) -> Result<AppJson<WidgetSettings>> {
    let mut conn = state.db.acquire().await?;
    Ok(AppJson(
        ensure(&mut conn, actor.workspace_id, false)
            .await?
            .try_into()?,
    ))
}

/// Change the allowed origins or turn identity verification on or off; fields left out stay.
///
/// Turning verification on refuses, from then on, every visitor token issued to an identity
/// that was not signed, and closes their hub connections.
#[utoipa::path(
    patch, path = "/api/settings/widget", tag = "settings",
    security(("bearer" = [])),
    request_body = WidgetSettingsPatch,
    responses(
        (status = 200, description = "The updated settings", body = WidgetSettings),
        (status = 409, description = "Verification turned on before an identity secret was generated (`identity_secret_missing`)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        OwnerErrors,
    )
)]
pub async fn update(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    AppJson(patch): AppJson<WidgetSettingsPatch>,
) -> Result<AppJson<WidgetSettings>> {
    let origins = patch.allowed_origins.map(origins).transpose()?;
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    let mut row = ensure(&mut tx, actor.workspace_id, true).await?;
    let before = (row.allowed_origins.clone(), row.identity_verification);
    if let Some(origins) = origins {
        row.allowed_origins = origins;
    }
    let was_on = row.identity_verification;
    if let Some(verification) = patch.identity_verification {
        if verification.enabled && !row.has_secret {
            return Err(Error::conflict(
                "identity_secret_missing",
                "generate the identity secret (POST /api/settings/widget/identity-secret/regenerate) before turning verification on",
            ));
        }
        row.identity_verification = verification.enabled;
    }
    let turned_on = row.identity_verification && !was_on;
    sqlx::query!(
        "UPDATE public.widget_sites
            SET allowed_origins = $2, identity_verification = $3,
                identity_epoch = identity_epoch + CASE WHEN $4 THEN 1 ELSE 0 END,
                updated_at = now()
          WHERE workspace_id = $1",
        actor.workspace_id,
        &row.allowed_origins,
        row.identity_verification,
        turned_on,
    )
    .execute(&mut *tx)
    .await?;
    let changes = audit::diff(&[
        (
            "allowedOrigins",
            json!(before.0),
            json!(row.allowed_origins),
        ),
        (
            "identityVerification",
            json!(before.1),
            json!(row.identity_verification),
        ),
    ]);
    if changes.as_object().is_some_and(|c| !c.is_empty()) {
        let entry = Entry::new(
            &actor,
            Some(client),
            Action::WidgetSettingsChanged,
            "widget",
            actor.workspace_id,
        )
        .changes(changes);
        audit::record(&mut tx, &actor.schema, entry).await?;
    }
    tx.commit().await?;
    if turned_on {
        state
            .memberships
            .workspace_changed(actor.workspace_id)
            .await;
    }
    Ok(AppJson(row.try_into()?))
}

/// Checks and normalises the list; every problem at once.
fn origins(values: Vec<String>) -> Result<Vec<String>> {
    let mut checks = FieldChecks::default();
    if values.len() > MAX_ORIGINS {
        checks.add("allowedOrigins", format!("at most {MAX_ORIGINS} origins"));
    }
    let mut origins: Vec<String> = Vec::with_capacity(values.len());
    for value in &values {
        if let Some(origin) = checks.check("allowedOrigins", AllowedOrigin::parse(value)) {
            let origin = origin.into_string();
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
    }
    if checks.is_empty() {
        Ok(origins)
    } else {
        Err(checks.failed())
    }
}

/// Replace the site key; the old one stops working at once.
#[utoipa::path(
    post, path = "/api/settings/widget/site-key/regenerate", tag = "settings",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The new site key; pages must embed it from now on", body = RegeneratedSiteKey),
        OwnerErrors,
    )
)]
pub async fn regenerate_site_key(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
) -> Result<AppJson<RegeneratedSiteKey>> {
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    ensure(&mut tx, actor.workspace_id, true).await?;
    let site_key = SiteKey::generate();
    sqlx::query!(
        "UPDATE public.widget_sites SET site_key = $2, updated_at = now() WHERE workspace_id = $1",
        actor.workspace_id,
        site_key.as_str(),
    )
    .execute(&mut *tx)
    .await?;
    // The site key is public (it is in every page that embeds the widget): recorded whole.
    let entry = Entry::new(
        &actor,
        Some(client),
        Action::WidgetSiteKeyRegenerated,
        "widget",
        actor.workspace_id,
    )
    .changes(json!({ "siteKey": site_key.as_str() }));
    audit::record(&mut tx, &actor.schema, entry).await?;
    tx.commit().await?;
    Ok(AppJson(RegeneratedSiteKey { site_key }))
}

/// Make a new identity secret, shown in this answer only; the old one stops matching.
#[utoipa::path(
    post, path = "/api/settings/widget/identity-secret/regenerate", tag = "settings",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The new secret, shown once", body = RegeneratedSecret),
        OwnerErrors,
    )
)]
pub async fn regenerate_identity_secret(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
) -> Result<AppJson<RegeneratedSecret>> {
    let nonce = widget_identity::new_nonce();
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    ensure(&mut tx, actor.workspace_id, true).await?;
    sqlx::query!(
        "UPDATE public.widget_sites SET identity_secret_nonce = $2, updated_at = now()
          WHERE workspace_id = $1",
        actor.workspace_id,
        &nonce[..],
    )
    .execute(&mut *tx)
    .await?;
    let entry = Entry::new(
        &actor,
        Some(client),
        Action::WidgetIdentitySecretRegenerated,
        "widget",
        actor.workspace_id,
    );
    audit::record(&mut tx, &actor.schema, entry).await?;
    tx.commit().await?;
    Ok(AppJson(RegeneratedSecret {
        secret: state.widget_identity.secret(actor.workspace_id, &nonce),
    }))
}
