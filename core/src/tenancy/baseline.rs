//! The tenant baseline: the schema `tenant_migrations/` makes, as one script of `CREATE`
//! statements (`tenant_migrations/baseline.sql`, written by `.ci/tenant-baseline`), which new
//! workspace and spare schemas are made from.
//!
//! Why: applying the migrations one by one costs more with every tenant. Their `ALTER TABLE`
//! statements (a column with a default, a `CHECK`, a generated column, on tables still empty)
//! have PostgreSQL look for other relations using the table's row type, a scan of catalog
//! pages that hold every tenant's objects. With 5,042 workspaces one schema's migrations took
//! 2.5 s, 2.1 s of it in twelve such statements (`docs/performance.md`). Created whole, each
//! table is one `CREATE TABLE`.
//!
//! Why a schema made so is the same schema:
//! - `tests/api/tenant_baseline.rs` makes one schema from the baseline and one by applying
//!   the migrations in order, and holds their `pg_dump`s (definitions and rows) equal.
//! - The schema's refinery history records the migrations up to the baseline's version as
//!   applied, with their own checksums (refinery's "fake" run), so `tenants migrate` and
//!   refinery's divergence check see what they see on a schema made step by step.
//! - Migrations after the baseline's version are applied step by step as before (a
//!   rehearsal's extra migration is). A unit test below still asks for a new baseline with
//!   every new migration, as a stale one brings the cost back.
//! - Schemas made before the baseline existed are migrated as before (`migrate_one`).

/// The script's first line, which names the version it stands for.
const HEADER: &str = "-- supportdesk tenant baseline: version ";

const SCRIPT: &str = include_str!("../../../tenant_migrations/baseline.sql");

/// A script that makes a tenant schema at `version` in one go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Baseline {
    pub(crate) version: i32,
    pub(crate) sql: &'static str,
}

impl Baseline {
    /// The baseline compiled in, when its header names a version.
    pub(crate) fn embedded() -> Option<Self> {
        parse(SCRIPT)
    }
}

fn parse(script: &'static str) -> Option<Baseline> {
    let version = script
        .lines()
        .next()?
        .strip_prefix(HEADER)?
        .trim()
        .parse()
        .ok()?;
    Some(Baseline {
        version,
        sql: script,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tenancy::migrations::latest_version;

    /// Migrations after the baseline would still be applied, step by step, at the cost the
    /// baseline exists to save: a new tenant migration comes with a new baseline.
    #[test]
    fn the_embedded_baseline_stands_for_every_tenant_migration() {
        let baseline = Baseline::embedded().expect("tenant_migrations/baseline.sql has a header");
        assert_eq!(
            baseline.version,
            latest_version(),
            "tenant_migrations/baseline.sql is behind the migrations: run bash .ci/tenant-baseline"
        );
    }

    #[test]
    fn a_script_without_the_header_is_no_baseline() {
        assert_eq!(parse("CREATE TABLE t (id int);"), None);
        assert_eq!(parse("-- supportdesk tenant baseline: version x\n"), None);
        assert_eq!(
            parse("-- supportdesk tenant baseline: version 7\nCREATE TABLE t (id int);")
                .map(|b| b.version),
            Some(7)
        );
    }
}
