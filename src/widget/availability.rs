//! `GET /widget/v1/availability`: whether the team is within its business hours now, when
//! that next changes, and how long a first answer usually takes (`reply_time`), so the widget
//! can say "we usually reply in ..." or "we're away, we'll reply by email" and ask for an
//! address, and look again when the hours begin or end. The server answers rather
//! than the widget working it out: the hours are civil times of the workspace's zone.

use axum::extract::State;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::business_hours;
use crate::error::{Error, Result};
use crate::extract::AppJson;
use crate::state::AppState;

use super::reply_time;
use super::visitor::Visitor;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Availability {
    /// Within the workspace's business hours now.
    open: bool,
    /// When `open` next changes; null when it does not (open around the clock, or no hours).
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    changes_at: Option<OffsetDateTime>,
    /// The median first response of the newest conversations answered in the last 30 days,
    /// in seconds of business time ("we usually reply in ..."); null with fewer than 5.
    typical_reply_seconds: Option<i64>,
}

/// Whether the team is within its business hours now.
#[utoipa::path(
    get, path = "/widget/v1/availability", tag = "widget",
    security(("visitor" = [])),
    responses(
        (status = 200, description = "Open now or not, until when, and the usual first reply", body = Availability),
        (status = 401, description = "Missing, invalid or expired visitor token, or one whose identity is no longer trusted (its contact was verified since, or the workspace verifies identities)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a visitor token (`wrong_token_type`), or a deleted workspace",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn availability(
    State(state): State<AppState>,
    visitor: Visitor,
) -> Result<AppJson<Availability>> {
    let mut conn = visitor.read(&state).await?;
    let schedule = business_hours::load(&mut conn, &visitor.schema, false).await?;
    let typical_reply_seconds = reply_time::typical(
        &state,
        &mut conn,
        &visitor.schema,
        visitor.workspace_id,
        &schedule,
    )
    .await?;
    let now = jiff::Timestamp::now();
    let changes_at = schedule
        .next_change(now)
        .map(|at| OffsetDateTime::from_unix_timestamp(at.as_second()))
        .transpose()
        .map_err(|e| Error::Internal(e.into()))?;
    Ok(AppJson(Availability {
        open: schedule.is_open(now),
        changes_at,
        typical_reply_seconds,
    }))
}
