//! Tenancy: one PostgreSQL schema per workspace, selected from the workspace token on every
//! request.
//!
//! - `schema`: the schema name type.
//! - `migrations`: tenant migrations, provisioning and `tenants migrate`.
//! - `membership`: who may act in which workspace, cached (moka) and invalidated across
//!   replicas (Redis pub/sub).
//! - `context`: `TenantTx`, the only way to reach a tenant's tables (for an `authz::Actor`).

pub mod context;
pub mod membership;
pub mod migrations;
mod schema;

pub use schema::TenantSchema;
