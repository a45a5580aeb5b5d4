//! Spare tenant schemas: made ahead of time by the worker, taken when a workspace is created.
//!
//! A workspace's schema holds ~45 relations, and creating relations slows as the catalog
//! grows (it holds every tenant's). So the worker keeps a few schemas `spare_<32 random hex>`
//! ready, migrated to the latest tenant version and listed in `public.spare_schemas`; creating
//! a workspace takes one and renames it to `ws_<id>`, two statements whose cost depends on
//! neither the migrations nor the number of tenants, and creates the schema as before when
//! none is ready.
//!
//! Why it stays correct:
//! - A spare (schema, migrations, row) is made in one transaction: a crash leaves nothing.
//! - A claim deletes the row, locked with `SKIP LOCKED` so concurrent creates never take the
//!   same spare, and renames the schema, both in the creating transaction: a create that fails
//!   rolls them back and the spare is in the pool again.
//! - Only spares at this binary's latest tenant version are claimed. Older ones (after an
//!   upgrade) are dropped by the worker's refill loop rather than migrated by `tenants
//!   migrate`: a spare holds no data, so a new one is as good, and nothing has to keep two
//!   kinds of schema current.
//! - A claim notifies [`REFILL_CHANNEL`] on commit, so the worker replaces it once claims settle.

use std::fmt;

use sqlx::{AssertSqlSafe, PgConnection, PgPool};

use crate::locks::SPARE_REFILL;
use crate::tenancy::TenantSchema;
use crate::tenancy::migrations::{
    OwnSchemaName, TenantMigrations, create_migrated, latest_version,
};
use crate::tenancy::schema::is_generated_name;

/// The NOTIFY channel a claim fires on commit; the worker's refill loop listens on it.
pub const REFILL_CHANNEL: &str = "supportdesk_spares";

/// The name of one spare schema, `spare_<32 random hex>`: made here or read back from
/// `public.spare_schemas` and checked, never taken from input, and written into SQL quoted.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SpareSchema(String);

impl SpareSchema {
    fn random() -> Self {
        Self(format!("spare_{:032x}", rand::random::<u128>()))
    }

    /// A stored spare name, checked to be of our form.
    pub fn parse(name: &str) -> Result<Self, String> {
        if is_generated_name(name, "spare_") {
            Ok(Self(name.to_owned()))
        } else {
            Err(format!("{name:?} is not a spare schema name"))
        }
    }

    pub fn name(&self) -> &str {
        &self.0
    }

    /// The identifier quoted for SQL.
    pub fn quoted(&self) -> String {
        format!("\"{}\"", self.0)
    }
}

impl OwnSchemaName for SpareSchema {
    fn quoted(&self) -> String {
        SpareSchema::quoted(self)
    }
}

impl fmt::Display for SpareSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for SpareSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SpareSchema({})", self.0)
    }
}

/// Makes one spare migrated with `migrations` and lists it at their latest version, in one
/// transaction of its own.
pub async fn make_spare(
    pool: &PgPool,
    migrations: &TenantMigrations,
) -> anyhow::Result<SpareSchema> {
    let spare = SpareSchema::random();
    let mut tx = crate::db::begin(pool, None).await?;
    create_migrated(&mut tx, &spare, migrations).await?;
    sqlx::query!(
        "INSERT INTO public.spare_schemas (schema_name, schema_version) VALUES ($1, $2)",
        spare.name(),
        migrations.latest_version(),
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(spare)
}

/// Takes the oldest spare at the latest version: deletes its row, skipping rows other claims
/// hold. Only spares whose schema exists and belongs to a role this session acts as (renaming
/// needs ownership): a stray row, or a worker connecting as another role, then costs the
/// fallback instead of failing every create.
const TAKE_SPARE: &str = "DELETE FROM public.spare_schemas
  WHERE schema_name = (
        SELECT s.schema_name
          FROM public.spare_schemas s
          JOIN pg_catalog.pg_namespace n ON n.nspname = s.schema_name
         WHERE s.schema_version = $1
           AND pg_catalog.pg_has_role(n.nspowner, 'USAGE')
         ORDER BY s.created_at
         LIMIT 1
           FOR UPDATE OF s SKIP LOCKED)
  RETURNING schema_name";

/// In the transaction creating the workspace of `schema`: takes a ready spare and renames it to
/// `schema`. False when none is ready (the caller then provisions the schema itself).
pub async fn claim_spare(tx: &mut PgConnection, schema: &TenantSchema) -> sqlx::Result<bool> {
    let taken: Option<String> = sqlx::query_scalar(TAKE_SPARE)
        .bind(latest_version())
        .fetch_optional(&mut *tx)
        .await?;
    let Some(taken) = taken else {
        return Ok(false);
    };
    let spare = SpareSchema::parse(&taken).map_err(|e| sqlx::Error::Decode(e.into()))?;
    // One round trip: the rename; the settings row dated now, as if made with the workspace
    // (it was seeded when the spare was made); the refill signal, delivered on commit.
    sqlx::raw_sql(AssertSqlSafe(format!(
        "ALTER SCHEMA {spare} RENAME TO {schema};
         UPDATE {schema}.settings SET updated_at = now();
         SELECT pg_notify('{REFILL_CHANNEL}', '')",
        spare = spare.quoted(),
        schema = schema.quoted(),
    )))
    .execute(&mut *tx)
    .await?;
    Ok(true)
}

/// What one [`refill`] pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Refill {
    /// Stale spares (behind the latest version) or stray rows (no schema) dropped.
    pub dropped: u32,
    /// Spares made.
    pub made: u32,
    /// Spares at (or ahead of) the latest version afterwards, as far as this pass knows.
    pub ready: i64,
}

/// One pass of the worker's refill loop: drops up to `batch` stale spares, then makes spares
/// until `target` are ready or `batch` were made, each in a transaction of its own.
///
/// Making is counted under a transaction-level advisory lock held until the pass ends, so
/// replicas take turns and together stay at the target; a pass that finds the lock taken
/// makes nothing. Correctness does not depend on the lock: a surplus spare is only unused.
pub async fn refill(
    pool: &PgPool,
    migrations: &TenantMigrations,
    target: u32,
    batch: u32,
) -> anyhow::Result<Refill> {
    let latest = migrations.latest_version();
    let mut pass = Refill::default();
    while pass.dropped < batch && drop_one_stale(pool, latest).await? {
        pass.dropped += 1;
    }
    let mut turn = crate::db::begin(pool, None).await?;
    let ours = sqlx::query_scalar!(
        r#"SELECT pg_try_advisory_xact_lock($1) AS "locked!""#,
        SPARE_REFILL
    )
    .fetch_one(&mut *turn)
    .await?;
    pass.ready = ready_count(&mut turn, latest).await?;
    if ours {
        while pass.ready < i64::from(target) && pass.made < batch {
            make_spare(pool, migrations).await?;
            pass.made += 1;
            pass.ready += 1;
        }
    }
    turn.commit().await?;
    Ok(pass)
}

/// Spares the worker counts as ready: at its version, or ahead of it (made by a newer worker
/// during a rolling upgrade, which an older worker must not drop or duplicate).
async fn ready_count(conn: &mut PgConnection, latest: i32) -> sqlx::Result<i64> {
    sqlx::query_scalar!(
        r#"SELECT count(*) AS "ready!" FROM public.spare_schemas WHERE schema_version >= $1"#,
        latest,
    )
    .fetch_one(conn)
    .await
}

/// Drops one spare behind `latest`, or one row whose schema is gone, skipping any a claim
/// holds; false when there was none.
async fn drop_one_stale(pool: &PgPool, latest: i32) -> anyhow::Result<bool> {
    let mut tx = crate::db::begin(pool, None).await?;
    let taken = sqlx::query_scalar!(
        "DELETE FROM public.spare_schemas
          WHERE schema_name = (
                SELECT s.schema_name
                  FROM public.spare_schemas s
                 WHERE s.schema_version < $1
                    OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n
                                    WHERE n.nspname = s.schema_name)
                 LIMIT 1
                   FOR UPDATE SKIP LOCKED)
          RETURNING schema_name",
        latest,
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some(taken) = taken else {
        return Ok(false);
    };
    let spare = SpareSchema::parse(&taken).map_err(|e| anyhow::anyhow!(e))?;
    sqlx::raw_sql(AssertSqlSafe(format!(
        "DROP SCHEMA IF EXISTS {} CASCADE",
        spare.quoted()
    )))
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_names_are_spare_names() {
        let spare = SpareSchema::random();
        assert!(spare.name().starts_with("spare_"), "{spare}");
        assert_eq!(SpareSchema::parse(spare.name()).unwrap(), spare);
        assert_eq!(spare.quoted(), format!("\"{}\"", spare.name()));
        assert_ne!(SpareSchema::random(), spare);
    }

    #[test]
    fn refuses_anything_else() {
        for bad in [
            "public",
            "spare_",
            "ws_0192f0c12b3c7d4e8f90a1b2c3d4e5f6",
            "spare_0192F0C12B3C7D4E8F90A1B2C3D4E5F6",
            "spare_0192f0c12b3c7d4e8f90a1b2c3d4e5f",
            "spare_0192f0c12b3c7d4e8f90a1b2c3d4e5f\"",
            "spare_0192f0c12b3c7d4e8f90a1b2c3d4e5f6; DROP SCHEMA public",
        ] {
            assert!(SpareSchema::parse(bad).is_err(), "{bad}");
        }
    }
}
