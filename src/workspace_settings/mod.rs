//! `GET/PATCH /api/settings` (Owners): the workspace's branding, as the chat widget and the
//! emails show it, how its inbox works, and the language its search stems words in. Stored
//! in the tenant's one-row `settings` table.
//!
//! A new search language takes effect in the same transaction (`supportdesk_core::search`):
//! queries and new rows use it from the commit on, and an outbox message has the worker write
//! every existing row's search vector again.

mod branding;
pub mod inbox;

pub use branding::{Branding, BrandingPatch};

use inbox::{InboxSettings, InboxSettingsPatch};
use supportdesk_core::outbox::{self, OutboxMessage};
use supportdesk_core::search::{self as search_language, SearchLanguage};

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
    pub search: SearchSettings,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingsPatch {
    branding: Option<BrandingPatch>,
    inbox: Option<InboxSettingsPatch>,
    search: Option<SearchSettingsPatch>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct SearchSettings {
    /// The language search stems words in ("refunds" finds "refunded" in English), with its
    /// stop words; `simple` matches words only as written. Every word also matches as written,
    /// whatever the language.
    pub language: SearchLanguage,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchSettingsPatch {
    /// One of PostgreSQL's stemmers (`english`, `french`, `german`, `spanish`, `portuguese`,
    /// ... 28 in all) or `simple`. Past conversations are indexed again in the background;
    /// new ones use it at once.
    language: Option<SearchLanguage>,
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

/// Change the branding, the inbox settings or the search language; fields left out stay as
/// they are, `null` clears one.
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
    let language = patch.search.and_then(|search| search.language);
    let by = audit::By::from(&actor);
    let workspace_id = actor.workspace_id;
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    let mut settings = load(&mut *conn, schema, true).await?;
    let before = (
        json!(settings.branding),
        json!(settings.inbox),
        json!(settings.search),
    );
    if let Some(patch) = branding_patch {
        settings.branding.apply(patch);
    }
    if let Some(patch) = patch.inbox {
        settings.inbox.apply(patch);
    }
    let new_language = language.filter(|l| *l != settings.search.language);
    if let Some(language) = new_language {
        search_language::set_language(&mut *conn, schema, language).await?;
        sqlx::query(schema.sql("UPDATE {schema}.settings SET search_language = $1"))
            .bind(language)
            .execute(&mut *conn)
            .await?;
        outbox::enqueue(&mut *conn, &OutboxMessage::ReindexSearch { workspace_id }).await?;
        settings.search.language = language;
    }
    if branding_given || inbox_given || new_language.is_some() {
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
            ("search", before.2, json!(settings.search)),
        ]);
        audit_changes(conn, schema, by, client, changes).await?;
    }
    tenant.commit().await?;
    Ok(AppJson(settings))
}

/// Records a change of the workspace's settings (`audit::diff` of the fields), if any, in the
/// audit log.
pub async fn audit_changes(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    by: audit::By,
    client: ClientIp,
    changes: serde_json::Value,
) -> Result<()> {
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
    Ok(())
}

/// The settings row of the tenant.
pub async fn load(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    for_update: bool,
) -> Result<WorkspaceSettings> {
    let statement = if for_update {
        "SELECT branding, inbox, search_language, updated_at FROM {schema}.settings FOR UPDATE"
    } else {
        "SELECT branding, inbox, search_language, updated_at FROM {schema}.settings"
    };
    let (Json(branding), Json(inbox), language, updated_at): (
        Json<Branding>,
        Json<InboxSettings>,
        SearchLanguage,
        OffsetDateTime,
    ) = sqlx::query_as(schema.sql(statement))
        .fetch_one(conn)
        .await?;
    Ok(WorkspaceSettings {
        branding,
        inbox,
        search: SearchSettings { language },
        updated_at,
    })
}
