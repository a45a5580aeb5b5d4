//! A PgBouncer of the test's or benchmark's own (not the system service): a free loopback
//! port in front of one database, TLS to PostgreSQL as in production, plain TCP from the API
//! on loopback. Its configuration, log and auth file live in a directory the caller owns.
//!
//! Transaction pooling needs PgBouncer 1.21 or later, which tracks the statements clients
//! prepare by name and prepares them again on whichever server connection serves the next
//! transaction. `.ci/services.sh` (`ensure_pgbouncer`) provides one and names it in
//! `PGBOUNCER`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::free_port;
use crate::process::KillOnDrop;
use anyhow::{Context, bail};

/// How PgBouncer hands server connections to clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolMode {
    /// One server connection per client connection, for as long as the client stays.
    Session,
    /// A server connection per transaction (a statement outside one is its own), named
    /// prepared statements tracked per client (`max_prepared_statements`).
    Transaction,
}

impl PoolMode {
    fn as_str(self) -> &'static str {
        match self {
            Self::Session => "session",
            Self::Transaction => "transaction",
        }
    }
}

pub struct PgBouncer {
    child: KillOnDrop,
    pub port: u16,
    pub log: PathBuf,
}

/// Prepared statements PgBouncer keeps per server connection in transaction mode: above the
/// API's statement cache (`DATABASE_STATEMENT_CACHE`), so a hot statement is not prepared
/// again on every transaction.
pub const MAX_PREPARED_STATEMENTS: u32 = 2_000;

/// `PGBOUNCER`, else `pgbouncer` on the PATH, else where Debian's package puts it.
pub fn binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PGBOUNCER").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("pgbouncer"))
        .find(|candidate| candidate.is_file())
}

/// The version `binary()` reports (`PgBouncer 1.24.1` -> `(1, 24)`).
pub fn version() -> Option<(u32, u32)> {
    let output = Command::new(binary()?).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let version = text.lines().next()?.split_whitespace().nth(1)?;
    let mut parts = version.split('.').map(str::parse::<u32>);
    Some((parts.next()?.ok()?, parts.next()?.ok()?))
}

/// Whether `binary()` can pool transactions for a client that prepares statements by name.
pub fn supports_transaction_mode() -> bool {
    version().is_some_and(|v| v >= (1, 21))
}

fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(1))
            == Some("0")
    })
}

/// A value in PgBouncer's auth file: double-quoted, a quote inside doubled.
fn quoted(value: &str) -> String {
    format!("\"{}\"", value.replace('"', "\"\""))
}

/// Where PostgreSQL is and who to log in as: from the benchmark database's URL.
pub struct Upstream {
    pub host: String,
    pub port: u16,
    pub database: String,
    pub user: String,
    pub password: String,
}

impl PgBouncer {
    /// Starts PgBouncer in `mode` with `pool_size` server connections and waits (15 s at most) until
    /// `psql -c 'select 1'` goes through it.
    pub async fn start(
        work: &Path,
        upstream: &Upstream,
        mode: PoolMode,
        pool_size: u32,
    ) -> anyhow::Result<Self> {
        let binary = binary().context("pgbouncer is not installed (.ci/services.sh builds one)")?;
        if mode == PoolMode::Transaction && !supports_transaction_mode() {
            bail!(
                "{} is PgBouncer {:?}: transaction pooling needs 1.21 or later",
                binary.display(),
                version()
            );
        }
        let dir = work.join("pgbouncer");
        std::fs::create_dir_all(&dir)?;
        let port = free_port();
        let log = dir.join("pgbouncer.log");
        let auth_file = dir.join("userlist.txt");
        std::fs::write(
            &auth_file,
            format!(
                "{} {}\n",
                quoted(&upstream.user),
                quoted(&upstream.password)
            ),
        )?;
        let mut ini = String::new();
        writeln!(ini, "[databases]")?;
        writeln!(
            ini,
            "{} = host={} port={} dbname={}",
            upstream.database, upstream.host, upstream.port, upstream.database
        )?;
        writeln!(ini, "\n[pgbouncer]")?;
        for (key, value) in [
            ("listen_addr", "127.0.0.1".to_owned()),
            ("listen_port", port.to_string()),
            ("unix_socket_dir", String::new()),
            ("auth_type", "trust".into()),
            ("auth_file", auth_file.display().to_string()),
            ("pool_mode", mode.as_str().into()),
            ("max_client_conn", "256".into()),
            ("default_pool_size", pool_size.to_string()),
            ("ignore_startup_parameters", "extra_float_digits".into()),
            ("server_tls_sslmode", "require".into()),
            ("logfile", log.display().to_string()),
        ] {
            writeln!(ini, "{key} = {value}")?;
        }
        if mode == PoolMode::Transaction {
            writeln!(ini, "max_prepared_statements = {MAX_PREPARED_STATEMENTS}")?;
        }
        let ini_path = dir.join("pgbouncer.ini");
        std::fs::write(&ini_path, ini)?;

        let mut command = Command::new(&binary);
        // PgBouncer refuses to run as root: as root, it switches to `postgres`, who must be
        // able to write its log.
        if running_as_root() {
            let status = Command::new("chown")
                .args(["-R", "postgres"])
                .arg(&dir)
                .status()?;
            anyhow::ensure!(status.success(), "chown -R postgres {}", dir.display());
            command.args(["-u", "postgres"]);
        }
        let child = command
            .arg(&ini_path)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(work.join("pgbouncer-stderr.log"))?)
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        let mut pgbouncer = Self {
            child: KillOnDrop(child),
            port,
            log,
        };
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(status) = pgbouncer.child.try_wait()? {
                bail!(
                    "pgbouncer exited with {status}: {}{}",
                    pgbouncer.log_tail(5),
                    std::fs::read_to_string(work.join("pgbouncer-stderr.log")).unwrap_or_default()
                );
            }
            if pgbouncer.select_one(upstream).await {
                return Ok(pgbouncer);
            }
            if Instant::now() > deadline {
                bail!(
                    "pgbouncer did not accept `psql -c 'select 1'` within 15 s: {}",
                    pgbouncer.log_tail(5)
                );
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `psql -h 127.0.0.1 -p <port> -U <user> <db> -c 'select 1'` through PgBouncer.
    pub async fn select_one(&self, upstream: &Upstream) -> bool {
        let psql = tokio::process::Command::new("psql")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(["-U", &upstream.user, "-d", &upstream.database])
            .args(["-X", "-Atc", "select 1"])
            .env("PGCONNECT_TIMEOUT", "3")
            .env("PGPASSWORD", &upstream.password)
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output();
        matches!(
            tokio::time::timeout(Duration::from_secs(5), psql).await,
            Ok(Ok(output)) if output.status.success()
                && String::from_utf8_lossy(&output.stdout).trim() == "1"
        )
    }

    /// The last `lines` lines of PgBouncer's log.
    pub fn log_tail(&self, lines: usize) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let all: Vec<&str> = log.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// Why PgBouncer last closed a client or server connection, from its log.
    pub fn last_closing_reason(&self) -> Option<String> {
        let log = std::fs::read_to_string(&self.log).ok()?;
        log.lines()
            .rev()
            .filter(|l| !l.contains("client close request"))
            .find_map(|l| {
                l.split_once("closing because: ")
                    .map(|(_, reason)| reason.to_owned())
            })
    }

    /// SIGTERM (PgBouncer's immediate shutdown), waiting 10 s at most, then SIGKILL.
    pub fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_)) | Err(_)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        // KillOnDrop ends it.
    }
}
