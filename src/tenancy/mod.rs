//! Tenancy in the API: who may act in which workspace, and the one way a request reaches a
//! tenant's tables. The schema type, tenant migrations and spare schemas, which the worker
//! uses too, are `supportdesk_core::tenancy`.
//!
//! - `membership`: who may act in which workspace, cached (moka) and invalidated across
//!   replicas (Redis pub/sub).
//! - `context`: `TenantTx`, the only way to reach a tenant's tables (for an `authz::Actor`).

pub mod context;
pub mod membership;
