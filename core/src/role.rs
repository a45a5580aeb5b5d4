//! `Role`: a member's role in a workspace, the two roles of the spec's permission table.
//!
//! Here, in the core crate, because it is persisted (`public.memberships.role`,
//! `public.invitations.role`) and on the wire (tokens, membership summaries), and both
//! processes read it: the API authorizes by it (`authz` re-exports it), the worker names it in
//! invitation emails.

use serde::{Deserialize, Serialize};

/// The Owner role is `admin` on the wire and in the database (the spec shows `admin` in
/// membership summaries); `agent` is the Agent role. Nothing else is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum Role {
    /// An Owner: may do everything in the workspace. Stored and sent as `admin`.
    #[serde(rename = "admin")]
    #[sqlx(rename = "admin")]
    Owner,
    Agent,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Owner => "admin",
            Self::Agent => "agent",
        }
    }

    pub fn is_owner(self) -> bool {
        self == Self::Owner
    }
}

impl std::str::FromStr for Role {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value {
            "admin" => Ok(Self::Owner),
            "agent" => Ok(Self::Agent),
            other => Err(format!("unknown role {other:?}: expected admin or agent")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_round_trip() {
        for role in [Role::Owner, Role::Agent] {
            assert_eq!(role.as_str().parse::<Role>().unwrap(), role);
            assert_eq!(
                serde_json::to_string(&role).unwrap(),
                format!("\"{}\"", role.as_str())
            );
        }
        assert!("owner".parse::<Role>().is_err());
        assert!("Admin".parse::<Role>().is_err());
    }

    #[test]
    fn the_owner_is_admin_on_the_wire_and_in_the_database() {
        assert_eq!(Role::Owner.as_str(), "admin");
        assert_eq!("admin".parse::<Role>().unwrap(), Role::Owner);
        assert_eq!(serde_json::to_string(&Role::Owner).unwrap(), "\"admin\"");
        assert_eq!(
            serde_json::from_str::<Role>("\"admin\"").unwrap(),
            Role::Owner
        );
        assert!(serde_json::from_str::<Role>("\"owner\"").is_err());
        assert!(Role::Owner.is_owner() && !Role::Agent.is_owner());
    }
}
