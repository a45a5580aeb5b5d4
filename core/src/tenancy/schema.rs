//! `TenantSchema`: the PostgreSQL schema of one workspace, `ws_<32 hex of its id>`.
//!
//! Derived from the workspace id, never from user input, and only ever written into SQL in
//! its quoted form: the type cannot hold anything else. Tenant statements are written with a
//! `{schema}` placeholder (`SELECT ... FROM {schema}.agent_profiles`), and [`TenantSchema::sql`]
//! is the one place that fills it in. Pooled sessions have an empty `search_path`, so a tenant
//! table named without the placeholder fails (42P01) instead of reading some other schema.

use std::fmt;
use std::sync::Arc;

use sqlx::AssertSqlSafe;
use uuid::Uuid;

/// Where a tenant statement names its schema.
pub const PLACEHOLDER: &str = "{schema}";

/// Cheap to clone: every request's `Actor` carries one.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct TenantSchema(Arc<str>);

impl TenantSchema {
    pub fn for_workspace(id: Uuid) -> Self {
        Self(format!("ws_{}", id.simple()).into())
    }

    /// A stored schema name, checked to be of our form.
    pub fn parse(name: &str) -> Result<Self, String> {
        if is_generated_name(name, "ws_") {
            Ok(Self(name.into()))
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

    /// `template` with every `{schema}` replaced by this schema's quoted name: a statement
    /// over this tenant's tables and no other's. Each tenant's statement is a text of its
    /// own, so its plan is cached per connection and per tenant, and stays valid however
    /// many other tenants the connection serves in between.
    pub fn sql(&self, template: &str) -> AssertSqlSafe<String> {
        debug_assert!(
            template.contains(PLACEHOLDER),
            "a tenant statement names its tables as {{schema}}.table: {template}"
        );
        let mut sql = String::with_capacity(template.len() + 32);
        let mut rest = template;
        while let Some(at) = rest.find(PLACEHOLDER) {
            sql.push_str(&rest[..at]);
            sql.push('"');
            sql.push_str(&self.0);
            sql.push('"');
            rest = &rest[at + PLACEHOLDER.len()..];
        }
        sql.push_str(rest);
        AssertSqlSafe(sql)
    }

    /// A stable advisory-lock key for this tenant's migrations.
    pub fn lock_key(&self) -> i64 {
        // The first 64 bits of the id; parse() guaranteed they are hex digits.
        u64::from_str_radix(&self.0[3..19], 16).map_or(0, |v| v as i64)
    }
}

/// Whether `name` is `prefix` then 32 lowercase hex digits: the form of every schema name
/// we generate (workspaces from their id, spares at random), never anything a user typed.
pub(crate) fn is_generated_name(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix).is_some_and(|hex| {
        hex.len() == 32
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
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
    fn statements_name_the_quoted_schema_wherever_the_placeholder_stands() {
        let id = Uuid::parse_str("0192f0c1-2b3c-7d4e-8f90-a1b2c3d4e5f6").unwrap();
        let schema = TenantSchema::for_workspace(id);
        let AssertSqlSafe(sql) =
            schema.sql("SELECT 1 FROM {schema}.conversations c JOIN {schema}.contacts ct ON true");
        assert_eq!(
            sql,
            "SELECT 1 FROM \"ws_0192f0c12b3c7d4e8f90a1b2c3d4e5f6\".conversations c \
             JOIN \"ws_0192f0c12b3c7d4e8f90a1b2c3d4e5f6\".contacts ct ON true"
        );
    }

    #[test]
    fn lock_keys_differ_between_tenants() {
        let a = TenantSchema::for_workspace(Uuid::new_v4()).lock_key();
        let b = TenantSchema::for_workspace(Uuid::new_v4()).lock_key();
        assert_ne!(a, b);
    }
}
