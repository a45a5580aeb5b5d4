//! The PostgreSQL advisory lock keys of jobs that must not run twice at once, in one place so
//! that no two jobs ever share a key: a shared key makes one job silently skip or wait for
//! the other. Each is `'suppor'` (as bytes) then `'t'` and a job number; a tenant's own lock
//! (`TenantSchema::lock_key`) is derived from its workspace id instead.

/// Control-plane migrations (`supportdesk migrate`, or `serve` with
/// `RUN_MIGRATIONS_ON_STARTUP`).
pub const CONTROL_PLANE_MIGRATIONS: i64 = 0x7375_7070_6f72_7401;
/// The start-up pass that brings every workspace to the latest tenant migrations.
pub const STARTUP_TENANT_MIGRATIONS: i64 = 0x7375_7070_6f72_7402;
/// A spare-schema refill (held for its transaction), so worker replicas do not all fill the
/// same gap.
pub const SPARE_REFILL: i64 = 0x7375_7070_6f72_7403;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_has_a_key_of_its_own() {
        let keys = [
            CONTROL_PLANE_MIGRATIONS,
            STARTUP_TENANT_MIGRATIONS,
            SPARE_REFILL,
        ];
        let distinct: std::collections::BTreeSet<i64> = keys.into_iter().collect();
        assert_eq!(distinct.len(), keys.len());
    }
}
