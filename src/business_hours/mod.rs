//! Business hours (Owners): when the team answers. `GET|PATCH /api/settings/business-hours`
//! keep them in the tenant's `settings` row; the chat widget tells visitors outside them that
//! the team is away (`widget::availability`), and reports count business time with them.
//!
//! The document, checked into a `Schedule`, and the clock's questions live in
//! `supportdesk_core::business_hours`, which the worker's reports share.

use axum::extract::State;
use serde::Deserialize;
use serde_json::json;
use sqlx::PgConnection;
use sqlx::types::Json;
use supportdesk_core::tenancy::TenantSchema;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::audit;
use crate::authz::{Actor, Permission, RequireExt, Rule};
use crate::error::responses::OwnerErrors;
use crate::error::{FieldChecks, Result};
use crate::extract::{AppJson, ClientIp};
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};
use crate::workspace_settings;

use supportdesk_core::business_hours::{BusinessHours, Opening, Schedule};

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get, update))
        .require(state, Rule::members(Permission::ManageSettings))
}

/// Each field: absent leaves it as it is.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BusinessHoursPatch {
    #[schema(example = "Europe/Berlin")]
    time_zone: Option<String>,
    /// The whole week: replaces every opening. A day without one is closed.
    weekly: Option<Vec<Opening>>,
    /// Replaces the holidays.
    holidays: Option<Vec<String>>,
}

/// The business hours: open around the clock in UTC until an Owner sets them.
#[utoipa::path(
    get, path = "/api/settings/business-hours", tag = "settings",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The business hours", body = BusinessHours),
        OwnerErrors,
    )
)]
pub async fn get(mut tenant: Tenant) -> Result<AppJson<BusinessHours>> {
    let (conn, schema) = tenant.parts();
    Ok(AppJson(load(conn, schema, false).await?.document()))
}

/// Change the time zone, the weekly openings or the holidays; fields left out stay as they
/// are. Openings are `HH:MM` to `HH:MM` (`24:00` for midnight at the end), at most 4 a day,
/// not overlapping.
#[utoipa::path(
    patch, path = "/api/settings/business-hours", tag = "settings",
    security(("bearer" = [])),
    request_body = BusinessHoursPatch,
    responses(
        (status = 200, description = "The business hours as stored", body = BusinessHours),
        OwnerErrors,
    )
)]
pub async fn update(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    AppJson(patch): AppJson<BusinessHoursPatch>,
) -> Result<AppJson<BusinessHours>> {
    let by = audit::By::from(&actor);
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    let before = load(&mut *conn, schema, true).await?.document();
    let mut wanted = before.clone();
    if let Some(time_zone) = patch.time_zone {
        wanted.time_zone = time_zone;
    }
    if let Some(weekly) = patch.weekly {
        wanted.weekly = weekly;
    }
    if let Some(holidays) = patch.holidays {
        wanted.holidays = holidays;
    }
    let schedule = Schedule::parse(&wanted).map_err(|problems| {
        let mut checks = FieldChecks::default();
        for (field, problem) in problems {
            checks.add(field, problem);
        }
        checks.failed()
    })?;
    let after = schedule.document();
    if after != before {
        sqlx::query(
            schema.sql("UPDATE {schema}.settings SET business_hours = $1, updated_at = now()"),
        )
        .bind(Json(&after))
        .execute(&mut *conn)
        .await?;
        let changes = audit::diff(&[("businessHours", json!(before), json!(after))]);
        workspace_settings::audit_changes(conn, schema, by, client, changes).await?;
    }
    let workspace_id = tenant.actor.workspace_id;
    tenant.commit().await?;
    state.reply_times.forget(workspace_id).await;
    Ok(AppJson(after))
}

/// The tenant's business hours.
pub async fn load(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    for_update: bool,
) -> Result<Schedule> {
    Ok(supportdesk_core::business_hours::load(conn, schema, for_update).await?)
}
