//! The PostgreSQL pools, shared by the API and the worker (which must open sessions exactly
//! as the API does: the same empty `search_path`, the same timeouts).
//!
//! The pool connects lazily so the API can start (and report `Unhealthy`) while the database
//! is still coming up; a statement timeout keeps one slow query from holding a connection
//! forever. Every session has an empty `search_path`: control-plane SQL names `public.`,
//! tenant SQL names its schema (`tenancy::TenantSchema::sql`), and a table name that is
//! neither fails loudly (42P01) instead of reading whatever schema happened to be current.
//! Nothing else is ever set on a session, so a connection carries no tenant from one request
//! to the next.
//!
//! A read is one round trip: sqlx keeps each connection's prepared statements (the plans of
//! the tenant statements it has served, `DATABASE_STATEMENT_CACHE`), and a connection is not
//! pinged on every acquire, only after it sat idle (`IDLE_CHECK_AFTER`), when the server may
//! have closed it.

use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use deadpool::managed;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{AssertSqlSafe, Connection, PgConnection, PgPool, Postgres, Row, Transaction};

use crate::config::{DatabaseSettings, Pooler};
use crate::tenancy::TenantSchema;

/// A connection idle for longer is pinged before use; a busy one is known to be alive.
const IDLE_CHECK_AFTER: Duration = Duration::from_secs(30);

/// How every connection of ours is opened. Plans are generic from the first execution: a
/// tenant statement's text already fixes its tenant, and its parameters (ids, cursors, page
/// sizes) never change which index serves it, so a custom plan per execution would only
/// re-plan what the cached plan already knows. JIT is off: a generic plan cannot see a
/// page's `LIMIT`, so it costs the inbox list as if it read a tenth of the table and JIT
/// compiled it on every execution (15 ms of a 4 ms request, measured at 100 000
/// conversations), for statements that only ever read a page. On a Citus coordinator the
/// session then switches to custom plans ([`prepare_session`]).
fn connect_options(database: &DatabaseSettings) -> PgConnectOptions {
    let tuning = database.tuning;
    let options = database
        .connect_options()
        .application_name("supportdesk")
        .statement_cache_capacity(tuning.statement_cache);
    match tuning.pooler {
        Pooler::Direct => options.options([
            ("statement_timeout", "30s"),
            ("search_path", ""),
            ("plan_cache_mode", "force_generic_plan"),
            ("jit", "off"),
        ]),
        Pooler::PgBouncer => options,
    }
}

pub fn pool(database: &DatabaseSettings, max_connections: u32) -> PgPool {
    let tuning = database.tuning;
    let options = connect_options(database);
    PgPoolOptions::new()
        .max_connections(max_connections)
        .min_connections(0)
        .acquire_timeout(Duration::from_secs(5))
        .idle_timeout(Some(Duration::from_secs(300)))
        .max_lifetime(Some(tuning.connection_lifetime))
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for > IDLE_CHECK_AFTER {
                    conn.ping().await?;
                }
                Ok(true)
            })
        })
        .after_connect(move |conn, _| {
            Box::pin(async move { prepare_session(conn, tuning.pooler).await })
        })
        .connect_lazy_with(options)
}

/// The pool of tenant reads: connections handed back to the pool as they are, with no round
/// trip. (sqlx's own pool pings every connection it takes back, one more round trip per
/// request for both processes, which the hot read path cannot afford.) A read dropped
/// mid-flight leaves its replies unread; sqlx reads and discards them before the connection's
/// next statement, and no session state exists that could carry a tenant over.
///
/// Split into shards of [`CONNECTIONS_PER_SHARD`], each workspace always read through the
/// same shard: a connection then serves a fraction of the workspaces, so its cached plans
/// (`DATABASE_STATEMENT_CACHE`) cover more of its hot set and its backend caches the catalog
/// of fewer schemas. It also keeps one busy workspace to its shard's connections.
#[derive(Clone)]
pub struct ReadPool(Arc<[managed::Pool<ReadConnections>]>);

pub type ReadConnection = managed::Object<ReadConnections>;

/// Connections of a read shard: enough for a workspace's own concurrency on a small node.
pub const CONNECTIONS_PER_SHARD: usize = 5;

impl ReadPool {
    pub fn new(database: &DatabaseSettings, max_connections: usize) -> anyhow::Result<Self> {
        let shards = (max_connections / CONNECTIONS_PER_SHARD).max(1);
        let per_shard = max_connections.div_ceil(shards);
        let pools = (0..shards)
            .map(|_| {
                let manager = ReadConnections {
                    options: connect_options(database),
                    lifetime: database.tuning.connection_lifetime,
                    pooler: database.tuning.pooler,
                };
                managed::Pool::builder(manager)
                    .max_size(per_shard)
                    // The connection used last goes out first: its backend (and its caches)
                    // ran a moment ago, and the ones at the bottom of the stack go idle and
                    // are closed by `close_idle` when the load drops.
                    .queue_mode(managed::QueueMode::Lifo)
                    .wait_timeout(Some(Duration::from_secs(5)))
                    .create_timeout(Some(Duration::from_secs(5)))
                    .recycle_timeout(Some(Duration::from_secs(5)))
                    .runtime(deadpool::Runtime::Tokio1)
                    .build()
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self(pools.into()))
    }

    /// A connection of the shard that reads `schema`.
    pub async fn get(&self, schema: &TenantSchema) -> Result<ReadConnection, sqlx::Error> {
        let mut hasher = std::hash::DefaultHasher::new();
        schema.hash(&mut hasher);
        let shard = (hasher.finish() % self.0.len() as u64) as usize;
        self.0[shard].get().await.map_err(|error| match error {
            managed::PoolError::Backend(error) => error,
            managed::PoolError::Timeout(_) => sqlx::Error::PoolTimedOut,
            managed::PoolError::Closed => sqlx::Error::PoolClosed,
            other => sqlx::Error::Io(std::io::Error::other(other.to_string())),
        })
    }

    /// Closes connections idle for longer than `idle` (call it now and then).
    pub fn close_idle(&self, idle: Duration) {
        for pool in self.0.iter() {
            pool.retain(|_, metrics| metrics.last_used() < idle);
        }
    }
}

pub struct ReadConnections {
    options: PgConnectOptions,
    lifetime: Duration,
    pooler: Pooler,
}

impl managed::Manager for ReadConnections {
    type Type = PgConnection;
    type Error = sqlx::Error;

    async fn create(&self) -> Result<PgConnection, sqlx::Error> {
        let mut conn = PgConnection::connect_with(&self.options).await?;
        prepare_session(&mut conn, self.pooler).await?;
        Ok(conn)
    }

    async fn recycle(
        &self,
        conn: &mut PgConnection,
        metrics: &managed::Metrics,
    ) -> managed::RecycleResult<sqlx::Error> {
        if metrics.created.elapsed() > self.lifetime {
            return Err(managed::RecycleError::message("past its lifetime"));
        }
        if metrics.last_used() > IDLE_CHECK_AFTER {
            conn.ping().await?;
        }
        Ok(())
    }
}

/// Checks a new session, and fits it to the server, in one simple query (one message, so a
/// transaction-mode pooler cannot split it across server connections):
///
/// - Refuses a session whose `search_path` is not empty: behind PgBouncer it comes from the
///   database's or role's settings, and a forgotten `ALTER DATABASE ... SET search_path = ''`
///   must fail at the first connection, not weaken tenant isolation silently.
/// - On a Citus coordinator, plans every execution anew (`plan_cache_mode =
///   force_custom_plan`). Citus cannot make a generic plan of a statement that modifies in a
///   CTE with parameters, and routes a statement by the values it is given; its router plans
///   are cheap to make. Behind PgBouncer, which must not see a session setting, the database
///   carries it instead (docs/citus.md).
async fn prepare_session(conn: &mut sqlx::PgConnection, pooler: Pooler) -> Result<(), sqlx::Error> {
    let row = sqlx::raw_sql(
        "SELECT current_setting('search_path'),
                EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus'),
                current_setting('plan_cache_mode')",
    )
    .fetch_one(&mut *conn)
    .await?;
    let path: String = row.try_get(0)?;
    let citus: bool = row.try_get(1)?;
    let plans: String = row.try_get(2)?;
    if !(path.trim().is_empty() || path.trim() == "\"\"") {
        return Err(sqlx::Error::Configuration(
            format!(
                "sessions must start with an empty search_path, this one has {path:?}; \
                 behind PgBouncer run ALTER DATABASE <name> SET search_path = ''"
            )
            .into(),
        ));
    }
    if citus && plans != "force_custom_plan" {
        match pooler {
            Pooler::Direct => {
                sqlx::raw_sql("SET plan_cache_mode = force_custom_plan")
                    .execute(&mut *conn)
                    .await?;
            }
            Pooler::PgBouncer => {
                return Err(sqlx::Error::Configuration(
                    "on Citus, sessions must plan every execution: run ALTER DATABASE <name> \
                     SET plan_cache_mode = force_custom_plan"
                        .into(),
                ));
            }
        }
    }
    Ok(())
}

/// The server a pool talks to. An agent's reply records its event in one statement on
/// PostgreSQL (a data-modifying CTE feeding `INSERT ... SELECT`) and in two on a Citus
/// coordinator, which deparses that form wrongly for a table with a `now()` default
/// (docs/citus.md): `conversations::messages::record_created`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Postgres,
    Citus,
}

impl Engine {
    pub async fn detect(pool: &PgPool) -> Result<Self, sqlx::Error> {
        let citus: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus')",
        )
        .fetch_one(pool)
        .await?;
        Ok(if citus { Self::Citus } else { Self::Postgres })
    }
}

/// A pool's [`Engine`], asked the first time a write needs it (the API starts before its
/// database answers, and the answer never changes while it runs).
#[derive(Debug, Default)]
pub struct EngineOf(tokio::sync::OnceCell<Engine>);

impl EngineOf {
    pub async fn get(&self, pool: &PgPool) -> Result<Engine, sqlx::Error> {
        self.0
            .get_or_try_init(|| Engine::detect(pool))
            .await
            .copied()
    }
}

/// Begins a transaction on a pooled connection, with `statement` (`BEGIN` when `None`),
/// in a task of its own.
///
/// If the caller's future is dropped while BEGIN is on the wire (axum drops a handler whose
/// client went away), sqlx 0.9.0 has not yet counted the transaction and would return the
/// connection to the pool still inside it: the next user would run in someone else's
/// transaction (sqlx issue 4393). Run to completion in its own task, the BEGIN is always
/// counted, and a transaction nobody claims is dropped and rolled back before the connection
/// is reused.
pub async fn begin(
    pool: &PgPool,
    statement: Option<String>,
) -> Result<Transaction<'static, Postgres>, sqlx::Error> {
    let pool = pool.clone();
    tokio::spawn(async move {
        match statement {
            Some(statement) => pool.begin_with(AssertSqlSafe(statement)).await,
            None => pool.begin().await,
        }
    })
    .await
    .map_err(|e| sqlx::Error::Io(std::io::Error::other(e)))?
}
