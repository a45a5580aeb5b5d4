//! CPU time per request, split between the processes that serve it: the API (or PgBouncer),
//! read from `/proc/<pid>/stat` before and after a run, and the PostgreSQL backends that
//! process's connections are served by, sampled during the run (a backend may end before it).
//!
//! A backend belongs to a client process when the client's end of its connection (the
//! `client_port` of `pg_stat_activity`) is one of that process's TCP sockets to PostgreSQL's
//! port: this tells the API's backends from the worker's, the benchmark's own, PgBouncer's and
//! pgbench's, though all are in the same database. "All PostgreSQL processes" adds the
//! postmaster and every child of it (checkpointer, WAL writer, other databases' backends on a
//! shared server), counting children that exited meanwhile through the postmaster's reaped
//! children's time.

use std::collections::{HashMap, HashSet};
use std::process::Command;
use std::time::{Duration, Instant};

use sqlx::PgPool;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How often the backends of a client are looked up and read during a run.
const SAMPLE_EVERY: Duration = Duration::from_millis(500);
/// A sampler stops by itself after this long, whatever happens to the run it measures.
const SAMPLE_AT_MOST: Duration = Duration::from_secs(600);

/// `utime + stime` and the reaped children's `cutime + cstime` of a process, in clock ticks,
/// and its parent.
#[derive(Debug, Clone, Copy)]
pub struct ProcStat {
    pub ppid: u32,
    pub ticks: u64,
    pub children: u64,
}

pub fn proc_stat(pid: u32) -> Option<ProcStat> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: fields after it.
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| -> Option<u64> { fields.get(n - 3)?.parse().ok() };
    Some(ProcStat {
        ppid: u32::try_from(field(4)?).ok()?,
        ticks: field(14)? + field(15)?,
        children: field(16)? + field(17)?,
    })
}

/// Clock ticks per second of `/proc/<pid>/stat` (`getconf CLK_TCK`, 100 when unknown).
pub fn ticks_per_second() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse::<f64>()
                .ok()
        })
        .filter(|hz| *hz > 0.0)
        .unwrap_or(100.0)
}

/// Local ports of `pid`'s TCP connections to `remote_port` (on any address).
pub fn ports_to(pid: u32, remote_port: u16) -> HashSet<u16> {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return HashSet::new();
    };
    let inodes: HashSet<String> = fds
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter_map(|target| {
            let target = target.to_str()?;
            Some(
                target
                    .strip_prefix("socket:[")?
                    .strip_suffix(']')?
                    .to_owned(),
            )
        })
        .collect();
    let mut ports = HashSet::new();
    for table in ["tcp", "tcp6"] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let port = |address: &str| -> Option<u16> {
                u16::from_str_radix(address.rsplit_once(':')?.1, 16).ok()
            };
            if let (Some(local), Some(remote), Some(inode)) = (
                fields.get(1).and_then(|a| port(a)),
                fields.get(2).and_then(|a| port(a)),
                fields.get(9),
            ) && remote == remote_port
                && inodes.contains(*inode)
            {
                ports.insert(local);
            }
        }
    }
    ports
}

/// The bench database's backends serving `client` (a process on this machine): pids.
pub async fn backends_of(pool: &PgPool, client: u32, pg_port: u16) -> anyhow::Result<Vec<i32>> {
    let ports: Vec<i32> = ports_to(client, pg_port)
        .into_iter()
        .map(i32::from)
        .collect();
    Ok(sqlx::query_scalar(
        "SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND client_port = ANY($1)",
    )
    .bind(ports)
    .fetch_all(pool)
    .await?)
}

/// CPU ticks of every PostgreSQL process: the postmaster, the children it reaped, and its
/// live children.
pub fn postgres_ticks(postmaster: u32) -> Option<u64> {
    let own = proc_stat(postmaster)?;
    let mut total = own.ticks + own.children;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(stat) = proc_stat(pid)
            && stat.ppid == postmaster
        {
            total += stat.ticks;
        }
    }
    Some(total)
}

/// What one run cost in CPU seconds, by side (`None`: could not be read here, e.g. a
/// PostgreSQL on another machine).
#[derive(Debug, Default, Clone)]
pub struct CpuSplit {
    /// The client process (the API, or pgbench's own is not counted).
    pub api: Option<f64>,
    pub pgbouncer: Option<f64>,
    /// The backends of the client that talks to PostgreSQL: how many, and their CPU.
    pub backends: Option<(usize, f64)>,
    pub postgres_all: Option<f64>,
}

impl CpuSplit {
    /// One line: microseconds of CPU per request (or transaction) on each side.
    pub fn per(&self, units: u64, unit: &str) -> String {
        let us = |seconds: f64| format!("{:.0} µs", seconds * 1e6 / units.max(1) as f64);
        let mut parts = Vec::new();
        if let Some(api) = self.api {
            parts.push(format!("API {}", us(api)));
        }
        if let Some(pgbouncer) = self.pgbouncer {
            parts.push(format!("PgBouncer {}", us(pgbouncer)));
        }
        let all = self.postgres_all.map_or_else(
            || "all postgres processes: n/a".into(),
            |s| format!("all postgres processes {}", us(s)),
        );
        match self.backends {
            Some((count, seconds)) => parts.push(format!(
                "PostgreSQL {} ({count} backends; {all})",
                us(seconds)
            )),
            None => parts.push(format!("PostgreSQL backends: n/a ({all})")),
        }
        format!("{} per {unit}", parts.join(", "))
    }

    /// The backends' CPU per unit, in seconds.
    pub fn backend_seconds_per(&self, units: u64) -> Option<f64> {
        self.backends.map(|(_, s)| s / units.max(1) as f64)
    }
}

/// Where the CPU accounting reads from: the bench's pool (for `pg_stat_activity`), the
/// postmaster's pid when PostgreSQL runs here, and its port.
#[derive(Clone)]
pub struct CpuProbe {
    pub pool: PgPool,
    pub hz: f64,
    pub postmaster: Option<u32>,
    pub pg_port: u16,
}

impl CpuProbe {
    pub async fn new(pool: PgPool, pg_port: u16) -> Self {
        let own: Option<i32> = sqlx::query_scalar("SELECT pg_backend_pid()")
            .fetch_one(&pool)
            .await
            .ok();
        let postmaster = own
            .and_then(|pid| u32::try_from(pid).ok())
            .and_then(proc_stat)
            .map(|s| s.ppid)
            .filter(|pid| *pid > 1);
        Self {
            pool,
            hz: ticks_per_second(),
            postmaster,
            pg_port,
        }
    }

    /// Starts measuring: `api` and `pgbouncer` are read now and at the end, the backends of
    /// `client` (the process connected to PostgreSQL) all along.
    pub async fn start(&self, api: Option<u32>, pgbouncer: Option<u32>, client: u32) -> CpuRun {
        let window: Option<time::OffsetDateTime> = sqlx::query_scalar("SELECT clock_timestamp()")
            .fetch_one(&self.pool)
            .await
            .ok();
        let (stop, stopped) = oneshot::channel();
        let sampler = tokio::spawn(sample_backends(
            self.pool.clone(),
            client,
            self.pg_port,
            window,
            stopped,
        ));
        CpuRun {
            probe: self.clone(),
            api: api.and_then(|pid| Some((pid, proc_stat(pid)?.ticks))),
            pgbouncer: pgbouncer.and_then(|pid| Some((pid, proc_stat(pid)?.ticks))),
            postgres_all: self.postmaster.and_then(postgres_ticks),
            stop,
            sampler,
        }
    }
}

pub struct CpuRun {
    probe: CpuProbe,
    api: Option<(u32, u64)>,
    pgbouncer: Option<(u32, u64)>,
    postgres_all: Option<u64>,
    stop: oneshot::Sender<()>,
    sampler: JoinHandle<Option<(usize, u64)>>,
}

impl CpuRun {
    pub async fn finish(self) -> CpuSplit {
        let hz = self.probe.hz;
        let since = |before: Option<(u32, u64)>| -> Option<f64> {
            let (pid, ticks) = before?;
            Some(proc_stat(pid)?.ticks.saturating_sub(ticks) as f64 / hz)
        };
        let api = since(self.api);
        let pgbouncer = since(self.pgbouncer);
        let postgres_all = self.postgres_all.and_then(|before| {
            let after = postgres_ticks(self.probe.postmaster?)?;
            Some(after.saturating_sub(before) as f64 / hz)
        });
        let _ = self.stop.send(());
        let backends = self
            .sampler
            .await
            .ok()
            .flatten()
            .map(|(count, ticks)| (count, ticks as f64 / hz));
        CpuSplit {
            api,
            pgbouncer,
            backends,
            postgres_all,
        }
    }
}

/// Reads the CPU of `client`'s backends every [`SAMPLE_EVERY`] until stopped: how many
/// there were and the ticks they used in the window. A backend that began inside the window
/// counts from zero, one that was there before from when it was first seen.
async fn sample_backends(
    pool: PgPool,
    client: u32,
    pg_port: u16,
    window: Option<time::OffsetDateTime>,
    mut stopped: oneshot::Receiver<()>,
) -> Option<(usize, u64)> {
    let window = window?;
    let started = Instant::now();
    // pid -> (ticks at the start of the window, ticks when last seen)
    let mut seen: HashMap<i32, (u64, u64)> = HashMap::new();
    let mut readable = false;
    let mut last = false;
    loop {
        let ports: Vec<i32> = ports_to(client, pg_port)
            .into_iter()
            .map(i32::from)
            .collect();
        let rows: Vec<(i32, bool)> = sqlx::query_as(
            "SELECT pid, backend_start >= $1 FROM pg_stat_activity
              WHERE datname = current_database() AND client_port = ANY($2)",
        )
        .bind(window)
        .bind(ports)
        .fetch_all(&pool)
        .await
        .unwrap_or_default();
        for (pid, born_inside) in rows {
            let Some(stat) = u32::try_from(pid).ok().and_then(proc_stat) else {
                continue;
            };
            readable = true;
            let entry = seen
                .entry(pid)
                .or_insert((if born_inside { 0 } else { stat.ticks }, stat.ticks));
            entry.1 = entry.1.max(stat.ticks);
        }
        if last || started.elapsed() > SAMPLE_AT_MOST {
            break;
        }
        // Once stopped, one last reading, so the window's end is counted.
        tokio::select! {
            _ = &mut stopped => last = true,
            () = tokio::time::sleep(SAMPLE_EVERY) => {}
        }
    }
    if !readable {
        return None;
    }
    let ticks = seen.values().map(|(first, last)| last - first).sum();
    Some((seen.len(), ticks))
}
