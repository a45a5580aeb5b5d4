//! Who may do what inside a workspace: the spec's Owner/Agent permission table, and the one
//! layer that enforces it on every `/api` route.
//!
//! A capability registers its routes in groups, each behind
//! [`RequireExt::require`] with a [`Rule`]: the permission the routes need, and whether a
//! secret API key may stand in for a member. The layer authenticates the caller, checks the
//! rule, and hands the handler an [`Actor`]; a handler cannot obtain an `Actor` (nor,
//! through it, a tenant transaction) on a route that has no rule.

mod actor;
pub mod api_key;

pub use actor::{
    Actor, Principal, check_workspace, current_member, membership_deactivated, not_a_member,
    owner_only, workspace_member,
};
/// A member's role, which the permission table is about. Its home is the core crate (it is
/// persisted, on the wire, and named in the worker's emails); API modules import it from here.
pub use supportdesk_core::role::Role;

use axum::middleware;
use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

/// The rows of the spec's permission table (plus "view the workspace", which every member
/// may do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    ViewWorkspace,
    HandleConversations,
    ManageTickets,
    UseCannedResponses,
    ViewTeam,
    UpdateOwnProfile,
    InviteAgents,
    DeactivateAgents,
    ChangeRoles,
    /// Branding and canned-response settings.
    ManageSettings,
    /// Create, list, regenerate and revoke API keys.
    ManageApiKeys,
    /// Webhook endpoints, their secrets and delivery logs.
    ManageWebhooks,
    /// Read the audit log.
    ViewAuditLog,
    DeleteWorkspace,
}

impl Permission {
    /// The spec's table: Owners may do everything; Agents what a support agent does day to
    /// day, and nothing that manages the team or the workspace.
    pub const fn granted_to(self, role: Role) -> bool {
        match role {
            Role::Owner => true,
            Role::Agent => matches!(
                self,
                Self::ViewWorkspace
                    | Self::HandleConversations
                    | Self::ManageTickets
                    | Self::UseCannedResponses
                    | Self::ViewTeam
                    | Self::UpdateOwnProfile
            ),
        }
    }
}

/// What a group of routes requires of its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub permission: Permission,
    /// A secret API key is accepted. Agent management (`/api/agents*`), the event log and
    /// webhooks take keys; a key can never manage keys.
    pub api_key: bool,
}

impl Rule {
    /// A member's workspace token, whose current role grants `permission`.
    pub const fn members(permission: Permission) -> Self {
        Self {
            permission,
            api_key: false,
        }
    }

    /// As [`Rule::members`], or a secret API key of the workspace.
    pub const fn members_or_api_key(permission: Permission) -> Self {
        Self {
            permission,
            api_key: true,
        }
    }
}

/// Puts every route registered so far on a router behind a [`Rule`].
pub trait RequireExt {
    fn require(self, state: &AppState, rule: Rule) -> Self;
}

impl RequireExt for OpenApiRouter<AppState> {
    fn require(self, state: &AppState, rule: Rule) -> Self {
        self.route_layer(middleware::from_fn_with_state(
            (state.clone(), rule),
            actor::authorize,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_cannot_manage_the_team_or_the_workspace() {
        use Permission::*;
        for permission in [
            InviteAgents,
            DeactivateAgents,
            ChangeRoles,
            ManageSettings,
            ManageApiKeys,
            ManageWebhooks,
            ViewAuditLog,
            DeleteWorkspace,
        ] {
            assert!(permission.granted_to(Role::Owner), "{permission:?}");
            assert!(!permission.granted_to(Role::Agent), "{permission:?}");
        }
        for permission in [
            ViewWorkspace,
            HandleConversations,
            ManageTickets,
            UseCannedResponses,
            ViewTeam,
            UpdateOwnProfile,
        ] {
            assert!(permission.granted_to(Role::Owner), "{permission:?}");
            assert!(permission.granted_to(Role::Agent), "{permission:?}");
        }
    }
}
