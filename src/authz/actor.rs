//! The authenticated caller of an `/api` route, and the middleware that establishes it.

use std::sync::Arc;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use supportdesk_core::tenancy::TenantSchema;
use uuid::Uuid;

use crate::auth::extract::{bearer, decode, revoked_unless_current};
use crate::authz::{Permission, Role, Rule, api_key};
use crate::credentials::jwt::{Claims, TokenKind};
use crate::error::Error;
use crate::memberships::Membership;
use crate::state::AppState;

/// Who is acting, in which workspace. Built only by the authorization layer.
#[derive(Debug, Clone)]
pub struct Actor {
    pub workspace_id: Uuid,
    pub schema: TenantSchema,
    pub principal: Principal,
}

#[derive(Debug, Clone)]
pub enum Principal {
    /// A member with a workspace token; the role is the membership's current one, not the
    /// token's claim, so a role change applies on the next request.
    Member { user_id: Uuid, role: Role },
    /// A secret API key of the workspace: where keys are accepted it passes the Owner checks
    /// of agent management, but never touches the Owner role (`Actor::may_touch_owners`).
    ApiKey { key_id: Uuid },
}

impl Actor {
    pub fn from_membership(membership: &Membership) -> Self {
        Self {
            workspace_id: membership.workspace_id,
            schema: membership.schema.clone(),
            principal: Principal::Member {
                user_id: membership.user_id,
                role: membership.role,
            },
        }
    }

    /// The member's account, or `None` for an API key.
    pub fn user_id(&self) -> Option<Uuid> {
        match self.principal {
            Principal::Member { user_id, .. } => Some(user_id),
            Principal::ApiKey { .. } => None,
        }
    }

    /// The acting member's account on a members-only route (the layer let no key through).
    pub fn member_id(&self) -> Result<Uuid, Error> {
        self.user_id().ok_or_else(|| {
            Error::forbidden(
                "api_key_not_allowed",
                "this endpoint needs a member's workspace token",
            )
        })
    }

    /// The role the caller acts with: an API key acts as an Owner.
    pub fn role(&self) -> Role {
        match self.principal {
            Principal::Member { role, .. } => role,
            Principal::ApiKey { .. } => Role::Owner,
        }
    }

    pub fn may(&self, permission: Permission) -> bool {
        permission.granted_to(self.role())
    }

    /// Whether the caller may grant, change, deactivate or reactivate the Owner role. Keys act
    /// for integrations, not as Owners: a leaked key must not be able to make itself an Owner
    /// (by inviting or promoting one) nor lock the real Owners out. Checked before any team
    /// rule (such as the last-Owner rule), so a key learns nothing more than "not allowed".
    pub fn may_touch_owners(&self) -> Result<(), Error> {
        match self.principal {
            Principal::Member { role, .. } if role.is_owner() => Ok(()),
            Principal::Member { .. } => Err(owner_only()),
            Principal::ApiKey { .. } => Err(Error::forbidden(
                "api_key_cannot_manage_owners",
                "API keys may invite and manage agents only; anything that touches an Owner needs an Owner's workspace token",
            )),
        }
    }
}

/// Handlers take the `Actor` the layer established.
impl FromRequestParts<AppState> for Actor {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<Self, Error> {
        parts.extensions.get::<Self>().cloned().ok_or_else(|| {
            Error::Internal(anyhow::anyhow!(
                "{} has no authorization rule (see authz::RequireExt)",
                parts.uri.path()
            ))
        })
    }
}

/// The layer behind [`crate::authz::RequireExt::require`].
pub(super) async fn authorize(
    State((state, rule)): State<(AppState, Rule)>,
    request: Request,
    next: Next,
) -> Response {
    // The body is not `Sync`: only the parts are borrowed across the lookups.
    let (mut parts, body) = request.into_parts();
    match authenticate(&state, &parts.headers, rule).await {
        Ok(actor) => {
            parts.extensions.insert(actor);
            next.run(Request::from_parts(parts, body)).await
        }
        Err(error) => error.into_response(),
    }
}

async fn authenticate(state: &AppState, headers: &HeaderMap, rule: Rule) -> Result<Actor, Error> {
    let credential = bearer(headers)?;
    let actor = if api_key::looks_like_key(credential) {
        let actor = api_key::authenticate(state, credential).await?;
        if !rule.api_key {
            return Err(Error::forbidden(
                "api_key_not_allowed",
                "API keys are accepted on agent management (/api/agents) only; use a workspace token",
            ));
        }
        actor
    } else {
        member(state, credential).await?
    };
    if !actor.may(rule.permission) {
        return Err(owner_only());
    }
    Ok(actor)
}

/// A workspace token whose holder is, right now, an active member of a live workspace.
async fn member(state: &AppState, token: &str) -> Result<Actor, Error> {
    workspace_member(state, token).await.map(|(actor, _)| actor)
}

/// [`member`], with the token's claims (the chat hub keeps its expiry and version).
pub async fn workspace_member(state: &AppState, token: &str) -> Result<(Actor, Claims), Error> {
    let claims = decode(state, token)?;
    let (TokenKind::Workspace, Some(workspace_id)) = (claims.kind, claims.tid) else {
        return Err(Error::forbidden(
            "wrong_token_type",
            "workspace data needs a workspace token: select a workspace first",
        ));
    };
    let actor = current_member(state, claims.sub, workspace_id, claims.ver).await?;
    Ok((actor, claims))
}

/// The checks every request with a workspace token passes, for a token already verified:
/// the account is a member now, active, of a live workspace, and the token (of
/// `token_version`) was not revoked since. The chat hub repeats them on every call.
pub async fn current_member(
    state: &AppState,
    user_id: Uuid,
    workspace_id: Uuid,
    token_version: i32,
) -> Result<Actor, Error> {
    let membership: Arc<Membership> = state
        .memberships
        .get(&state.db, user_id, workspace_id)
        .await?
        .ok_or_else(not_a_member)?;
    revoked_unless_current(token_version, membership.token_version)?;
    check_workspace(membership.workspace_active, membership.schema_current)?;
    if !membership.active {
        return Err(membership_deactivated());
    }
    Ok(Actor::from_membership(&membership))
}

/// A member whose role does not grant what they asked.
pub fn owner_only() -> Error {
    Error::forbidden("owner_only", "only a workspace owner may do this")
}

/// A token of an account that is no longer a member of its workspace.
pub fn not_a_member() -> Error {
    Error::forbidden(
        "not_a_member",
        "you are no longer a member of this workspace",
    )
}

/// A token of a deactivated member.
pub fn membership_deactivated() -> Error {
    Error::forbidden(
        "membership_deactivated",
        "your access to this workspace has been deactivated",
    )
}

/// A deleted workspace accepts no credential; one whose schema is behind this binary's
/// tenant migrations (mid-rollout) is refused until `tenants migrate` catches it up.
pub fn check_workspace(active: bool, schema_current: bool) -> Result<(), Error> {
    if !active {
        return Err(Error::forbidden(
            "workspace_deleted",
            "this workspace has been deleted",
        ));
    }
    if !schema_current {
        return Err(Error::Unavailable(
            "this workspace is being upgraded; try again shortly",
        ));
    }
    Ok(())
}
