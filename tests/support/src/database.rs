//! A PostgreSQL database per test, dropped when the test is done.
//!
//! Reached at `TEST_DATABASE_URL` (default `postgres://postgres:postgres@127.0.0.1:5432/postgres`),
//! which must be a URL naming the maintenance database.

use std::path::PathBuf;

use sqlx::{Connection, PgConnection};
use supportdesk_core::config::DatabaseSettings;
use uuid::Uuid;

pub fn admin_url() -> String {
    std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres:postgres@127.0.0.1:5432/postgres".into())
}

/// The directory of PostgreSQL's programs (`postgres`, `pg_ctl`, `pg_dump`): `PG_BINDIR`, or
/// the newest major version installed.
pub fn pg_bindir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PG_BINDIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let mut majors: Vec<u32> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|dir| {
            dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    majors.sort_unstable();
    let major = majors.last().expect("PostgreSQL is not installed");
    PathBuf::from(format!("/usr/lib/postgresql/{major}/bin"))
}

pub struct TestDatabase {
    pub name: String,
    /// `postgres://...` URL of this database.
    pub url: String,
    pub settings: DatabaseSettings,
    /// Made on a Citus cluster of the test's own, which takes it along when it goes.
    on_private_cluster: bool,
}

impl TestDatabase {
    /// An empty database.
    pub async fn empty() -> Self {
        if crate::citus::cluster_mode() {
            return Self::on_cluster().await;
        }
        let admin = admin_url()
            .parse::<DatabaseSettings>()
            .expect("TEST_DATABASE_URL");
        let name = format!("sd_test_{}", Uuid::new_v4().simple());
        let mut conn = PgConnection::connect_with(&admin.connect_options())
            .await
            .expect("connect to PostgreSQL as admin");
        sqlx::query(sqlx::AssertSqlSafe(format!(r#"CREATE DATABASE "{name}""#)))
            .execute(&mut conn)
            .await
            .expect("create test database");
        let _ = conn.close().await;
        let admin_url = admin_url();
        let base = admin_url
            .rsplit_once('/')
            .map_or(admin_url.as_str(), |(b, _)| b);
        Self {
            url: format!("{base}/{name}"),
            settings: admin.with_database(&name),
            name,
            on_private_cluster: false,
        }
    }

    /// An empty database on the shared Citus cluster (`TEST_CLUSTER=citus`), reached at its
    /// coordinator.
    async fn on_cluster() -> Self {
        let cluster = tokio::task::spawn_blocking(crate::citus::shared)
            .await
            .expect("start the Citus cluster");
        let mut db = Self::on_citus(cluster).await;
        db.on_private_cluster = false;
        db
    }

    /// An empty database on `cluster`, reached at its coordinator.
    pub async fn on_citus(cluster: &crate::citus::CitusCluster) -> Self {
        let name = format!("sd_test_{}", Uuid::new_v4().simple());
        let admin = cluster.create_database(&name).await;
        Self {
            url: format!(
                "postgres://postgres@127.0.0.1:{}/{name}",
                cluster.coordinator_port()
            ),
            settings: admin.with_database(&name),
            name,
            on_private_cluster: true,
        }
    }

    /// [`Self::on_citus`] with the control-plane migrations applied.
    pub async fn migrated_on_citus(cluster: &crate::citus::CitusCluster) -> Self {
        let db = Self::on_citus(cluster).await;
        supportdesk::migrate::control_plane(&db.settings)
            .await
            .expect("migrate test database");
        db
    }

    /// A database with the control-plane migrations applied.
    pub async fn migrated() -> Self {
        let db = Self::empty().await;
        supportdesk::migrate::control_plane(&db.settings)
            .await
            .expect("migrate test database");
        db
    }

    /// A pool on this database, for the test's own queries.
    pub async fn pool(&self) -> sqlx::PgPool {
        sqlx::PgPool::connect_with(self.settings.connect_options())
            .await
            .expect("connect to the test database")
    }

    /// A user that owns things in tests: `owner@example.com`.
    pub async fn insert_owner(&self) -> Uuid {
        let id = Uuid::now_v7();
        let mut conn = PgConnection::connect_with(&self.settings.connect_options())
            .await
            .expect("connect to the test database");
        sqlx::query(
            "INSERT INTO public.users (id, email, full_name, password_hash)
             VALUES ($1, 'owner@example.com', 'Olive', 'x')",
        )
        .bind(id)
        .execute(&mut conn)
        .await
        .expect("insert owner");
        id
    }

    /// The same database in the `Host=..;Port=..` form.
    pub fn key_value(&self) -> String {
        let rest = self.url.split_once("://").map_or("", |(_, r)| r);
        let (credentials, host) = rest.rsplit_once('@').unwrap_or(("", rest));
        let (user, password) = credentials.split_once(':').unwrap_or((credentials, ""));
        let host_port = host.split('/').next().unwrap_or("127.0.0.1:5432");
        let (host, port) = host_port.split_once(':').unwrap_or((host_port, "5432"));
        format!(
            "Host={host};Port={port};Database={};Username={user};Password='{password}'",
            self.name
        )
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if self.on_private_cluster {
            return;
        }
        let name = std::mem::take(&mut self.name);
        // Drop may run inside a runtime we must not block: use a thread with its own.
        let _ = std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            runtime.block_on(async {
                if crate::citus::cluster_mode() {
                    crate::citus::shared().drop_database(&name).await;
                    return;
                }
                let Ok(admin) = admin_url().parse::<DatabaseSettings>() else {
                    return;
                };
                if let Ok(mut conn) = PgConnection::connect_with(&admin.connect_options()).await {
                    let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                        r#"DROP DATABASE IF EXISTS "{name}" WITH (FORCE)"#
                    )))
                    .execute(&mut conn)
                    .await;
                }
            });
        })
        .join();
    }
}
