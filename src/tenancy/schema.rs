//! `TenantSchema`: the PostgreSQL schema of one workspace, `ws_<32 hex of its id>`.
//!
//! Derived from the workspace id, never from user input, and only ever written into SQL in
//! its quoted form: the type cannot hold anything else.

use std::fmt;

use uuid::Uuid;

#[derive(Clone, PartialEq, Eq, Hash)]
pub struct TenantSchema(String);

impl TenantSchema {
    pub fn for_workspace(id: Uuid) -> Self {
        Self(format!("ws_{}", id.simple()))
    }

    /// A stored schema name, checked to be of our form.
    pub fn parse(name: &str) -> Result<Self, String> {
        let valid = name.len() == 35
            && name.starts_with("ws_")
            && name[3..]
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if valid {
            Ok(Self(name.to_owned()))
        } else {
            Err(format!("{name:?} is not a workspace schema name"))
        }
    }

    pub fn name(&self) -> &str {
        &self.0
    }

    /// The identifier quoted for SQL.
    pub fn quoted(&self) -> String {
        format!("\"{}\"", self.0)
    }

    /// A stable advisory-lock key for this tenant's migrations.
    pub fn lock_key(&self) -> i64 {
        // The first 64 bits of the id; parse() guaranteed they are hex digits.
        u64::from_str_radix(&self.0[3..19], 16).map_or(0, |v| v as i64)
    }
}

impl fmt::Display for TenantSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for TenantSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TenantSchema({})", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_from_the_workspace_id() {
        let id = Uuid::parse_str("0192f0c1-2b3c-7d4e-8f90-a1b2c3d4e5f6").unwrap();
        let schema = TenantSchema::for_workspace(id);
        assert_eq!(schema.name(), "ws_0192f0c12b3c7d4e8f90a1b2c3d4e5f6");
        assert_eq!(schema.quoted(), "\"ws_0192f0c12b3c7d4e8f90a1b2c3d4e5f6\"");
        assert_eq!(TenantSchema::parse(schema.name()).unwrap(), schema);
    }

    #[test]
    fn refuses_anything_else() {
        for bad in [
            "public",
            "ws_",
            "ws_0192F0C12B3C7D4E8F90A1B2C3D4E5F6",
            "ws_0192f0c12b3c7d4e8f90a1b2c3d4e5f",
            "ws_0192f0c12b3c7d4e8f90a1b2c3d4e5f\"",
            "ws_0192f0c12b3c7d4e8f90a1b2c3d4e5f6; DROP SCHEMA public",
        ] {
            assert!(TenantSchema::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn lock_keys_differ_between_tenants() {
        let a = TenantSchema::for_workspace(Uuid::new_v4()).lock_key();
        let b = TenantSchema::for_workspace(Uuid::new_v4()).lock_key();
        assert_ne!(a, b);
    }
}
