//! The two roles of the spec's permission table, with their wire names.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `admin` is the Owner role (the spec shows `admin` in membership summaries); `agent` is the
/// Agent role. Nothing else is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum Role {
    Admin,
    Agent,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Admin => "admin",
            Self::Agent => "agent",
        }
    }

    pub fn is_owner(self) -> bool {
        self == Self::Admin
    }
}

impl std::str::FromStr for Role {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value {
            "admin" => Ok(Self::Admin),
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
        for role in [Role::Admin, Role::Agent] {
            assert_eq!(role.as_str().parse::<Role>().unwrap(), role);
            assert_eq!(
                serde_json::to_string(&role).unwrap(),
                format!("\"{}\"", role.as_str())
            );
        }
        assert!("owner".parse::<Role>().is_err());
        assert!("Admin".parse::<Role>().is_err());
    }
}
