//! `GET/PATCH /api/settings` (Owners): the workspace's branding, as the chat widget and the
//! emails show it, and how its inbox works. Stored in the tenant's one-row `settings` table.

mod branding;
pub mod inbox;

pub use branding::{Branding, BrandingPatch};

use inbox::{InboxSettings, InboxSettingsPatch};

use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::PgConnection;
use sqlx::types::Json;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::audit::{self, Action, Entry};
use crate::authz::{Actor, Permission, RequireExt, Rule};
use crate::error::Result;
use crate::error::responses::OwnerErrors;
use crate::extract::{AppJson, ClientIp};
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get, update))
        .require(state, Rule::members(Permission::ManageSettings))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceSettings {
    pub branding: Branding,
    pub inbox: InboxSettings,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingsPatch {
    branding: Option<BrandingPatch>,
    inbox: Option<InboxSettingsPatch>,
}

/// The workspace's settings.
#[utoipa::path(
    get, path = "/api/settings", tag = "settings",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The settings", body = WorkspaceSettings),
        OwnerErrors,
    )
)]
pub async fn get(mut tenant: Tenant) -> Result<AppJson<WorkspaceSettings>> {
    let (conn, schema) = tenant.parts();
    Ok(AppJson(load(conn, schema, false).await?))
}

/// Change the branding or the inbox settings; fields left out stay as they are, `null`
/// clears one.
#[utoipa::path(
    patch, path = "/api/settings", tag = "settings",
    security(("bearer" = [])),
    request_body = SettingsPatch,
    responses(
        (status = 200, description = "The updated settings", body = WorkspaceSettings),
        OwnerErrors,
    )
)]
pub async fn update(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    AppJson(patch): AppJson<SettingsPatch>,
) -> Result<AppJson<WorkspaceSettings>> {
    let branding_patch = patch.branding.map(BrandingPatch::validate).transpose()?;
    let (branding_given, inbox_given) = (branding_patch.is_some(), patch.inbox.is_some());
    let by = audit::By::from(&actor);
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    let mut settings = load(&mut *conn, schema, true).await?;
    let before = (json!(settings.branding), json!(settings.inbox));
    if let Some(patch) = branding_patch {
        settings.branding.apply(patch);
    }
    if let Some(patch) = patch.inbox {
        settings.inbox.apply(patch);
    }
    if branding_given || inbox_given {
        settings.updated_at = sqlx::query_scalar(schema.sql(
            "UPDATE {schema}.settings SET branding = $1, inbox = $2, updated_at = now()
             RETURNING updated_at",
        ))
        .bind(Json(&settings.branding))
        .bind(Json(&settings.inbox))
        .fetch_one(&mut *conn)
        .await?;
        let changes = audit::diff(&[
            ("branding", before.0, json!(settings.branding)),
            ("inbox", before.1, json!(settings.inbox)),
        ]);
        if changes.as_object().is_some_and(|c| !c.is_empty()) {
            let entry = Entry::new(
                by,
                Some(client),
                Action::SettingsChanged,
                "settings",
                "workspace",
            )
            .changes(changes);
            audit::record(conn, schema, entry).await?;
        }
    }
    tenant.commit().await?;
    Ok(AppJson(settings))
}

/// The settings row of the tenant.
pub async fn load(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    for_update: bool,
) -> Result<WorkspaceSettings> {
    let statement = if for_update {
        "SELECT branding, inbox, updated_at FROM {schema}.settings FOR UPDATE"
    } else {
        "SELECT branding, inbox, updated_at FROM {schema}.settings"
    };
    let (Json(branding), Json(inbox), updated_at): (
        Json<Branding>,
        Json<InboxSettings>,
        OffsetDateTime,
    ) = sqlx::query_as(schema.sql(statement))
        .fetch_one(conn)
        .await?;
    Ok(WorkspaceSettings {
        branding,
        inbox,
        updated_at,
    })
}
