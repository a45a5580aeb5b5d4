//! A connection's access, checked exactly as a REST request is checked (an agent's membership:
//! active, same role, live workspace, token not revoked; a visitor's workspace live and token
//! still trusted), and the one way a connection ends when that access is gone.
//!
//! Access is checked at the handshake (`connection`), on every call (`methods`) and by the
//! loop that hears membership changes (`lifecycle`). Wherever it is found gone, the finding
//! is an [`AccessLost`], and [`AccessLost::close`] does what follows: the connections it
//! concerns are told through the registry to close with `allowReconnect: false` and the
//! refusal's text (a connection still in its handshake answers that text as its handshake
//! error), the loss is counted (`hub_access_lost_total{noticed}`) and logged. Each
//! connection's own task then writes its Close and gives its place in the registry back, as
//! on any close it is told of.

use crate::authz::{Actor, current_member};
use crate::error::Error;
use crate::hub::registry::{
    AgentIdentity, CloseReason, Participant, Registry, Scope, VisitorIdentity,
};
use crate::state::AppState;
use crate::widget::visitor::Visitor;

/// Whether a connection's holder may still hold it.
#[derive(Debug)]
pub enum Access<T> {
    /// Yes: the caller as a REST request would see them now.
    Allowed(T),
    /// No longer: the connection closes, for good.
    Lost(AccessLost),
    /// The check itself failed (the database did not answer); nothing is decided.
    Unknown(Error),
}

impl<T> From<Result<T, Error>> for Access<T> {
    /// A refusal (401, 403) is access lost; any other error leaves it unknown.
    fn from(checked: Result<T, Error>) -> Self {
        match checked {
            Ok(allowed) => Self::Allowed(allowed),
            Err(error @ (Error::Forbidden { .. } | Error::Unauthorized(_))) => {
                Self::Lost(AccessLost::new(error.into_detail()))
            }
            Err(error) => Self::Unknown(error),
        }
    }
}

/// `who`'s access now.
pub async fn of(state: &AppState, who: &Participant) -> Access<()> {
    match who {
        Participant::Agent(who) => agent(state, who).await.map(|_| ()),
        Participant::Visitor(who) => visitor(state, who).await.map(|_| ()),
    }
}

/// An agent's access now: their membership as a REST request would see it, in the role
/// their connection opened with.
pub async fn agent(state: &AppState, agent: &AgentIdentity) -> Access<Actor> {
    let member = current_member(
        state,
        agent.user_id,
        agent.workspace_id,
        agent.token_version,
    )
    .await;
    match member {
        Ok(actor) if actor.role() != agent.role => Access::Lost(AccessLost::role_changed()),
        checked => checked.into(),
    }
}

/// A widget visitor's access now: their workspace live, their token still trusted.
pub async fn visitor(state: &AppState, visitor: &VisitorIdentity) -> Access<Visitor> {
    Visitor::of_connection(state, visitor).await.into()
}

impl<T> Access<T> {
    fn map<U>(self, f: impl FnOnce(T) -> U) -> Access<U> {
        match self {
            Self::Allowed(allowed) => Access::Allowed(f(allowed)),
            Self::Lost(lost) => Access::Lost(lost),
            Self::Unknown(error) => Access::Unknown(error),
        }
    }
}

/// Where a lost access was noticed: the label of `hub_access_lost_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Noticed {
    /// The check a connection's handshake ends with.
    Handshake,
    /// A hub method's check of its caller.
    Call,
    /// The lifecycle loop, after a membership change or on its round.
    Recheck,
}

impl Noticed {
    fn label(self) -> &'static str {
        match self {
            Self::Handshake => "handshake",
            Self::Call => "call",
            Self::Recheck => "recheck",
        }
    }
}

/// A connection's holder may no longer hold it, and why, in words safe to show (the REST
/// refusal's detail).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessLost {
    error: String,
}

impl AccessLost {
    fn new(error: String) -> Self {
        Self { error }
    }

    /// The member's role is not the one their connection opened with: what they may do
    /// changed, so they reconnect to learn it.
    fn role_changed() -> Self {
        Self::new("your role in this workspace changed; reconnect to continue".into())
    }

    /// What the Close message (or the handshake's error) says.
    pub fn error(&self) -> &str {
        &self.error
    }

    /// The Close message: this text, and no reconnecting.
    pub fn reason(&self) -> CloseReason {
        CloseReason::ended(&self.error)
    }

    /// Ends the connections of `scope` on this replica: each is told to close with
    /// [`AccessLost::reason`], and the loss is counted and logged. Returns the reason, for
    /// the connection whose own task noticed it.
    pub fn close(&self, registry: &Registry, scope: Scope, noticed: Noticed) -> CloseReason {
        let reason = self.reason();
        let told = registry.close(scope, &reason);
        if told > 0 {
            metrics::counter!("hub_access_lost_total", "noticed" => noticed.label())
                .increment(u64::try_from(told).unwrap_or(u64::MAX));
            tracing::info!(
                workspace_id = %scope.workspace_id(),
                noticed = noticed.label(),
                connections = told,
                error = %self.error,
                "hub connections closed: access lost"
            );
        }
        reason
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_lose_access_and_other_failures_decide_nothing() {
        let lost: Access<()> = Err(Error::Unauthorized("the token was revoked")).into();
        assert!(
            matches!(&lost, Access::Lost(lost) if lost.error() == "the token was revoked"),
            "{lost:?}"
        );
        let lost: Access<()> = Err(Error::forbidden("not_a_member", "not a member")).into();
        assert!(matches!(lost, Access::Lost(_)));
        let unknown: Access<()> = Err(Error::NotFound("conversation")).into();
        assert!(matches!(unknown, Access::Unknown(_)));
        assert!(matches!(Access::from(Ok(())), Access::Allowed(())));
    }

    #[test]
    fn the_close_says_why_and_allows_no_reconnect() {
        let reason = AccessLost::role_changed().reason();
        assert!(!reason.allows_reconnect());
        assert_eq!(
            reason.error(),
            Some("your role in this workspace changed; reconnect to continue")
        );
    }
}
