//! Tenancy in the API: the one way a request reaches a tenant's tables (`context`: `Tenant`
//! for a read, `TenantTx` for a write, each for an `authz::Actor`). Who may act in which
//! workspace is `memberships`; the schema type, tenant migrations and spare schemas, which
//! the worker uses too, are `supportdesk_core::tenancy`.

pub mod context;
