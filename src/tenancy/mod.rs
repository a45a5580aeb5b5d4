//! Tenancy: one PostgreSQL schema per workspace, selected from the workspace token on every
//! request.
//!
//! - `schema`: the schema name type.
//! - `migrations`: tenant migrations, provisioning and `tenants migrate`.
//! - `membership`: who may act in which workspace, cached (moka) and invalidated across
//!   replicas (Redis pub/sub).
//! - `context`: `TenantTx`, the only way to reach a tenant's tables (for an `authz::Actor`).
//! - `spares`: schemas made ahead of time by the worker and renamed when a workspace is
//!   created, so creating one does not wait on ~45 `CREATE`s in a large catalog.

pub mod context;
pub mod membership;
pub mod migrations;
mod schema;
pub mod spares;

pub use schema::TenantSchema;
