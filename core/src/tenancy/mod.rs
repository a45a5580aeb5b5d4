//! Tenant schemas as both processes see them: one PostgreSQL schema per workspace.
//!
//! - `schema`: the schema name type.
//! - `migrations`: tenant migrations, provisioning and `tenants migrate`.
//! - `baseline`: the script new schemas are made from, the migrations' result in one go.
//! - `spares`: schemas made ahead of time by the worker and renamed when a workspace is
//!   created, so creating one does not wait on ~45 `CREATE`s in a large catalog.
//! - `deletion`: dropping the data of a deleted workspace (the worker's outbox work).
//! - `citus`: where workspaces live on a Citus cluster, moving and rebalancing them.
//! - `pages`: every workspace, a page at a time, for passes over all of them.
//!
//! Here rather than in the API because the worker makes spares and drops workspaces; who may
//! act in a workspace (memberships, the tenant transaction) stays with the API's `tenancy`.

mod baseline;
pub mod citus;
pub mod deletion;
pub mod migrations;
pub mod pages;
mod schema;
pub mod spares;

pub use schema::TenantSchema;
