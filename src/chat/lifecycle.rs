//! Connections that lose access close, on every replica, as soon as the change is known: a
//! deactivation, a role change, a removal, a password reset or a deleted workspace.
//!
//! Every membership change reaches every replica's membership cache (through Redis, or on
//! the replica that made it when Redis is down); the cache tells this loop, which checks the
//! affected connections here exactly as a REST request would and closes those that fail with
//! `allowReconnect: false`, so the official client stops instead of reconnecting. A deleted
//! workspace's widget visitors are closed the same way, and so are visitors whose token no
//! longer vouches enough for them (their contact was verified, or the workspace turned
//! identity verification on: `crate::widget::visitor`).
//!
//! A replica that was cut off from Redis missed the changes published meanwhile: when its
//! subscription comes back the cache tells this loop that everything may have changed, and
//! every connection here is checked. Besides, every connection is checked against the
//! database (not the cache) every [`RECHECK_INTERVAL`], so a change this replica never heard
//! of closes its connections within that interval all the same.
//!
//! The checks are `access`'s, and so is the closing ([`access::AccessLost::close`]).

use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use crate::credentials::jwt::Trust;
use crate::hub::registry::{AgentIdentity, Scope};
use crate::state::AppState;

use super::access::{self, Access, Noticed};

/// How often every connection of this replica is checked, whatever was heard.
pub const RECHECK_INTERVAL: Duration = Duration::from_secs(30);

pub async fn run(state: AppState, stop: CancellationToken) {
    let mut changes = state.memberships.subscribe_changes();
    let mut recheck_all = tokio::time::interval(RECHECK_INTERVAL);
    recheck_all.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    recheck_all.reset();
    loop {
        let change = tokio::select! {
            () = stop.cancelled() => return,
            _ = recheck_all.tick() => {
                recheck_from_the_database(&state).await;
                continue;
            }
            change = changes.recv() => change,
        };
        match change {
            Ok(change) => {
                recheck(&state, |agent| {
                    change.concerns(agent.user_id, agent.workspace_id)
                })
                .await;
                match (change.user_id, change.workspace_id) {
                    (None, Some(workspace_id)) => {
                        close_visitors_if_gone(&state, workspace_id).await;
                        close_untrusted_visitors(&state, workspace_id, change.contact_id).await;
                    }
                    // Anything may have changed (a subscription that was lost came back).
                    (None, None) => recheck_visitors(&state).await,
                    _ => {}
                }
            }
            // Missed some: check everyone connected here.
            Err(RecvError::Lagged(_)) => {
                recheck(&state, |_| true).await;
                recheck_visitors(&state).await;
            }
            Err(RecvError::Closed) => return,
        }
    }
}

/// Checks the agents connected here that `affected` selects; closes those who lost access.
/// A check that fails (the database) closes nothing: the next call on the connection, or
/// the next round, checks again.
async fn recheck(state: &AppState, affected: impl Fn(&AgentIdentity) -> bool) {
    for agent in state
        .hub
        .registry()
        .agents()
        .into_iter()
        .filter(|a| affected(a))
    {
        if let Access::Lost(lost) = access::agent(state, &agent).await {
            let member = Scope::Member {
                workspace_id: agent.workspace_id,
                user_id: agent.user_id,
            };
            lost.close(state.hub.registry(), member, Noticed::Recheck);
        }
    }
}

/// Checks every connection here against the database: cached memberships of connected
/// agents are forgotten first, as they may be what a missed change left behind.
async fn recheck_from_the_database(state: &AppState) {
    for agent in state.hub.registry().agents() {
        state
            .memberships
            .forget_here(agent.user_id, agent.workspace_id)
            .await;
    }
    recheck(state, |_| true).await;
    recheck_visitors(state).await;
}

/// Checks every widget visitor connected here.
async fn recheck_visitors(state: &AppState) {
    for visitor in state.hub.registry().visitors() {
        if let Access::Lost(lost) = access::visitor(state, &visitor).await {
            let scope = Scope::Visitor(visitor);
            lost.close(state.hub.registry(), scope, Noticed::Recheck);
        }
    }
}

/// A deleted workspace's widget visitors go too (a change to a whole workspace is how its
/// deletion is told).
async fn close_visitors_if_gone(state: &AppState, workspace_id: uuid::Uuid) {
    let live = crate::widget::visitor::workspace_schema(state, workspace_id).await;
    if let Access::Lost(lost) = Access::from(live) {
        let workspace = Scope::Workspace(workspace_id);
        lost.close(state.hub.registry(), workspace, Noticed::Recheck);
    }
}

/// Visitors of the workspace (of one contact, when given) whose token claimed an identity
/// without proving it: checked as each of their calls is, and closed for good when refused.
async fn close_untrusted_visitors(
    state: &AppState,
    workspace_id: uuid::Uuid,
    contact_id: Option<uuid::Uuid>,
) {
    for visitor in state.hub.registry().visitors().into_iter().filter(|v| {
        v.workspace_id == workspace_id
            && v.trust.trust == Trust::Claimed
            && contact_id.is_none_or(|c| c == v.contact_id)
    }) {
        if let Access::Lost(lost) = access::visitor(state, &visitor).await {
            let scope = Scope::Visitor(visitor);
            lost.close(state.hub.registry(), scope, Noticed::Recheck);
        }
    }
}
