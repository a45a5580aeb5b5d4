//! Connections of members who lose access close, on every replica, as soon as the change is
//! known: a deactivation, a role change, a removal, a password reset or a deleted workspace.
//!
//! Every membership change reaches every replica's membership cache (through Redis, or on
//! the replica that made it when Redis is down); the cache tells this loop, which checks the
//! affected connections here exactly as a REST request would and closes those that fail with
//! `allowReconnect: false`, so the official client stops instead of reconnecting. A deleted
//! workspace's widget visitors are closed the same way, and so are visitors whose token no
//! longer vouches enough for them (their contact was verified, or the workspace turned
//! identity verification on: `crate::widget::visitor`).

use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use crate::authz::current_member;
use crate::credentials::jwt::Trust;
use crate::error::Error;
use crate::hub::registry::{AgentIdentity, CloseReason};
use crate::state::AppState;
use crate::widget::visitor::Visitor;

pub async fn run(state: AppState, stop: CancellationToken) {
    let mut changes = state.memberships.subscribe_changes();
    loop {
        let change = tokio::select! {
            () = stop.cancelled() => return,
            change = changes.recv() => change,
        };
        match change {
            Ok(change) => {
                recheck(&state, |agent| {
                    change.concerns(agent.user_id, agent.workspace_id)
                })
                .await;
                if let (None, Some(workspace_id)) = (change.user_id, change.workspace_id) {
                    close_visitors_if_gone(&state, workspace_id).await;
                    close_untrusted_visitors(&state, workspace_id, change.contact_id).await;
                }
            }
            // Missed some: check everyone connected here.
            Err(RecvError::Lagged(_)) => recheck(&state, |_| true).await,
            Err(RecvError::Closed) => return,
        }
    }
}

async fn recheck(state: &AppState, affected: impl Fn(&AgentIdentity) -> bool) {
    for agent in state
        .hub
        .registry
        .agents()
        .into_iter()
        .filter(|a| affected(a))
    {
        if let Some(reason) = lost_access(state, &agent).await {
            state.hub.registry.close_where(
                |other| other.user_id == agent.user_id && other.workspace_id == agent.workspace_id,
                &reason,
            );
        }
    }
}

/// A deleted workspace's widget visitors go too (a change to a whole workspace is how its
/// deletion is told).
async fn close_visitors_if_gone(state: &AppState, workspace_id: uuid::Uuid) {
    if let Err(error @ (Error::Forbidden { .. } | Error::Unauthorized(_))) =
        crate::widget::visitor::workspace_schema(state, workspace_id).await
    {
        let reason = CloseReason::ended(&error.into_detail());
        state.hub.registry.close_workspace(workspace_id, &reason);
    }
}

/// Visitors of the workspace (of one contact, when given) whose token claimed an identity
/// without proving it: checked as each of their calls is, and closed for good when refused.
async fn close_untrusted_visitors(
    state: &AppState,
    workspace_id: uuid::Uuid,
    contact_id: Option<uuid::Uuid>,
) {
    for visitor in state.hub.registry.visitors().into_iter().filter(|v| {
        v.workspace_id == workspace_id
            && v.trust.trust == Trust::Claimed
            && contact_id.is_none_or(|c| c == v.contact_id)
    }) {
        if let Err(error @ (Error::Forbidden { .. } | Error::Unauthorized(_))) =
            Visitor::of_connection(state, &visitor).await
        {
            let reason = CloseReason::ended(&error.into_detail());
            state.hub.registry.close_visitor(&visitor, &reason);
        }
    }
}

/// Why `agent` may no longer hold a connection, if so. A database failure closes nothing:
/// the next call on the connection checks again.
async fn lost_access(state: &AppState, agent: &AgentIdentity) -> Option<CloseReason> {
    match current_member(
        state,
        agent.user_id,
        agent.workspace_id,
        agent.token_version,
    )
    .await
    {
        Ok(actor) if actor.role() != agent.role => Some(CloseReason::ended(
            "your role in this workspace changed; reconnect to continue",
        )),
        Err(error @ (Error::Forbidden { .. } | Error::Unauthorized(_))) => {
            Some(CloseReason::ended(&error.into_detail()))
        }
        Ok(_) | Err(_) => None,
    }
}
