//! `POST /widget/v1/conversation/read`: the visitor has seen their conversation's messages up
//! to now. The widget calls it while its chat panel is open and visible and shows new
//! messages; replies the visitor has not seen by then are what get emailed to an address they
//! left (`crate::notifications`), so a visitor still in the chat is not emailed what they read.

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;

use crate::conversations::intake;
use crate::error::Result;
use crate::rate_limit::Quota;
use crate::state::AppState;

use super::actions;
use super::visitor::Visitor;

/// Read marks one visitor may set: more than a chat panel showing messages as they arrive
/// needs.
const READ_MARKS: Quota = Quota {
    limit: 120,
    window: Duration::from_secs(60),
};

/// Mark the current conversation's messages as seen (nothing to mark when there is none).
#[utoipa::path(
    post, path = "/widget/v1/conversation/read", tag = "widget",
    security(("visitor" = [])),
    responses(
        (status = 204, description = "Marked (or no current conversation)"),
        (status = 401, description = "Missing, invalid or expired visitor token, or one whose identity is no longer trusted (its contact was verified since, or the workspace verifies identities)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a visitor token (`wrong_token_type`), or a deleted workspace",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many read marks from this visitor; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn read(State(state): State<AppState>, visitor: Visitor) -> Result<StatusCode> {
    actions::limit(&state, "read", &visitor, READ_MARKS).await?;
    let mut conn = state.db.acquire().await?;
    let schema = &visitor.schema;
    let current = intake::current_conversation(&mut conn, schema, visitor.contact_id).await?;
    if let Some(current) = current {
        sqlx::query(schema.sql(
            "UPDATE {schema}.conversations SET visitor_read_at = now()
              WHERE id = $1 AND contact_id = $2",
        ))
        .bind(current.id)
        .bind(visitor.contact_id)
        .execute(&mut *conn)
        .await?;
    }
    Ok(StatusCode::NO_CONTENT)
}
