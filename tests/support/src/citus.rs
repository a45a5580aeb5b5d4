//! A Citus cluster of the test's own: three PostgreSQL servers on free loopback ports (a
//! coordinator and two workers) with Citus loaded, `wal_level = logical` (schema moves use
//! logical replication) and schema-based sharding on, as `docs/citus.md` tells operators to
//! run it. Citus is built and installed by `.ci/services.sh`'s `ensure_citus`; `PG_BINDIR`
//! names the server binaries (Debian's newest by default).
//!
//! Each test gets a database of its own, made on every node with the extension created and the
//! nodes registered (about 2 s). With `TEST_CLUSTER=citus` every [`TestDatabase`] of the
//! process is made on one shared cluster, so the suites that build on it run unchanged on
//! Citus; tests that stop a node start a cluster of their own.
//!
//! The servers are started by a thread that lives as long as the cluster, with
//! `setpriv --pdeathsig KILL`: when that thread ends (the cluster dropped, or the test process
//! gone, however it ended) the kernel kills them. As root they run as the `postgres` user,
//! which is the only way PostgreSQL runs at all.
//!
//! [`TestDatabase`]: crate::database::TestDatabase

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc::{Sender, channel};
use std::time::{Duration, Instant};

use sqlx::{Connection, PgConnection};
use supportdesk_core::config::DatabaseSettings;

/// Whether `TEST_CLUSTER=citus`: every test database is made on the shared cluster.
pub fn cluster_mode() -> bool {
    std::env::var("TEST_CLUSTER").is_ok_and(|v| v == "citus")
}

/// The cluster `TEST_CLUSTER=citus` puts every test database on, started on first use.
pub fn shared() -> &'static CitusCluster {
    static SHARED: OnceLock<CitusCluster> = OnceLock::new();
    SHARED.get_or_init(|| CitusCluster::start(2))
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `program` run as the user PostgreSQL runs as, killed when the calling thread ends.
fn as_postgres(program: &Path) -> Command {
    let mut command = Command::new("setpriv");
    if is_root() {
        command.args(["--reuid=postgres", "--regid=postgres", "--init-groups"]);
    }
    command.args(["--pdeathsig", "KILL", "--"]).arg(program);
    command
}

enum Order {
    Start(usize, Sender<()>),
    Stop(usize, Sender<()>),
}

pub struct CitusCluster {
    /// Coordinator first, then the workers.
    ports: Vec<u16>,
    dir: PathBuf,
    keeper: Sender<Order>,
}

impl CitusCluster {
    /// Starts a coordinator and `workers` workers, and waits until each accepts connections.
    pub fn start(workers: usize) -> Self {
        let bindir = crate::database::pg_bindir();
        let citus = Command::new(bindir.join("pg_config"))
            .arg("--pkglibdir")
            .output()
            .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()).join("citus.so"))
            .expect("pg_config");
        assert!(
            citus.is_file(),
            "Citus is not installed ({} is missing): `.ci/services.sh`'s ensure_citus builds it",
            citus.display()
        );
        remove_stale_clusters();
        let dir = std::env::temp_dir().join(format!(
            "supportdesk-citus-{}",
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::create_dir_all(&dir).expect("cluster directory");
        if is_root() {
            let owned = Command::new("chown")
                .args(["postgres:postgres"])
                .arg(&dir)
                .status()
                .is_ok_and(|s| s.success());
            assert!(owned, "giving {} to the postgres user", dir.display());
        }
        let base = dir.join("base");
        let initdb = as_postgres(&bindir.join("initdb"))
            .arg("-D")
            .arg(&base)
            .args([
                "--auth=trust",
                "-U",
                "postgres",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ])
            .stdout(Stdio::null())
            .status()
            .expect("initdb");
        assert!(initdb.success(), "initdb failed");
        let ports: Vec<u16> = (0..=workers).map(|_| crate::free_port()).collect();
        for (i, port) in ports.iter().enumerate() {
            let data = dir.join(format!("node{i}"));
            let copied = as_postgres(Path::new("/bin/cp"))
                .arg("-a")
                .arg(&base)
                .arg(&data)
                .status()
                .is_ok_and(|s| s.success());
            assert!(copied, "copying the initialised data directory");
            let config = format!(
                "\nlisten_addresses = '127.0.0.1'\n\
                 port = {port}\n\
                 unix_socket_directories = '{dir}'\n\
                 shared_preload_libraries = 'citus'\n\
                 wal_level = logical\n\
                 max_connections = 300\n\
                 max_worker_processes = 64\n\
                 max_replication_slots = 16\n\
                 max_wal_senders = 16\n\
                 shared_buffers = 64MB\n\
                 fsync = off\n\
                 synchronous_commit = off\n\
                 full_page_writes = off\n\
                 citus.node_conninfo = 'sslmode=disable'\n\
                 citus.enable_schema_based_sharding = on\n\
                 citus.log_remote_commands = off\n",
                dir = dir.display(),
            );
            let conf = data.join("postgresql.conf");
            let mut text = std::fs::read_to_string(&conf).expect("postgresql.conf");
            text.push_str(&config);
            std::fs::write(&conf, text).expect("postgresql.conf");
        }

        let (keeper, orders) = channel::<Order>();
        let postgres = bindir.join("postgres");
        let data_dir = dir.clone();
        let count = ports.len();
        std::thread::Builder::new()
            .name("citus-cluster".into())
            .spawn(move || {
                let mut nodes: Vec<Option<Child>> = (0..count).map(|_| None).collect();
                for order in orders {
                    match order {
                        Order::Start(i, done) => {
                            let log = std::fs::File::create(data_dir.join(format!("node{i}.log")))
                                .expect("node log");
                            let child = as_postgres(&postgres)
                                .arg("-D")
                                .arg(data_dir.join(format!("node{i}")))
                                .stdin(Stdio::null())
                                .stdout(Stdio::null())
                                .stderr(log)
                                .spawn()
                                .expect("start postgres");
                            nodes[i] = Some(child);
                            let _ = done.send(());
                        }
                        Order::Stop(i, done) => {
                            if let Some(mut child) = nodes[i].take() {
                                // SIGINT: a fast shutdown, every session cut at once.
                                let _ = Command::new("kill")
                                    .args(["-INT", &child.id().to_string()])
                                    .status();
                                let _ = child.wait();
                            }
                            let _ = done.send(());
                        }
                    }
                }
                for mut child in nodes.into_iter().flatten() {
                    let _ = Command::new("kill")
                        .args(["-INT", &child.id().to_string()])
                        .status();
                    let _ = child.wait();
                }
                let _ = std::fs::remove_dir_all(&data_dir);
            })
            .expect("cluster thread");
        let cluster = Self { ports, dir, keeper };
        for i in 0..=workers {
            cluster.start_node(i);
        }
        cluster
    }

    pub fn coordinator_port(&self) -> u16 {
        self.ports[0]
    }

    /// The workers' ports, as the nodes are registered (`127.0.0.1:<port>`).
    pub fn worker_ports(&self) -> &[u16] {
        &self.ports[1..]
    }

    /// Starts node `i` (0 is the coordinator) and waits until it accepts connections.
    pub fn start_node(&self, i: usize) {
        let (done, wait) = channel();
        self.keeper.send(Order::Start(i, done)).expect("cluster");
        let _ = wait.recv();
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            let ready = Command::new(crate::database::pg_bindir().join("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-p", &self.ports[i].to_string()])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("Citus node {i} did not start: {}", self.log(i));
    }

    /// Stops node `i` at once (a fast shutdown), as when its machine goes away.
    pub fn stop_node(&self, i: usize) {
        let (done, wait) = channel();
        self.keeper.send(Order::Stop(i, done)).expect("cluster");
        let _ = wait.recv();
    }

    /// The pid of node `i`'s postmaster, while it runs (for CPU accounting).
    pub fn postmaster_pid(&self, i: usize) -> Option<u32> {
        std::fs::read_to_string(self.dir.join(format!("node{i}/postmaster.pid")))
            .ok()?
            .lines()
            .next()?
            .trim()
            .parse()
            .ok()
    }

    pub fn log(&self, i: usize) -> String {
        std::fs::read_to_string(self.dir.join(format!("node{i}.log"))).unwrap_or_default()
    }

    /// The admin (`postgres` database) URL of node `i`.
    pub fn admin_url(&self, i: usize) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.ports[i])
    }

    /// Makes database `name` on every node with Citus in it, and registers the nodes in it
    /// (a Citus cluster is per database). Returns the coordinator's admin settings.
    pub async fn create_database(&self, name: &str) -> DatabaseSettings {
        for i in 0..self.ports.len() {
            let admin = self.admin_url(i).parse::<DatabaseSettings>().expect("url");
            let mut conn = PgConnection::connect_with(&admin.connect_options())
                .await
                .expect("connect to a Citus node");
            sqlx::raw_sql(sqlx::AssertSqlSafe(format!(r#"CREATE DATABASE "{name}""#)))
                .execute(&mut conn)
                .await
                .expect("create database");
            let _ = conn.close().await;
            let mut conn = PgConnection::connect_with(&admin.with_database(name).connect_options())
                .await
                .expect("connect to the new database");
            sqlx::raw_sql("CREATE EXTENSION citus")
                .execute(&mut conn)
                .await
                .expect("create extension citus");
            let _ = conn.close().await;
        }
        let coordinator = self
            .admin_url(0)
            .parse::<DatabaseSettings>()
            .expect("url")
            .with_database(name);
        let mut conn = PgConnection::connect_with(&coordinator.connect_options())
            .await
            .expect("connect to the coordinator");
        sqlx::query("SELECT citus_set_coordinator_host('127.0.0.1', $1)")
            .bind(i32::from(self.ports[0]))
            .execute(&mut conn)
            .await
            .expect("citus_set_coordinator_host");
        for port in self.worker_ports() {
            // Adding a node syncs Citus's metadata to it over connections of its own, which a
            // busy machine (every test making its database at once) can fail now and then: the
            // registration is rolled back and repeated.
            let mut attempt = 0;
            loop {
                let added = sqlx::query("SELECT citus_add_node('127.0.0.1', $1)")
                    .bind(i32::from(*port))
                    .execute(&mut conn)
                    .await;
                match added {
                    Ok(_) => break,
                    Err(err) if attempt < 5 => {
                        eprintln!("citus_add_node 127.0.0.1:{port} failed, retrying: {err}");
                        attempt += 1;
                        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                    }
                    Err(err) => panic!("citus_add_node 127.0.0.1:{port}: {err}"),
                }
            }
        }
        // No statement a test makes the API or the worker run may be split over several
        // shards (a multi-task plan: two workspaces, or a scan of them all), or join a
        // workspace's tables with the coordinator's own (`public`): either fails, instead of
        // quietly costing a cluster round trip per shard. (Subqueries over `public` inside a
        // tenant statement are refused by `tenant_statements_name_one_workspace_and_plan_on_citus`.)
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            r#"ALTER DATABASE "{name}" SET citus.multi_task_query_log_level = 'error';
               ALTER DATABASE "{name}" SET citus.local_table_join_policy = 'never'"#
        )))
        .execute(&mut conn)
        .await
        .expect("routing checks");
        let _ = conn.close().await;
        self.admin_url(0).parse::<DatabaseSettings>().expect("url")
    }

    /// Drops database `name` on every node that answers.
    pub async fn drop_database(&self, name: &str) {
        for i in 0..self.ports.len() {
            let Ok(admin) = self.admin_url(i).parse::<DatabaseSettings>() else {
                continue;
            };
            if let Ok(mut conn) = PgConnection::connect_with(&admin.connect_options()).await {
                let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                    r#"DROP DATABASE IF EXISTS "{name}" WITH (FORCE)"#
                )))
                .execute(&mut conn)
                .await;
            }
        }
    }
}

/// Removes what clusters of earlier test processes left (their servers died with them; the
/// kernel saw to it), once they are old enough not to be one starting now.
fn remove_stale_clusters() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let stale = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with("supportdesk-citus-"))
            && entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().unwrap_or_default() > Duration::from_secs(600))
            && !(0..8).any(|i| {
                std::fs::read_to_string(entry.path().join(format!("node{i}/postmaster.pid")))
                    .ok()
                    .and_then(|pid| pid.lines().next().map(str::to_owned))
                    .is_some_and(|pid| Path::new("/proc").join(pid.trim()).exists())
            });
        if stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
