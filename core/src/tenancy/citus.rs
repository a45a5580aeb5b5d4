//! Workspaces on a Citus cluster: where each one's schema lives, moving one to another node,
//! and spreading them over the nodes.
//!
//! With schema-based sharding every workspace schema is a distributed schema: its tables are
//! one colocation group placed whole on one worker node, and every tenant statement (it names
//! that schema only) is routed to that node. Placement is read from Citus's metadata on the
//! coordinator (`pg_dist_*`), never from the nodes, so it can be shown while a node is down.
//! Moves are Citus's own (`citus_schema_move`, logical replication: writes go on during the
//! copy and wait only for the final switch-over), as is the rebalancer.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use sqlx::PgPool;

use crate::tenancy::TenantSchema;

/// A node as Citus registered it (`citus_add_node(host, port)`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeAddress {
    pub host: String,
    pub port: u16,
}

impl FromStr for NodeAddress {
    type Err = String;

    /// `HOST:PORT` (an IPv6 host in brackets).
    fn from_str(s: &str) -> Result<Self, String> {
        let (host, port) = s
            .rsplit_once(':')
            .ok_or_else(|| format!("{s:?} is not HOST:PORT"))?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port = port
            .parse::<u16>()
            .map_err(|_| format!("{s:?}: {port:?} is not a port"))?;
        if host.is_empty() {
            return Err(format!("{s:?} names no host"));
        }
        Ok(Self {
            host: host.to_owned(),
            port,
        })
    }
}

impl fmt::Display for NodeAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// Whether this database has Citus (the coordinator of a cluster).
pub async fn is_citus(pool: &PgPool) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus')",
    )
    .fetch_one(pool)
    .await
}

/// The node holding each distributed tenant schema, by schema name; empty off Citus.
pub async fn placements(pool: &PgPool) -> sqlx::Result<HashMap<String, NodeAddress>> {
    if !is_citus(pool).await? {
        return Ok(HashMap::new());
    }
    let rows: Vec<(String, String, i32)> = sqlx::query_as(
        "SELECT n.nspname::text, node.nodename::text, node.nodeport
           FROM pg_dist_schema ds
           JOIN pg_catalog.pg_namespace n ON n.oid = ds.schemaid
           JOIN LATERAL (SELECT p.logicalrelid FROM pg_dist_partition p
                          WHERE p.colocationid = ds.colocationid LIMIT 1) t ON true
           JOIN pg_dist_shard sh ON sh.logicalrelid = t.logicalrelid
           JOIN pg_dist_placement pl ON pl.shardid = sh.shardid
           JOIN pg_dist_node node ON node.groupid = pl.groupid AND node.noderole = 'primary'",
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(schema, host, port)| {
            Some((
                schema,
                NodeAddress {
                    host,
                    port: u16::try_from(port).ok()?,
                },
            ))
        })
        .collect())
}

/// The worker nodes that may hold workspaces.
pub async fn workers(pool: &PgPool) -> sqlx::Result<Vec<NodeAddress>> {
    let rows: Vec<(String, i32)> = sqlx::query_as(
        "SELECT nodename::text, nodeport FROM pg_dist_node
          WHERE noderole = 'primary' AND isactive AND shouldhaveshards
          ORDER BY nodename, nodeport",
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(host, port)| {
            Some(NodeAddress {
                host,
                port: u16::try_from(port).ok()?,
            })
        })
        .collect())
}

/// Moves `schema` (a distributed schema) to `to`, a worker node as Citus registered it, and
/// returns once the move is done. Writes to the workspace go on during the copy.
pub async fn move_schema(
    pool: &PgPool,
    schema: &TenantSchema,
    to: &NodeAddress,
) -> anyhow::Result<()> {
    if !is_citus(pool).await? {
        anyhow::bail!("this database is not a Citus coordinator: there is nowhere to move to");
    }
    let known = workers(pool).await?;
    if !known.contains(to) {
        let names: Vec<String> = known.iter().map(ToString::to_string).collect();
        anyhow::bail!(
            "{to} is not a worker node of this cluster (its workers: {})",
            names.join(", ")
        );
    }
    let mut conn = pool.acquire().await?;
    // A move copies the schema's tables: no statement limit, as for migrations.
    sqlx::raw_sql("SET statement_timeout = 0")
        .execute(&mut *conn)
        .await?;
    let moved = sqlx::query("SELECT citus_schema_move($1::regnamespace, $2, $3, 'force_logical')")
        .bind(schema.name())
        .bind(&to.host)
        .bind(i32::from(to.port))
        .execute(&mut *conn)
        .await;
    // The connection goes back to the pool: give it back its limit first.
    sqlx::raw_sql("RESET statement_timeout")
        .execute(&mut *conn)
        .await?;
    moved?;
    Ok(())
}

/// Distributes `schema`, a workspace schema still on the coordinator (made before
/// schema-based sharding was turned on), to a worker node, and drops the coordinator's copy
/// of its rows, except the audit log's: its append-only trigger refuses the truncation, and
/// its copy stays on the coordinator's disk, unread. Its tables are locked against writes
/// while their rows are copied.
pub async fn distribute(pool: &PgPool, schema: &TenantSchema) -> anyhow::Result<()> {
    let mut tx = crate::db::begin(pool, None).await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(schema.lock_key())
        .execute(&mut *tx)
        .await?;
    // As when a schema is made (`migrations::create_migrated`): the audit log's triggers
    // only raise, and go with it.
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "SET LOCAL statement_timeout = 0;
         SET LOCAL citus.enable_unsafe_triggers = on;
         SELECT citus_schema_distribute('{schema}');
         SELECT truncate_local_data_after_distributing_table(c.oid)
           FROM pg_catalog.pg_class c
          WHERE c.relnamespace = '{schema}'::regnamespace AND c.relkind IN ('r', 'p')
            AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t
                             WHERE t.tgrelid = c.oid AND NOT t.tgisinternal)",
        schema = schema.quoted()
    )))
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Spreads the distributed schemas over the worker nodes (Citus's rebalancer, moving whole
/// schemas by logical replication) and waits until it is done.
pub async fn rebalance(pool: &PgPool) -> anyhow::Result<()> {
    if !is_citus(pool).await? {
        anyhow::bail!("this database is not a Citus coordinator: there is nothing to rebalance");
    }
    let mut conn = pool.acquire().await?;
    sqlx::raw_sql("SET statement_timeout = 0")
        .execute(&mut *conn)
        .await?;
    // Two statements apart: the job the first starts is seen by Citus's task runner only
    // once committed, so the wait must not share its transaction.
    let mut done =
        sqlx::raw_sql("SELECT citus_rebalance_start(shard_transfer_mode => 'force_logical')")
            .execute(&mut *conn)
            .await;
    if done.is_ok() {
        done = sqlx::raw_sql("SELECT citus_rebalance_wait()")
            .execute(&mut *conn)
            .await;
    }
    sqlx::raw_sql("RESET statement_timeout")
        .execute(&mut *conn)
        .await?;
    done?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_addresses_are_host_and_port() {
        let node: NodeAddress = "10.0.0.7:5432".parse().unwrap();
        assert_eq!(node.host, "10.0.0.7");
        assert_eq!(node.port, 5432);
        assert_eq!(node.to_string(), "10.0.0.7:5432");
        let v6: NodeAddress = "[fd00::7]:6432".parse().unwrap();
        assert_eq!(v6.host, "fd00::7");
        assert_eq!(v6.to_string(), "[fd00::7]:6432");
        for bad in ["worker-1", ":5432", "worker-1:", "worker-1:99999"] {
            assert!(bad.parse::<NodeAddress>().is_err(), "{bad}");
        }
    }
}
