//! `GET /api/events`: the workspace's log, a page at a time, for clients that were away and
//! for integrations that keep their own place in it.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use utoipa::{IntoParams, ToSchema};

use super::log::{self, Head, Stored};
use crate::error::responses::WorkspaceViewErrors;
use crate::error::{Error, Result};
use crate::extract::{AppJson, AppQuery};
use crate::state::AppState;
use crate::tenancy::context::Tenant;

pub const DEFAULT_LIMIT: i64 = 100;
pub const MAX_LIMIT: i64 = 1000;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// The `seq` of the last event the client has: the page starts after it. Omitted: the
    /// page is empty and `nextAfter` is the newest seq (a place to start from now).
    after: Option<i64>,
    /// 1 to 1000; 100 when omitted.
    limit: Option<i64>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventPage {
    pub events: Vec<Stored>,
    /// The next call's `after`: the last seq of this page, or `after` itself when it is empty.
    pub next_after: i64,
    /// The workspace's newest seq.
    pub head: i64,
}

/// The workspace's events after a seq, oldest first. Every member and API key of the
/// workspace sees every event of it; events are kept 30 days. A page that reaches the log's
/// tail holds every change committed before the request (events still waiting for their
/// numbers are numbered first), so a client finds its own writes.
#[utoipa::path(
    get, path = "/api/events", tag = "events",
    security(("bearer" = [])),
    params(EventsQuery),
    responses(
        (status = 200, description = "A page of events in seq order", body = EventPage),
        (status = 410, description = "`after` is older than the events kept (`events_expired`): reload, then start from `head`", body = crate::error::Problem, content_type = "application/problem+json"),
        WorkspaceViewErrors,
    )
)]
pub async fn list(
    State(state): State<AppState>,
    AppQuery(query): AppQuery<EventsQuery>,
    mut tenant: Tenant,
) -> Result<AppJson<EventPage>> {
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(Error::invalid_field(
            "limit",
            format!("must be between 1 and {MAX_LIMIT}"),
        ));
    }
    if query.after.is_some_and(|after| after < 0) {
        return Err(Error::invalid_field("after", "must not be negative"));
    }
    let workspace_id = tenant.actor.workspace_id;
    let (conn, schema) = tenant.parts();
    let Some(after) = query.after else {
        let mut head = log::head(&mut *conn, schema).await?;
        if head.waiting {
            state.events.settle(workspace_id, schema).await;
            head = log::head(&mut *conn, schema).await?;
        }
        return Ok(AppJson(EventPage {
            events: Vec::new(),
            next_after: head.seq,
            head: head.seq,
        }));
    };
    let (mut events, mut head) = page(conn, schema, after, limit).await?;
    // At the tail with events waiting (a writer's pass has not numbered them yet): numbered
    // now, and read again. A page that is full leaves them for the next one.
    if head.waiting && (events.len() as i64) < limit {
        state.events.settle(workspace_id, schema).await;
        (events, head) = page(conn, schema, after, limit).await?;
    }
    if after < head.pruned_through {
        return Err(Error::Gone {
            code: "events_expired",
            detail: format!(
                "events up to seq {} are no longer kept: reload, then read from the newest seq ({})",
                head.pruned_through, head.seq
            ),
        });
    }
    let next_after = events.last().map_or(after, |e| e.seq);
    Ok(AppJson(EventPage {
        events,
        next_after,
        head: head.seq.max(next_after),
    }))
}

/// A page and the head, in this order: each statement sees its own snapshot, and pruning
/// deletes a prefix and moves `pruned_through` in one commit. A page read before a prune is
/// whole; one read after it is answered with a 410, since the head is read later still.
/// (The other order could pass the check, then read a page with a hole.)
async fn page(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    after: i64,
    limit: i64,
) -> sqlx::Result<(Vec<Stored>, Head)> {
    let events = log::read_stored(&mut *conn, schema, after, None, limit).await?;
    let head = log::head(conn, schema).await?;
    Ok((events, head))
}
