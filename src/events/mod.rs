//! One event log per workspace: every change is recorded once, in the transaction that makes
//! it, with a per-workspace `seq` (gap-free, and after every event the change's transaction
//! saw), and handed to subscribers after the commit.
//!
//! Why a log rather than messages sent after each write: a committed change always has its
//! event and a rolled-back one never does; a client that was away asks for what it missed
//! (`GET /api/events?after=SEQ`) instead of reloading; the hub can put events of several
//! replicas back in order (gap-free numbers tell it what is missing); and integrations to
//! come (webhooks, the email channel, reports) read the same facts at their own pace.
//!
//! - `catalogue`: the [`DomainEvent`](catalogue::DomainEvent)s and how they are shown.
//! - `log`: appending and reading, in the workspace's schema.
//! - `publisher`: numbering what waited, then subscribers after commit (the chat hub).
//! - `routes`: `GET /api/events`.
//!
//! Writers: `log::append` as the last statement of the transaction, `commit`, then
//! `state.events.committed(...)` (which has the events numbered first, in a task of its own,
//! when the log's head was busy: `publisher`); [`record`] does the three for a
//! [`TenantTx`].

pub mod catalogue;
pub mod log;
pub mod publisher;
mod routes;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::error::Result;
use crate::state::AppState;
use crate::tenancy::context::TenantTx;
use catalogue::DomainEvent;

/// Appends `events` for the acting member or key, commits, and hands them to subscribers
/// (numbered first, after this returns, when they wait for their numbers).
pub async fn record(
    state: &AppState,
    mut tenant: TenantTx,
    events: Vec<DomainEvent>,
) -> Result<()> {
    let by = log::By::from(&tenant.actor);
    let workspace_id = tenant.actor.workspace_id;
    let (conn, schema) = tenant.parts();
    let appended = log::append(conn, schema, by, events).await?;
    tenant.commit().await?;
    state.events.committed(workspace_id, appended);
    Ok(())
}

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(routes::list))
        .require(state, Rule::members_or_api_key(Permission::ViewWorkspace))
}
