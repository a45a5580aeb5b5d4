//! Load benchmark: the release binary serving HTTP against local PostgreSQL and Redis, driven
//! by `wrk` from a separate process, each figure beside a baseline measured in the same run.
//!
//! 1. The tenant read path, against `pgbench -S -M prepared -c 8 -j 2` on the same server
//!    (run before and after, averaged), 32 connections, a workspace token at random per
//!    request:
//!    (a) `GET /api/agents` over `BENCH_HOT` (50) workspaces; (b) the same over `BENCH_WIDE`
//!    (2 000) workspaces; (c) every token in one workspace (the control: no tenant switching);
//!    (d) `GET /api/conversations?assignee=all` over the 50, each seeded with a few
//!    conversations, while new messages and conversations are written at a low rate; (e) (a)
//!    and (b) again through a PgBouncer of the benchmark's own (transaction pooling, with
//!    prepared statements: PgBouncer 1.21+, which `.ci/bench` provides) in front of the same
//!    database, served by a second API process with `DATABASE_POOLER=pgbouncer`
//!    ("skipped: why" when that API cannot run there). For
//!    (a), (b) and (e), and for pgbench, CPU per request on each side: the API (and
//!    PgBouncer) from `/proc/<pid>/stat`, PostgreSQL as the backends serving that process's
//!    connections (and all postgres processes). With `perf` available, a second run of (a)
//!    is profiled system-wide.
//! 2. An open-loop probe of other authenticated endpoints, idle and then during a flood of
//!    valid logins (more connections than cores), beside raw argon2 verifies per second.
//! 3. Workspace provisioning (`POST /workspaces`, 50 one at a time) on an empty database, at
//!    `BENCH_WIDE` and at `BENCH_TENANTS` workspaces (the bulk in between 4 at a time), with
//!    the worker (`supportdesk-worker`, `SPARE_SCHEMAS=BENCH_SPARES`) running all along and
//!    given up to `BENCH_SPARE_WAIT` seconds before each batch to have 50 spare schemas ready.
//! 4. `supportdesk tenants migrate` with nothing to do, and one new migration, across them all.
//! 5. The API's resident memory after serving every one of the workspaces; the proportional
//!    set size of its pool's PostgreSQL backends after (b) and after serving them all.
//!
//! Needs PostgreSQL and Redis as the tests do (`TEST_DATABASE_URL`, `TEST_REDIS_URL`), `wrk`,
//! `pgbench` and `psql` on the PATH, the release worker beside the release API binary
//! (`cargo build --release -p supportdesk-worker`; without it provisioning runs without
//! spares) and, for (e), `pgbouncer`. Run everything with `bash .ci/bench`, or this part with
//! `cargo bench --bench load`. Knobs: `BENCH_TENANTS` (10000), `BENCH_HOT` (50), `BENCH_WIDE`
//! (2000), `BENCH_SECONDS` (20, per measured run), `BENCH_CONNECTIONS` (32),
//! `BENCH_LOGIN_CONNECTIONS` (4 x cores), `BENCH_PROBE_RATE` (100 requests/s),
//! `BENCH_PGBENCH_SCALE` (10), `BENCH_CONVERSATIONS` (5 per hot workspace), `BENCH_WRITE_RATE`
//! (4 writes/s during (d)), `BENCH_SPARES` (60), `BENCH_SPARE_WAIT` (120 s),
//! `BENCH_WIDE_WARM_UP` (20 s of load before each `BENCH_WIDE` run), `BENCH_PGBOUNCER` (1; 0
//! skips (e)), `BENCH_PERF` (1: profile when `perf` works; 0: skip), `BENCH_PERF_PATH` (the
//! path the profiled run reads over the hot workspaces, `/api/agents`), `BENCH_SERVER_ENV`
//! (`NAME=value,...` for the API, to try settings). Reports go to
//! `$CARGO_TARGET_TMPDIR/bench-load/`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test and benchmark harness: a failure here is a failed run, with its message"
)]

#[path = "common/mod.rs"]
mod common;
#[path = "load/cpu.rs"]
mod cpu;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use common::{
    apply_one_new_migration, insert_users, jwt_keys, knob, ms, percentile, post_json,
    select_workspace,
};
use cpu::{CpuProbe, CpuSplit};
use futures::StreamExt;
use serde_json::{Value, json};
use sqlx::PgPool;
use supportdesk::credentials::password::{Password, PasswordHasher};
use supportdesk::workspaces::provision::add_profile;
use supportdesk_core::config::Settings;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::pgbouncer::{MAX_PREPARED_STATEMENTS, PgBouncer, PoolMode, Upstream};
use supportdesk_test_support::process::KillOnDrop;
use supportdesk_test_support::{free_port, test_env};
use uuid::Uuid;

const PASSWORD: &str = "Bench-Passw0rd";
/// Members of each hot workspace besides its owner.
const EXTRA_AGENTS: usize = 4;
/// Workspaces provisioned one at a time at each point of target 3.
const BATCH: usize = 50;
/// Seconds of load before each measured run over the hot workspaces.
const WARM_UP: usize = 3;
/// The settings that bound the PostgreSQL backends' memory.
const MEMORY_SETTINGS: [&str; 3] = [
    "DATABASE_MAX_CONNECTIONS",
    "DATABASE_STATEMENT_CACHE",
    "DATABASE_CONNECTION_LIFETIME_SECONDS",
];

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

struct Knobs {
    tenants: usize,
    hot: usize,
    wide: usize,
    seconds: usize,
    connections: usize,
    login_connections: usize,
    probe_rate: usize,
    pgbench_scale: usize,
    conversations: usize,
    write_rate: usize,
    spares: usize,
    spare_wait: Duration,
    wide_warm_up: usize,
    pgbouncer: bool,
    perf: bool,
    perf_path: String,
}

impl Knobs {
    fn from_env() -> Self {
        let hot = knob("BENCH_HOT", 50).max(1);
        let tenants = knob("BENCH_TENANTS", 10_000).max(hot).max(2 * BATCH);
        Self {
            tenants,
            hot,
            wide: knob("BENCH_WIDE", 2_000).clamp(hot, tenants),
            seconds: knob("BENCH_SECONDS", 20).max(3),
            connections: knob("BENCH_CONNECTIONS", 32).max(1),
            login_connections: knob("BENCH_LOGIN_CONNECTIONS", 4 * cores()).max(1),
            probe_rate: knob("BENCH_PROBE_RATE", 100).max(1),
            pgbench_scale: knob("BENCH_PGBENCH_SCALE", 10).max(1),
            conversations: knob("BENCH_CONVERSATIONS", 5).max(1),
            write_rate: knob("BENCH_WRITE_RATE", 4).max(1),
            spares: knob("BENCH_SPARES", 60).max(BATCH),
            spare_wait: Duration::from_secs(knob("BENCH_SPARE_WAIT", 120) as u64),
            wide_warm_up: knob("BENCH_WIDE_WARM_UP", 20).max(WARM_UP),
            pgbouncer: knob("BENCH_PGBOUNCER", 1) == 1,
            perf: knob("BENCH_PERF", 1) == 1,
            perf_path: std::env::var("BENCH_PERF_PATH")
                .ok()
                .filter(|p| p.starts_with('/'))
                .unwrap_or_else(|| "/api/agents".into()),
        }
    }
}

fn main() -> anyhow::Result<()> {
    // Named threads, so a system-wide profile tells this process apart from the server's
    // `tokio-rt-worker` threads.
    tokio::runtime::Builder::new_multi_thread()
        .thread_name("bench-client")
        .enable_all()
        .build()?
        .block_on(run(Knobs::from_env()))
}

/// SIGTERM to a child, then up to `limit` for it to exit; `None` if it did not (the caller's
/// `KillOnDrop` ends it).
fn terminate(child: &mut KillOnDrop, limit: Duration) -> Option<std::process::ExitStatus> {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(_) => return None,
        }
    }
    None
}

/// The server under test: the release binary as a child process.
struct Server {
    child: KillOnDrop,
    base: String,
    log: PathBuf,
}

impl Server {
    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `VmRSS` and `VmHWM` (peak) of the server, in MiB.
    fn memory(&self) -> anyhow::Result<(f64, f64)> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))?;
        let field = |name: &str| -> anyhow::Result<f64> {
            let line = status
                .lines()
                .find(|l| l.starts_with(name))
                .with_context(|| format!("{name} in /proc/pid/status"))?;
            let kib: f64 = line.split_whitespace().nth(1).context("value")?.parse()?;
            Ok(kib / 1024.0)
        };
        Ok((field("VmRSS:")?, field("VmHWM:")?))
    }

    /// Keeps the server's memory map (`/proc/pid/smaps`) among the reports.
    fn save_smaps(&self, out: &Path, label: &str) {
        let _ = std::fs::copy(
            format!("/proc/{}/smaps", self.pid()),
            out.join(format!("server-smaps-{label}.txt")),
        );
    }

    /// ERROR lines in the server's log.
    fn error_lines(&self) -> usize {
        std::fs::read_to_string(&self.log)
            .map_or(0, |l| l.lines().filter(|l| l.contains("\"ERROR\"")).count())
    }

    /// The error of the first ERROR line in the server's log, shortened.
    fn first_error(&self) -> Option<String> {
        let log = std::fs::read_to_string(&self.log).ok()?;
        let line = log.lines().find(|l| l.contains("\"ERROR\""))?;
        let error = serde_json::from_str::<Value>(line)
            .ok()
            .and_then(|v| {
                v.get("error")
                    .or_else(|| v.get("message"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| line.to_owned());
        Some(error.chars().take(300).collect())
    }

    /// SIGTERM, then wait for the drain to finish (40 s at most).
    fn stop(mut self) -> anyhow::Result<()> {
        match terminate(&mut self.child, Duration::from_secs(40)) {
            Some(status) => {
                ensure!(status.success(), "server exited with {status}");
                Ok(())
            }
            None => bail!("the server did not stop within 40 s of SIGTERM"),
        }
    }
}

async fn start_server(
    env: &HashMap<String, String>,
    work: &Path,
    client: &reqwest::Client,
    log_name: &str,
) -> anyhow::Result<Server> {
    let port = free_port();
    let log = work.join(log_name);
    let child = Command::new(env!("CARGO_BIN_EXE_supportdesk"))
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .env_clear()
        .envs(env)
        .current_dir(work)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log)?)
        .spawn()
        .context("starting supportdesk serve")?;
    let mut server = Server {
        child: KillOnDrop(child),
        base: format!("http://127.0.0.1:{port}"),
        log,
    };
    for _ in 0..100 {
        if let Some(status) = server.child.try_wait()? {
            bail!(
                "the server exited with {status}; its log:\n{}",
                std::fs::read_to_string(&server.log).unwrap_or_default()
            );
        }
        if let Ok(response) = client.get(format!("{}/healthz", server.base)).send().await
            && response.status() == 200
        {
            return Ok(server);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!(
        "the server did not become healthy within 10 s; its log:\n{}",
        std::fs::read_to_string(&server.log).unwrap_or_default()
    )
}

/// The worker as a child process for the whole run: it keeps spare schemas ready.
struct Worker {
    child: KillOnDrop,
    log: PathBuf,
}

impl Worker {
    /// The release worker beside the release API binary (`cargo build --release -p
    /// supportdesk-worker`), with the API's database, Redis namespace and email secret,
    /// `.eml` files for mail and `SPARE_SCHEMAS=spares`.
    async fn start(
        env: &HashMap<String, String>,
        work: &Path,
        spares: usize,
    ) -> anyhow::Result<Self> {
        let binary =
            Path::new(env!("CARGO_BIN_EXE_supportdesk")).with_file_name("supportdesk-worker");
        ensure!(
            binary.is_file(),
            "{} is not built (cargo build --release -p supportdesk-worker)",
            binary.display()
        );
        let mut worker_env: HashMap<String, String> = [
            "ConnectionStrings__DefaultConnection",
            "EMAIL_TOKEN_SECRET",
            "REDIS_URL",
            "REDIS_NAMESPACE",
            "APP_URL",
            "ASPNETCORE_ENVIRONMENT",
            "RUST_LOG",
        ]
        .into_iter()
        .filter_map(|name| Some((name.to_owned(), env.get(name)?.clone())))
        .collect();
        for (name, value) in [
            ("MAIL_TRANSPORT", "file".to_owned()),
            ("MAIL_DIR", work.join("mail").display().to_string()),
            ("SPARE_SCHEMAS", spares.to_string()),
            ("WORKER_HEALTH_PORT", free_port().to_string()),
        ] {
            worker_env.insert(name.to_owned(), value);
        }
        let log = work.join("worker.log");
        let child = Command::new(&binary)
            .env_clear()
            .envs(&worker_env)
            .current_dir(work)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log)?)
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        let mut worker = Self {
            child: KillOnDrop(child),
            log,
        };
        tokio::time::sleep(Duration::from_secs(1)).await;
        if let Some(status) = worker.child.try_wait()? {
            bail!(
                "the worker exited with {status}: {}",
                std::fs::read_to_string(&worker.log).unwrap_or_default()
            );
        }
        Ok(worker)
    }

    fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn stop(mut self) {
        let _ = terminate(&mut self.child, Duration::from_secs(30));
    }
}

/// Spare schemas ready now, or `None` when this build has no `public.spare_schemas`.
async fn spares_ready(pool: &PgPool) -> anyhow::Result<Option<i64>> {
    let table: bool = sqlx::query_scalar("SELECT to_regclass('public.spare_schemas') IS NOT NULL")
        .fetch_one(pool)
        .await?;
    if !table {
        return Ok(None);
    }
    Ok(Some(
        sqlx::query_scalar("SELECT count(*) FROM public.spare_schemas")
            .fetch_one(pool)
            .await?,
    ))
}

/// Waits (at most `limit`) until the worker has `want` spare schemas ready; what was found,
/// for the report.
async fn wait_for_spares(
    pool: &PgPool,
    worker: &mut Option<Worker>,
    want: usize,
    limit: Duration,
) -> anyhow::Result<String> {
    let Some(worker) = worker.as_mut() else {
        return Ok("no worker: provisioned without spares".into());
    };
    let started = Instant::now();
    loop {
        let Some(ready) = spares_ready(pool).await? else {
            return Ok("no public.spare_schemas: provisioned without spares".into());
        };
        if ready >= want as i64 {
            return Ok(format!(
                "{ready} spares ready (waited {:.1} s)",
                started.elapsed().as_secs_f64()
            ));
        }
        if !worker.running() {
            return Ok(format!("{ready} spares ready; the worker has exited"));
        }
        if started.elapsed() > limit {
            return Ok(format!(
                "{ready} of {want} spares ready after {} s",
                limit.as_secs()
            ));
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// What one wrk run reports (its Lua `done` prints one `WRK ...` line).
#[derive(Debug, Default, Clone, Copy)]
struct WrkResult {
    requests: u64,
    seconds: f64,
    errors: u64,
    p50: Duration,
    p99: Duration,
    max: Duration,
}

impl WrkResult {
    fn rate(&self) -> f64 {
        self.requests as f64 / self.seconds
    }

    fn parse(output: &str) -> anyhow::Result<Self> {
        let line = output
            .lines()
            .find(|l| l.starts_with("WRK "))
            .with_context(|| format!("no result line in wrk's output:\n{output}"))?;
        let fields: HashMap<&str, u64> = line
            .split_whitespace()
            .skip(1)
            .filter_map(|kv| kv.split_once('='))
            .filter_map(|(k, v)| Some((k, v.parse().ok()?)))
            .collect();
        let get = |k: &str| fields.get(k).copied().unwrap_or(0);
        Ok(Self {
            requests: get("requests"),
            seconds: get("duration_us") as f64 / 1e6,
            errors: ["connect", "read", "write", "status", "timeout"]
                .iter()
                .map(|k| get(k))
                .sum(),
            p50: Duration::from_micros(get("p50")),
            p99: Duration::from_micros(get("p99")),
            max: Duration::from_micros(get("max")),
        })
    }
}

/// Runs wrk with one of the Lua scripts in `benches/load/`; waits for it.
async fn wrk(
    script: &str,
    base: &str,
    connections: usize,
    seconds: usize,
    args: &[&str],
) -> anyhow::Result<WrkResult> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/load")
        .join(script);
    let threads = connections.clamp(1, 2);
    let output = tokio::process::Command::new("wrk")
        .arg(format!("-t{threads}"))
        .arg(format!("-c{connections}"))
        .arg(format!("-d{seconds}s"))
        .arg("--timeout")
        .arg("10s")
        .arg("-s")
        .arg(&script)
        .arg(base)
        .arg("--")
        .args(args)
        .kill_on_drop(true)
        .output()
        .await
        .context("running wrk (install it: apt-get install wrk)")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    ensure!(
        output.status.success(),
        "wrk failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    WrkResult::parse(&stdout)
}

/// A measured wrk run and, when it was measured, the CPU it cost on each side and the
/// PostgreSQL transactions (of the whole database) per request.
struct Measured {
    /// The warm-up before it: the connections' first statements in these workspaces.
    warm_up: WrkResult,
    run: WrkResult,
    cpu: Option<CpuSplit>,
    transactions: Option<f64>,
}

/// Which processes a measured run reads the CPU of: the API, PgBouncer when it is in the
/// path (then the PostgreSQL backends are PgBouncer's, else the API's).
#[derive(Clone, Copy)]
struct Sides<'a> {
    probe: &'a CpuProbe,
    api: u32,
    pgbouncer: Option<u32>,
}

/// `wrk` with `agents.lua` for `seconds` after a warm-up of `warm_up` seconds, GET `path`
/// with a token from `tokens` at random per request; with `sides`, the CPU per side and the
/// transactions per request (PostgreSQL's counters lag by up to a second: 2 s pauses around
/// the run).
///
/// The warm-up is the steady state's price, paid once per connection: a connection's first
/// read in a workspace prepares its statement and loads that schema's catalog entries into
/// its backend. Over 2 000 workspaces that is ~500 first reads per connection (a shard's
/// share), so those runs warm up for `BENCH_WIDE_WARM_UP` seconds and report the warm-up's
/// own rate beside the measured one.
async fn read_run(
    base: &str,
    knobs: &Knobs,
    (tokens, warm_up): (&Path, usize),
    path: &str,
    sides: Option<Sides<'_>>,
) -> anyhow::Result<Measured> {
    let args = [tokens.to_str().context("path")?, path];
    let warm_up = wrk("agents.lua", base, knobs.connections, warm_up, &args).await?;
    let Some(sides) = sides else {
        let run = wrk("agents.lua", base, knobs.connections, knobs.seconds, &args).await?;
        return Ok(Measured {
            warm_up,
            run,
            cpu: None,
            transactions: None,
        });
    };
    tokio::time::sleep(Duration::from_secs(2)).await;
    let transactions_before = transactions(&sides.probe.pool).await?;
    let meter = sides
        .probe
        .start(
            Some(sides.api),
            sides.pgbouncer,
            sides.pgbouncer.unwrap_or(sides.api),
        )
        .await;
    let run = wrk("agents.lua", base, knobs.connections, knobs.seconds, &args).await;
    let cpu = meter.finish().await;
    let run = run?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let transactions = (transactions(&sides.probe.pool).await? - transactions_before) as f64
        / run.requests.max(1) as f64;
    Ok(Measured {
        warm_up,
        run,
        cpu: Some(cpu),
        transactions: Some(transactions),
    })
}

/// One pgbench run: its rate, its transactions, and the CPU of its backends.
struct PgbenchRun {
    tps: f64,
    transactions: u64,
    cpu: CpuSplit,
}

/// `pgbench -S -M prepared -c 8 -j 2` for `seconds`, with the CPU of the PostgreSQL
/// backends serving it.
async fn pgbench(url: &str, seconds: usize, probe: &CpuProbe) -> anyhow::Result<PgbenchRun> {
    let child = tokio::process::Command::new("pgbench")
        .args(["-n", "-S", "-M", "prepared", "-c", "8", "-j", "2", "-T"])
        .arg(seconds.to_string())
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .context("running pgbench")?;
    let pid = child.id().context("pgbench's pid")?;
    let meter = probe.start(None, None, pid).await;
    let output = tokio::time::timeout(
        Duration::from_secs(seconds as u64 + 60),
        child.wait_with_output(),
    )
    .await;
    let cpu = meter.finish().await;
    let output = output.context("pgbench did not finish in time")??;
    let stdout = String::from_utf8_lossy(&output.stdout);
    ensure!(
        output.status.success(),
        "pgbench failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tps: f64 = stdout
        .lines()
        .find(|l| l.starts_with("tps = "))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|v| v.parse().ok())
        .with_context(|| format!("no tps in pgbench's output:\n{stdout}"))?;
    let transactions = stdout
        .lines()
        .find_map(|l| l.strip_prefix("number of transactions actually processed: "))
        .and_then(|v| v.split('/').next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or((tps * seconds as f64) as u64);
    Ok(PgbenchRun {
        tps,
        transactions,
        cpu,
    })
}

/// Raw argon2 verifies per second, `threads` at once, with the parameters the product hashes
/// with (read back from one of its hashes).
fn argon2_verifies_per_second(hash: &str, threads: usize, seconds: f64) -> f64 {
    use argon2::password_hash::{PasswordHash, PasswordVerifier};
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let started = Instant::now();
    let done: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let parsed = PasswordHash::new(hash).expect("a PHC hash");
                    let mut n = 0;
                    while Instant::now() < deadline {
                        argon2::Argon2::default()
                            .verify_password(PASSWORD.as_bytes(), &parsed)
                            .expect("the bench password verifies");
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("verifier"))
            .sum()
    });
    done as f64 / started.elapsed().as_secs_f64()
}

/// Latencies of an open-loop probe: `rate` requests a second for `seconds`, alternating
/// `GET /api/agents` and `GET /auth/me`, each timed from when it was due (so a stalled server
/// is not hidden by the probe waiting for it).
#[derive(Debug, Default)]
struct Probe {
    sorted: Vec<Duration>,
    errors: usize,
}

async fn probe(
    client: &reqwest::Client,
    base: &str,
    tokens: &Arc<Vec<String>>,
    rate: usize,
    seconds: usize,
) -> Probe {
    let interval = Duration::from_secs_f64(1.0 / rate as f64);
    let started = tokio::time::Instant::now();
    let mut tasks = Vec::with_capacity(rate * seconds);
    for i in 0..rate * seconds {
        let due = started + interval * i as u32;
        tokio::time::sleep_until(due).await;
        let client = client.clone();
        let path = if i % 2 == 0 {
            "/api/agents"
        } else {
            "/auth/me"
        };
        let url = format!("{base}{path}");
        let token = tokens[rand::random_range(0..tokens.len())].clone();
        tasks.push(tokio::spawn(async move {
            let ok = match client.get(url).bearer_auth(token).send().await {
                Ok(response) => response.status() == 200 && response.bytes().await.is_ok(),
                Err(_) => false,
            };
            (due.elapsed(), ok)
        }));
    }
    let mut result = Probe::default();
    for task in tasks {
        let (latency, ok) = task.await.expect("probe request");
        result.sorted.push(latency);
        result.errors += usize::from(!ok);
    }
    result.sorted.sort();
    result
}

/// One workspace of the benchmark, its owner's workspace token and schema.
#[derive(Clone)]
struct Workspace {
    id: Uuid,
    schema: TenantSchema,
}

/// Creates workspaces owned by `owners` over HTTP, `concurrency` at a time: each one's
/// workspace and request duration (sorted separately).
async fn provision(
    client: &reqwest::Client,
    base: &str,
    owners: &[(Uuid, String)],
    concurrency: usize,
    first_index: usize,
) -> anyhow::Result<(Vec<Workspace>, Vec<Duration>)> {
    let results: Vec<anyhow::Result<(Workspace, Duration)>> =
        futures::stream::iter(owners.iter().enumerate())
            .map(|(i, (_, token))| async move {
                let started = Instant::now();
                let created = post_json(
                    client,
                    format!("{base}/workspaces"),
                    token,
                    json!({ "name": format!("Bench {}", first_index + i) }),
                )
                .await?;
                let elapsed = started.elapsed();
                let id: Uuid = created["id"].as_str().context("id")?.parse()?;
                Ok((
                    Workspace {
                        id,
                        schema: TenantSchema::for_workspace(id),
                    },
                    elapsed,
                ))
            })
            .buffered(concurrency)
            .collect()
            .await;
    let mut workspaces = Vec::new();
    let mut times = Vec::new();
    for result in results {
        let (workspace, elapsed) = result?;
        workspaces.push(workspace);
        times.push(elapsed);
    }
    times.sort();
    Ok((workspaces, times))
}

/// Workspace tokens for (user token, workspace) pairs, over HTTP.
async fn select_all(
    client: &reqwest::Client,
    base: &str,
    pairs: Vec<(String, Uuid)>,
) -> anyhow::Result<Vec<String>> {
    futures::stream::iter(pairs)
        .map(|(token, workspace)| async move {
            select_workspace(client, base, &token, workspace).await
        })
        .buffered(16)
        .collect::<Vec<anyhow::Result<String>>>()
        .await
        .into_iter()
        .collect()
}

/// Transactions PostgreSQL has counted in this database so far.
async fn transactions(pool: &PgPool) -> anyhow::Result<i64> {
    Ok(sqlx::query_scalar(
        "SELECT (xact_commit + xact_rollback)::bigint FROM pg_stat_database
          WHERE datname = current_database()",
    )
    .fetch_one(pool)
    .await?)
}

/// Proportional set size (MiB) of the PostgreSQL backends serving the API's pool (the
/// backends of `api`'s connections), when they run on this machine: how many, and the sum.
async fn backend_memory(probe: &CpuProbe, api: u32) -> Option<(usize, f64)> {
    let pids = cpu::backends_of(&probe.pool, api, probe.pg_port)
        .await
        .ok()?;
    let mut total = 0.0;
    for pid in &pids {
        let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
        let kib: f64 = rollup
            .lines()
            .find(|l| l.starts_with("Pss:"))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()?;
        total += kib / 1024.0;
    }
    Some((pids.len(), total))
}

/// A new conversation in a workspace, started over HTTP by a member: its id.
async fn start_conversation(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    n: usize,
) -> anyhow::Result<Uuid> {
    let created = post_json(
        client,
        format!("{base}/api/conversations"),
        token,
        json!({
            "contact": { "email": format!("contact-{n}@bench.test"), "name": format!("Contact {n}") },
            "subject": format!("Bench question {n}"),
            "body": "Hello, thanks for writing in. We are looking into it.",
        }),
    )
    .await?;
    Ok(created["id"].as_str().context("id")?.parse()?)
}

/// `per_workspace` conversations in each workspace of `tokens` (one workspace token each):
/// (that token, conversation id).
async fn seed_conversations(
    client: &reqwest::Client,
    base: &str,
    tokens: &[String],
    per_workspace: usize,
) -> anyhow::Result<Vec<(String, Uuid)>> {
    futures::stream::iter(tokens.iter().enumerate())
        .flat_map(|(w, token)| {
            futures::stream::iter((0..per_workspace).map(move |c| (w * per_workspace + c, token)))
        })
        .map(|(n, token)| async move {
            Ok((
                token.clone(),
                start_conversation(client, base, token, n).await?,
            ))
        })
        .buffered(8)
        .collect::<Vec<anyhow::Result<(String, Uuid)>>>()
        .await
        .into_iter()
        .collect()
}

/// What the writer of target 1 (d) did.
#[derive(Debug, Default)]
struct Writes {
    messages: usize,
    conversations: usize,
    errors: usize,
    seconds: f64,
}

/// Writes at `rate` a second for `seconds` while the list is read: a reply in a seeded
/// conversation at random, and every tenth write a new conversation in a workspace at random,
/// so the lists really change (new rows, new order).
async fn write_during(
    client: &reqwest::Client,
    base: &str,
    seeded: &[(String, Uuid)],
    workspace_tokens: &[String],
    rate: usize,
    seconds: usize,
) -> Writes {
    let mut writes = Writes::default();
    if seeded.is_empty() || workspace_tokens.is_empty() {
        return writes;
    }
    let interval = Duration::from_secs_f64(1.0 / rate as f64);
    let started = tokio::time::Instant::now();
    let deadline = started + Duration::from_secs(seconds as u64);
    for i in 0..rate * seconds {
        let due = started + interval * i as u32;
        if due >= deadline {
            break;
        }
        tokio::time::sleep_until(due).await;
        let ok = if i % 10 == 9 {
            let token = &workspace_tokens[rand::random_range(0..workspace_tokens.len())];
            let n = 1_000_000 + i;
            let ok = start_conversation(client, base, token, n).await.is_ok();
            writes.conversations += usize::from(ok);
            ok
        } else {
            let (token, id) = &seeded[rand::random_range(0..seeded.len())];
            let ok = post_json(
                client,
                format!("{base}/api/conversations/{id}/messages"),
                token,
                json!({ "body": format!("Bench reply {i}") }),
            )
            .await
            .is_ok();
            writes.messages += usize::from(ok);
            ok
        };
        writes.errors += usize::from(!ok);
    }
    writes.seconds = started.elapsed().as_secs_f64();
    writes
}

/// A system-wide profile while `GET /api/agents` runs as in target 1; the report's summary
/// lines (the full reports stay in `out`).
async fn profile(
    base: &str,
    knobs: &Knobs,
    hot_tokens: &Path,
    out: &Path,
) -> anyhow::Result<Vec<String>> {
    let data = out.join("perf.data");
    let record_seconds = knobs.seconds.min(10);
    let tokens_arg = [hot_tokens.to_str().context("path")?, &knobs.perf_path];
    let load = wrk(
        "agents.lua",
        base,
        knobs.connections,
        record_seconds + 3,
        &tokens_arg,
    );
    let record = async {
        tokio::time::sleep(Duration::from_secs(1)).await;
        tokio::process::Command::new("perf")
            .args(["record", "-a", "-g", "-F", "999", "-o"])
            .arg(&data)
            .args(["--", "sleep", &record_seconds.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await
    };
    let (load, recorded) = tokio::join!(load, record);
    let load = load?;
    ensure!(recorded?.success(), "perf record failed");

    let report = |args: &[&str]| -> anyhow::Result<String> {
        let output = Command::new("perf")
            .arg("report")
            .arg("-i")
            .arg(&data)
            .args(["--stdio", "-q"])
            .args(args)
            .output()?;
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    };
    let by_command = report(&["--no-children", "--sort", "comm", "-g", "none"])?;
    std::fs::write(out.join("perf-by-process.txt"), &by_command)?;
    let api = report(&[
        "--no-children",
        "--comm",
        "tokio-rt-worker,tokio-runtime-w",
        "--percentage",
        "relative",
        "--sort",
        "dso,sym",
        "-g",
        "none",
    ])?;
    std::fs::write(out.join("perf-api-symbols.txt"), &api)?;
    let postgres = report(&[
        "--no-children",
        "--comm",
        "postgres",
        "--percentage",
        "relative",
        "--sort",
        "sym",
        "-g",
        "none",
    ])?;
    std::fs::write(out.join("perf-postgres-symbols.txt"), &postgres)?;
    let postgres_inclusive = report(&[
        "--children",
        "--comm",
        "postgres",
        "--percentage",
        "relative",
        "--sort",
        "sym",
        "-g",
        "none",
    ])?;
    std::fs::write(out.join("perf-postgres-inclusive.txt"), &postgres_inclusive)?;

    // CPU time per request: a process's share of all samples, times the cores, over the
    // requests served per second meanwhile.
    let share = |report: &str, name: &str| -> Option<f64> {
        report
            .lines()
            .find(|l| l.split_whitespace().last() == Some(name))?
            .split_whitespace()
            .next()?
            .trim_end_matches('%')
            .parse::<f64>()
            .ok()
            .map(|p| p / 100.0)
    };
    let per_request_us = |fraction: f64| fraction * cores() as f64 * 1e6 / load.rate();
    let mut lines = Vec::new();
    if let (Some(pg), Some(api)) = (
        share(&by_command, "postgres"),
        share(&by_command, "tokio-rt-worker").or_else(|| share(&by_command, "tokio-runtime-w")),
    ) {
        let planning = share(&postgres_inclusive, "GetCachedPlan").unwrap_or(0.0);
        lines.push(format!(
            "CPU per request at {:.0} req/s: PostgreSQL {:.0} us (of which {:.0} us re-analysing and re-planning \
             cached statements, GetCachedPlan), API {:.0} us",
            load.rate(),
            per_request_us(pg),
            per_request_us(pg * planning),
            per_request_us(api),
        ));
    }
    lines.push("CPU by process (all samples, both cores):".to_owned());
    lines.extend(
        by_command
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(8)
            .map(|l| format!("  {}", l.trim())),
    );
    lines.push("API threads, top symbols:".into());
    lines.extend(
        api.lines()
            .filter(|l| !l.trim().is_empty())
            .take(12)
            .map(|l| format!("  {}", l.trim())),
    );
    lines.push(
        "PostgreSQL, inclusive share of its time (exported symbols only; GetCachedPlan = bind-time (re)planning, set_config_option = SET LOCAL search_path):"
            .into(),
    );
    for symbol in [
        "PostgresMain",
        "secure_read",
        "secure_write",
        "pg_parse_query",
        "GetCachedPlan",
        "standard_planner",
        "PortalRun",
        "standard_ExecutorRun",
        "set_config_option",
        "StartTransactionCommand",
        "CommitTransactionCommand",
        "AbortCurrentTransaction",
    ] {
        if let Some(line) = postgres_inclusive
            .lines()
            .find(|l| l.split_whitespace().last() == Some(symbol))
        {
            lines.push(format!("  {}", line.trim()));
        }
    }
    Ok(lines)
}

struct Row {
    target: String,
    budget: String,
    measured: String,
    baseline: String,
    ratio: String,
    holds: Option<bool>,
}

fn row(
    target: impl Into<String>,
    budget: impl Into<String>,
    measured: impl Into<String>,
    baseline: impl Into<String>,
    ratio: impl Into<String>,
    holds: Option<bool>,
) -> Row {
    Row {
        target: target.into(),
        budget: budget.into(),
        measured: measured.into(),
        baseline: baseline.into(),
        ratio: ratio.into(),
        holds,
    }
}

/// What the benchmark's helpers share.
struct Ctx<'a> {
    knobs: &'a Knobs,
    client: &'a reqwest::Client,
    work: &'a Path,
    probe: &'a CpuProbe,
}

/// `%XX` escapes of a URL's user or password, decoded.
fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                decoded.push(byte);
                i += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

/// The benchmark database as PgBouncer's upstream, and the URL the API uses to reach it
/// through PgBouncer on `port` (plain TCP on loopback).
fn upstream(database: &TestDatabase) -> anyhow::Result<Upstream> {
    let url = url::Url::parse(&database.url)?;
    Ok(Upstream {
        host: url.host_str().unwrap_or("127.0.0.1").to_owned(),
        port: url.port().unwrap_or(5432),
        database: database.name.clone(),
        user: Some(percent_decode(url.username()))
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| "postgres".into()),
        password: url.password().map(percent_decode).unwrap_or_default(),
    })
}

fn url_through(database: &TestDatabase, port: u16) -> anyhow::Result<String> {
    let mut url = url::Url::parse(&database.url)?;
    url.set_host(Some("127.0.0.1"))?;
    url.set_port(Some(port))
        .map_err(|()| anyhow::anyhow!("cannot set the port of {}", database.name))?;
    url.set_query(Some("sslmode=disable"));
    Ok(url.to_string())
}

/// Target 1 (e): a second API process behind `pgbouncer`, (a) and (b) again. `Err`: why it
/// could not run (reported as skipped).
async fn behind_pgbouncer(
    ctx: &Ctx<'_>,
    env: &HashMap<String, String>,
    api_url: String,
    pgbouncer: &PgBouncer,
    tokens: (&Path, &Path, &str),
) -> Result<(Measured, Measured, usize), String> {
    let (hot, wide, one) = tokens;
    let mut env = env.clone();
    for (name, value) in [
        ("ConnectionStrings__DefaultConnection", api_url),
        ("DATABASE_POOLER", "pgbouncer".into()),
    ] {
        env.insert(name.to_owned(), value);
    }
    let server = match start_server(&env, ctx.work, ctx.client, "server-pgbouncer.log").await {
        Ok(server) => server,
        Err(err) => {
            let reason = pgbouncer.last_closing_reason().map_or_else(
                || {
                    format!("{err:#}")
                        .lines()
                        .take(3)
                        .collect::<Vec<_>>()
                        .join(" ")
                },
                |r| format!("PgBouncer closed its connections: {r}"),
            );
            return Err(format!(
                "the API did not become healthy behind PgBouncer ({reason})"
            ));
        }
    };
    let answer = ctx
        .client
        .get(format!("{}/api/agents", server.base))
        .bearer_auth(one)
        .send()
        .await;
    match answer {
        Ok(response) if response.status() == 200 => {}
        Ok(response) => {
            let status = response.status();
            let body: String = response
                .text()
                .await
                .unwrap_or_default()
                .chars()
                .take(200)
                .collect();
            let logged = server
                .first_error()
                .map_or_else(|| format!(": {body}"), |e| format!("; the API logged: {e}"));
            return Err(format!(
                "GET /api/agents behind PgBouncer answered {status}{logged}"
            ));
        }
        Err(err) => return Err(format!("GET /api/agents behind PgBouncer: {err}")),
    }
    let sides = Sides {
        probe: ctx.probe,
        api: server.pid(),
        pgbouncer: Some(pgbouncer.pid()),
    };
    let fifty = read_run(
        &server.base,
        ctx.knobs,
        (hot, WARM_UP),
        "/api/agents",
        Some(sides),
    )
    .await
    .map_err(|e| format!("{e:#}"))?;
    let wide_warm_up = ctx.knobs.wide_warm_up;
    let wide = read_run(
        &server.base,
        ctx.knobs,
        (wide, wide_warm_up),
        "/api/agents",
        Some(sides),
    )
    .await
    .map_err(|e| format!("{e:#}"))?;
    let errors = server.error_lines();
    server.stop().map_err(|e| format!("{e:#}"))?;
    Ok((fifty, wide, errors))
}

/// The warm-up before a wide run: what the first reads of fresh connections cost.
fn warm_up_row(label: &str, measured: &Measured, seconds: usize, pgbench: f64) -> Row {
    row(
        format!(
            "{label} ... its warm-up: the first {seconds} s on connections new to these workspaces (not the measure)"
        ),
        "",
        describe(&measured.warm_up),
        "",
        format!("{:.2}", measured.warm_up.rate() / pgbench),
        None,
    )
}

/// `measured` of a read run: rate, latency, errors.
fn describe(run: &WrkResult) -> String {
    format!(
        "{:.0} req/s; p50 {} / p99 {} / max {}; {} errors",
        run.rate(),
        ms(run.p50),
        ms(run.p99),
        ms(run.max),
        run.errors
    )
}

/// Holds: at least `share` of pgbench, p99 under 50 ms, no error.
fn read_holds(run: &WrkResult, pgbench: f64, share: f64) -> bool {
    run.rate() / pgbench >= share && run.p99 < Duration::from_millis(50) && run.errors == 0
}

/// The CPU row of a measured run, beside pgbench's CPU per transaction.
fn cpu_row(label: &str, measured: &Measured, pgbench_per_tx: Option<f64>, pgbench: &str) -> Row {
    let (text, ratio) = match &measured.cpu {
        Some(cpu) => (
            match measured.transactions {
                Some(t) => format!(
                    "{}; {t:.2} PostgreSQL transactions per request",
                    cpu.per(measured.run.requests, "request")
                ),
                None => cpu.per(measured.run.requests, "request"),
            },
            match (
                cpu.backend_seconds_per(measured.run.requests),
                pgbench_per_tx,
            ) {
                (Some(ours), Some(theirs)) if theirs > 0.0 => format!(
                    "PostgreSQL per request = {:.1} x per pgbench transaction",
                    ours / theirs
                ),
                _ => String::new(),
            },
        ),
        None => ("n/a".into(), String::new()),
    };
    row(
        format!("{label} ... CPU per request"),
        "",
        text,
        pgbench,
        ratio,
        None,
    )
}

/// Workspaces provisioned one at a time at one point of target 3.
struct ProvisionPoint {
    /// Workspaces there are once this batch is done.
    at: usize,
    times: Vec<Duration>,
    spares: String,
}

async fn run(knobs: Knobs) -> anyhow::Result<()> {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-load");
    std::fs::create_dir_all(&out)?;
    let work = tempdir()?;
    let client = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(256)
        .timeout(Duration::from_secs(30))
        .build()?;
    let started_all = Instant::now();
    let step = |what: &str| eprintln!("[{:>6.1} s] {what}", started_all.elapsed().as_secs_f64());

    step("creating the benchmark database");
    let database = TestDatabase::empty().await;
    let mut env = test_env(
        &database.url,
        &[
            ("ASPNETCORE_ENVIRONMENT", "Production"),
            ("TRUSTED_PROXIES", "127.0.0.1/32"),
            ("RUN_MIGRATIONS_ON_STARTUP", "false"),
        ],
    );
    // Experiments: `BENCH_SERVER_ENV="DATABASE_MAX_CONNECTIONS=8,RUST_LOG=warn"`.
    for pair in std::env::var("BENCH_SERVER_ENV")
        .unwrap_or_default()
        .split(',')
    {
        if let Some((name, value)) = pair.split_once('=') {
            env.insert(name.trim().to_owned(), value.trim().to_owned());
        }
    }
    let settings = Settings::load_from(None, Some(env.clone()))?;
    let cli = |args: &[&str]| -> anyhow::Result<Duration> {
        let started = Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_supportdesk"))
            .args(args)
            .env_clear()
            .envs(&env)
            .current_dir(&work)
            .output()?;
        ensure!(
            output.status.success(),
            "supportdesk {args:?}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        Ok(started.elapsed())
    };
    cli(&["migrate"])?;
    let pool = database.pool().await;
    let cpu_probe =
        CpuProbe::new(pool.clone(), database.settings.connect_options().get_port()).await;
    let ctx = Ctx {
        knobs: &knobs,
        client: &client,
        work: &work,
        probe: &cpu_probe,
    };

    step("initialising pgbench tables (in the benchmark database)");
    let status = Command::new("pgbench")
        .args(["-i", "-q", "-s", &knobs.pgbench_scale.to_string()])
        .arg(&database.url)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .context("running pgbench -i")?;
    ensure!(status.success(), "pgbench -i failed");

    step(&format!(
        "starting the worker (SPARE_SCHEMAS={})",
        knobs.spares
    ));
    let mut worker = match Worker::start(&env, &work, knobs.spares).await {
        Ok(worker) => Some(worker),
        Err(err) => {
            eprintln!("worker not running, provisioning without spares: {err:#}");
            None
        }
    };

    step("starting the API (release build)");
    let server = start_server(&env, &work, &client, "server.log").await?;
    let (rss_start, _) = server.memory()?;
    let base = server.base.clone();

    step("seeding users");
    let hash = PasswordHasher::new(1)?
        .hash(&Password::parse(PASSWORD.into()).map_err(|e| anyhow::anyhow!("{e:?}"))?)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let owners = insert_users(&pool, "owner-", knobs.tenants, &hash).await?;
    let agents = insert_users(&pool, "agent-", knobs.hot * EXTRA_AGENTS, &hash).await?;
    let jwt = jwt_keys(&settings)?;
    let user_token = |id: Uuid| jwt.issue_user(id, 0).map(|t| t.token);
    let owners: Vec<(Uuid, String)> = owners
        .iter()
        .map(|(id, _)| Ok((*id, user_token(*id)?)))
        .collect::<anyhow::Result<_>>()?;

    // 3. Provisioning: 50 one at a time on the empty database, at BENCH_WIDE and at
    // BENCH_TENANTS (each batch ends there), the bulk in between 4 at a time.
    let mut ends = vec![BATCH];
    if knobs.wide >= 2 * BATCH && knobs.wide + BATCH <= knobs.tenants {
        ends.push(knobs.wide);
    }
    ends.push(knobs.tenants);
    let mut workspaces: Vec<Workspace> = Vec::with_capacity(knobs.tenants);
    let mut points: Vec<ProvisionPoint> = Vec::new();
    let (mut bulk_count, mut bulk_time) = (0, Duration::ZERO);
    for end in ends {
        let start = end - BATCH;
        if start > workspaces.len() {
            let from = workspaces.len();
            step(&format!(
                "target 3: provisioning workspaces {}..{start}, 4 at a time",
                from + 1
            ));
            let started = Instant::now();
            let (bulk, _) = provision(&client, &base, &owners[from..start], 4, from).await?;
            bulk_time += started.elapsed();
            bulk_count += bulk.len();
            workspaces.extend(bulk);
        }
        let spares = wait_for_spares(&pool, &mut worker, BATCH, knobs.spare_wait).await?;
        step(&format!(
            "target 3: provisioning workspaces {}..{end} one at a time ({spares})",
            start + 1
        ));
        let (batch, times) = provision(&client, &base, &owners[start..end], 1, start).await?;
        workspaces.extend(batch);
        points.push(ProvisionPoint {
            at: end,
            times,
            spares,
        });
    }
    step("waiting for the worker to refill its spares (not during the measurements)");
    let refilled = wait_for_spares(&pool, &mut worker, knobs.spares, knobs.spare_wait).await?;
    eprintln!("  {refilled}");

    step("adding agents to the hot workspaces, selecting workspace tokens");
    let hot = &workspaces[..knobs.hot];
    for (i, workspace) in hot.iter().enumerate() {
        let mut tx = pool.begin().await?;
        for (user_id, _) in &agents[i * EXTRA_AGENTS..(i + 1) * EXTRA_AGENTS] {
            sqlx::query(
                "INSERT INTO public.memberships (workspace_id, user_id, role) VALUES ($1, $2, 'agent')",
            )
            .bind(workspace.id)
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
            add_profile(&mut tx, &workspace.schema, *user_id)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        tx.commit().await?;
    }
    let mut hot_pairs: Vec<(String, Uuid)> = Vec::new();
    for (i, workspace) in hot.iter().enumerate() {
        hot_pairs.push((owners[i].1.clone(), workspace.id));
        for (user_id, _) in &agents[i * EXTRA_AGENTS..(i + 1) * EXTRA_AGENTS] {
            hot_pairs.push((user_token(*user_id)?, workspace.id));
        }
    }
    let hot_tokens = Arc::new(select_all(&client, &base, hot_pairs).await?);
    let hot_tokens_file = work.join("hot-tokens.txt");
    std::fs::write(&hot_tokens_file, hot_tokens.join("\n"))?;
    let one_tokens_file = work.join("one-workspace-tokens.txt");
    std::fs::write(&one_tokens_file, hot_tokens[..=EXTRA_AGENTS].join("\n"))?;
    // The owners' workspace tokens of the hot workspaces: one per workspace.
    let hot_owner_tokens: Vec<String> = hot_tokens
        .iter()
        .step_by(1 + EXTRA_AGENTS)
        .cloned()
        .collect();
    let wide_pairs: Vec<(String, Uuid)> = owners[..knobs.wide]
        .iter()
        .zip(&workspaces[..knobs.wide])
        .map(|((_, token), workspace)| (token.clone(), workspace.id))
        .collect();
    let wide_tokens = select_all(&client, &base, wide_pairs).await?;
    let wide_tokens_file = work.join("wide-tokens.txt");
    std::fs::write(&wide_tokens_file, wide_tokens.join("\n"))?;
    let emails_file = work.join("login-emails.txt");
    let mut emails: Vec<String> = sqlx::query_scalar(
        "SELECT u.email FROM public.users u JOIN public.memberships m ON m.user_id = u.id
          WHERE m.workspace_id = ANY($1)",
    )
    .bind(hot.iter().map(|w| w.id).collect::<Vec<_>>())
    .fetch_all(&pool)
    .await?;
    emails.sort();
    std::fs::write(&emails_file, emails.join("\n"))?;
    step(&format!(
        "seeding {} conversations in each hot workspace",
        knobs.conversations
    ));
    let seeded = seed_conversations(&client, &base, &hot_owner_tokens, knobs.conversations).await?;

    // 1. The read path beside pgbench -S, before and after.
    // Provisioning leaves a checkpoint's worth of dirty pages: write them now, not during the
    // baseline or the measured runs.
    sqlx::query("CHECKPOINT").execute(&pool).await?;
    step("target 1: pgbench -S (before)");
    let pgbench_before = pgbench(&database.url, knobs.seconds, &cpu_probe).await?;
    let api_sides = Sides {
        probe: &cpu_probe,
        api: server.pid(),
        pgbouncer: None,
    };
    step(&format!(
        "target 1 (a): GET /api/agents over {} workspaces",
        knobs.hot
    ));
    let fifty = read_run(
        &base,
        &knobs,
        (&hot_tokens_file, WARM_UP),
        "/api/agents",
        Some(api_sides),
    )
    .await?;
    step(&format!(
        "target 1 (b): GET /api/agents over {} workspaces",
        knobs.wide
    ));
    let wide = read_run(
        &base,
        &knobs,
        (&wide_tokens_file, knobs.wide_warm_up),
        "/api/agents",
        Some(api_sides),
    )
    .await?;
    let memory_wide = backend_memory(&cpu_probe, server.pid()).await;
    // The same with every token in one workspace: no connection ever switches tenant.
    step("target 1 (c): GET /api/agents, one workspace only (control)");
    let one_workspace = read_run(
        &base,
        &knobs,
        (&one_tokens_file, WARM_UP),
        "/api/agents",
        None,
    )
    .await?;
    step(&format!(
        "target 1 (d): GET /api/conversations?assignee=all over {} workspaces, {} writes/s",
        knobs.hot, knobs.write_rate
    ));
    let list_args = [
        hot_tokens_file.to_str().context("path")?,
        "/api/conversations?assignee=all",
    ];
    wrk("agents.lua", &base, knobs.connections, WARM_UP, &list_args).await?;
    let (list_run, writes) = tokio::join!(
        wrk(
            "agents.lua",
            &base,
            knobs.connections,
            knobs.seconds,
            &list_args
        ),
        write_during(
            &client,
            &base,
            &seeded,
            &hot_owner_tokens,
            knobs.write_rate,
            knobs.seconds
        ),
    );
    let list_run = list_run?;

    step("target 1 (e): the same behind PgBouncer (transaction pooling)");
    let mut pgbouncer_check = String::from("not started");
    let behind: Result<(Measured, Measured, usize), String> = if !knobs.pgbouncer {
        Err("BENCH_PGBOUNCER=0".into())
    } else {
        match upstream(&database) {
            Err(err) => Err(format!("{err:#}")),
            Ok(upstream) => {
                // Behind PgBouncer the API sends no startup options: the empty search_path it
                // requires (and generic plans) come from the database's own settings, which a
                // server connection takes when it opens: set them before PgBouncer opens any.
                let db = &upstream.database;
                sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                    r#"ALTER DATABASE "{db}" SET search_path = ''; ALTER DATABASE "{db}" SET plan_cache_mode = force_generic_plan; ALTER DATABASE "{db}" SET jit = off"#
                )))
                .execute(&pool)
                .await?;
                // Transaction pooling: the API's two pools (reads and writes) share as many
                // server connections as one of them has.
                match PgBouncer::start(
                    &work,
                    &upstream,
                    PoolMode::Transaction,
                    settings.database.max_connections,
                )
                .await
                {
                    Err(err) => Err(format!("{err:#}")),
                    Ok(pgbouncer) => {
                        pgbouncer_check = format!(
                            "PgBouncer on 127.0.0.1:{} answered psql's select 1",
                            pgbouncer.port
                        );
                        let result = match url_through(&database, pgbouncer.port) {
                            Ok(api_url) => {
                                behind_pgbouncer(
                                    &ctx,
                                    &env,
                                    api_url,
                                    &pgbouncer,
                                    (&hot_tokens_file, &wide_tokens_file, &hot_tokens[0]),
                                )
                                .await
                            }
                            Err(err) => Err(format!("{err:#}")),
                        };
                        // pgbench and the rest name tables without a schema.
                        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                            r#"ALTER DATABASE "{db}" RESET search_path; ALTER DATABASE "{db}" RESET plan_cache_mode; ALTER DATABASE "{db}" RESET jit"#
                        )))
                        .execute(&pool)
                        .await?;
                        let _ = std::fs::copy(&pgbouncer.log, out.join("pgbouncer.log"));
                        if !matches!(&result, Ok((_, _, 0))) {
                            let _ = std::fs::copy(
                                work.join("server-pgbouncer.log"),
                                out.join("server-pgbouncer.log"),
                            );
                        }
                        pgbouncer.stop();
                        result
                    }
                }
            }
        }
    };
    if let Err(reason) = &behind {
        eprintln!("  skipped: {reason}");
    }

    // Whatever happened behind PgBouncer, pgbench names its tables without a schema.
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        r#"ALTER DATABASE "{db}" RESET search_path; ALTER DATABASE "{db}" RESET plan_cache_mode; ALTER DATABASE "{db}" RESET jit"#,
        db = database.name
    )))
    .execute(&pool)
    .await?;
    step("target 1: pgbench -S (after)");
    let pgbench_after = pgbench(&database.url, knobs.seconds, &cpu_probe).await?;
    let pgbench_mean = (pgbench_before.tps + pgbench_after.tps) / 2.0;
    let (rss_after_hot, _) = server.memory()?;
    server.save_smaps(&out, "after-target-1");

    let perf_summary = if knobs.perf && perf_works() {
        step("target 1: profiling a second run of (a) with perf");
        match profile(&base, &knobs, &hot_tokens_file, &out).await {
            Ok(lines) => lines,
            Err(err) => vec![format!("perf failed: {err:#}")],
        }
    } else {
        vec!["perf: skipped (BENCH_PERF=0, or perf cannot record system-wide here)".into()]
    };

    // 2. Other endpoints, idle and during a login flood; raw argon2 beside the login rate.
    step("target 2: raw argon2 verifies");
    let hash_threads = settings.application.password_hash_concurrency;
    let raw_verifies = tokio::task::spawn_blocking({
        let hash = hash.clone();
        move || argon2_verifies_per_second(&hash, hash_threads, 5.0)
    })
    .await?;
    let probe_seconds = knobs.seconds.min(15);
    step("target 2: probe, idle");
    let idle = probe(&client, &base, &hot_tokens, knobs.probe_rate, probe_seconds).await;
    step("target 2: probe during a login flood");
    let flood = {
        let login_args = [emails_file.to_str().context("path")?, PASSWORD];
        let flood = wrk(
            "login.lua",
            &base,
            knobs.login_connections,
            probe_seconds + 4,
            &login_args,
        );
        let probe = async {
            tokio::time::sleep(Duration::from_secs(2)).await;
            probe(&client, &base, &hot_tokens, knobs.probe_rate, probe_seconds).await
        };
        let (flood, probe) = tokio::join!(flood, probe);
        (flood?, probe)
    };
    let (login_run, flooded) = flood;
    let (rss_after_flood, _) = server.memory()?;
    server.save_smaps(&out, "after-login-flood");

    // 5. Serve every workspace once (its owner's workspace token), then read the memory.
    step("target 5: GET /api/agents once in every workspace");
    let rest_pairs: Vec<(String, Uuid)> = owners
        .iter()
        .zip(&workspaces)
        .skip(knobs.wide)
        .map(|((_, token), workspace)| (token.clone(), workspace.id))
        .collect();
    let mut all_tokens = wide_tokens;
    all_tokens.extend(select_all(&client, &base, rest_pairs).await?);
    let sweep_errors = futures::stream::iter(all_tokens)
        .map(|token| {
            let client = client.clone();
            let url = format!("{base}/api/agents");
            async move {
                match client.get(url).bearer_auth(token).send().await {
                    Ok(response) => response.status() != 200 || response.bytes().await.is_err(),
                    Err(_) => true,
                }
            }
        })
        .buffer_unordered(knobs.connections)
        .filter(|failed| std::future::ready(*failed))
        .count()
        .await;
    let (rss_end, rss_peak) = server.memory()?;
    server.save_smaps(&out, "end");
    let memory_all = backend_memory(&cpu_probe, server.pid()).await;
    let log_lines = server.error_lines();
    server.stop()?;

    // 4. tenants migrate: the command with nothing to do, then one new migration.
    step("target 4: tenants migrate (nothing to do, the real command)");
    let noop = cli(&["tenants", "migrate", "--json"])?;
    step("target 4: one new migration across every workspace");
    let (applied, report) = apply_one_new_migration(&pool, 8).await?;
    if let Some(worker) = worker.take() {
        let _ = std::fs::copy(&worker.log, out.join("worker.log"));
        worker.stop();
    }

    // The table.
    let tenants = workspaces.len();
    let pgbench_cpu = |run: &PgbenchRun| run.cpu.backend_seconds_per(run.transactions);
    let pgbench_per_tx = match (pgbench_cpu(&pgbench_before), pgbench_cpu(&pgbench_after)) {
        (Some(a), Some(b)) => Some((a + b) / 2.0),
        (a, b) => a.or(b),
    };
    let pgbench_cpu_text = format!(
        "pgbench -S: {} (before); {} (after)",
        pgbench_before
            .cpu
            .per(pgbench_before.transactions, "transaction"),
        pgbench_after
            .cpu
            .per(pgbench_after.transactions, "transaction")
    );
    let pgbench_text = format!(
        "pgbench -S: {:.0} / {:.0} tps (before / after)",
        pgbench_before.tps, pgbench_after.tps
    );
    let ratio = |run: &WrkResult| format!("{:.2}", run.rate() / pgbench_mean);
    let flood_p99 = percentile(&flooded.sorted, 0.99);
    let idle_p99 = percentile(&idle.sorted, 0.99);
    let login_rate = login_run.rate();
    let read_budget = |share: f64| format!(">= {share} x pgbench, p99 < 50 ms, 0 errors");
    let mut rows = vec![
        row(
            format!(
                "1a. GET /api/agents, tokens at random over {} workspaces, {} connections",
                knobs.hot, knobs.connections
            ),
            read_budget(0.25),
            describe(&fifty.run),
            pgbench_text,
            ratio(&fifty.run),
            Some(read_holds(&fifty.run, pgbench_mean, 0.25)),
        ),
        cpu_row("1a.", &fifty, pgbench_per_tx, &pgbench_cpu_text),
        row(
            format!("1b. the same over {} workspaces", knobs.wide),
            read_budget(0.12),
            describe(&wide.run),
            "",
            ratio(&wide.run),
            Some(read_holds(&wide.run, pgbench_mean, 0.12)),
        ),
        cpu_row("1b.", &wide, pgbench_per_tx, ""),
        warm_up_row("1b.", &wide, knobs.wide_warm_up, pgbench_mean),
        row(
            "1c. control: every token in one workspace (no tenant switching)",
            "",
            describe(&one_workspace.run),
            "",
            format!(
                "{} x pgbench; {} workspaces / one = {:.2}",
                ratio(&one_workspace.run),
                knobs.hot,
                fifty.run.rate() / one_workspace.run.rate()
            ),
            None,
        ),
        row(
            format!(
                "1d. GET /api/conversations?assignee=all over {} workspaces ({} conversations each), during writes",
                knobs.hot, knobs.conversations
            ),
            read_budget(0.25),
            describe(&list_run),
            format!(
                "writes meanwhile: {} replies + {} conversations ({:.1}/s), {} errors",
                writes.messages,
                writes.conversations,
                (writes.messages + writes.conversations) as f64 / writes.seconds.max(1.0),
                writes.errors
            ),
            ratio(&list_run),
            Some(read_holds(&list_run, pgbench_mean, 0.25) && writes.errors == 0),
        ),
    ];
    let pool_size = settings.database.max_connections;
    let behind_label = format!(
        "behind PgBouncer (transaction pooling, {pool_size} server connections, max_prepared_statements {MAX_PREPARED_STATEMENTS}; API to PgBouncer plain TCP on loopback, PgBouncer to PostgreSQL TLS)"
    );
    match &behind {
        Ok((fifty_b, wide_b, errors)) => {
            for (label, share, measured, count) in [
                ("1e. (a)", 0.25, fifty_b, knobs.hot),
                ("1e. (b)", 0.12, wide_b, knobs.wide),
            ] {
                rows.push(row(
                    format!("{label} over {count} workspaces, {behind_label}"),
                    read_budget(share),
                    describe(&measured.run),
                    if *errors > 0 {
                        format!(
                            "{pgbouncer_check}; that API logged {errors} ERROR lines (server-pgbouncer.log)"
                        )
                    } else {
                        pgbouncer_check.clone()
                    },
                    ratio(&measured.run),
                    Some(read_holds(&measured.run, pgbench_mean, share)),
                ));
                rows.push(cpu_row(label, measured, pgbench_per_tx, ""));
                if count == knobs.wide {
                    rows.push(warm_up_row(
                        label,
                        measured,
                        knobs.wide_warm_up,
                        pgbench_mean,
                    ));
                }
            }
        }
        Err(reason) => rows.push(row(
            format!("1e. (a) and (b) {behind_label}"),
            read_budget(0.25),
            format!("skipped: {reason}"),
            pgbouncer_check.clone(),
            "",
            None,
        )),
    }
    rows.extend([
        row(
            format!(
                "2. probe of /api/agents + /auth/me at {}/s during {} concurrent logins",
                knobs.probe_rate, knobs.login_connections
            ),
            "p99 < 25 ms",
            format!(
                "p50 {} / p99 {}, {} errors",
                ms(percentile(&flooded.sorted, 0.5)),
                ms(flood_p99),
                flooded.errors
            ),
            format!(
                "idle: p50 {} / p99 {}",
                ms(percentile(&idle.sorted, 0.5)),
                ms(idle_p99)
            ),
            format!(
                "{:.2} (p99 flood / idle)",
                flood_p99.as_secs_f64() / idle_p99.as_secs_f64()
            ),
            Some(flood_p99 < Duration::from_millis(25) && flooded.errors == 0),
        ),
        row(
            "2. ... logins served during the flood",
            "",
            format!(
                "{login_rate:.1} logins/s, p99 {}, {} errors",
                ms(login_run.p99),
                login_run.errors
            ),
            format!("raw argon2 verify, {hash_threads} thread(s): {raw_verifies:.1}/s"),
            format!("{:.2}", login_rate / raw_verifies),
            None,
        ),
    ]);
    let first_p50 = points
        .first()
        .map_or(Duration::ZERO, |p| percentile(&p.times, 0.5));
    for (i, point) in points.iter().enumerate() {
        let p50 = percentile(&point.times, 0.5);
        let p95 = percentile(&point.times, 0.95);
        let last = i + 1 == points.len();
        let versus_first = p50.as_secs_f64() / first_p50.as_secs_f64().max(1e-9);
        let measured = format!("p50 {}, p95 {}", ms(p50), ms(p95));
        if i == 0 {
            rows.push(row(
                format!(
                    "3. provision a workspace (POST /workspaces), the first {BATCH}, one at a time"
                ),
                "p50 < 100 ms",
                measured,
                point.spares.clone(),
                "",
                Some(p50 < Duration::from_millis(100)),
            ));
        } else {
            let baseline = if last && bulk_count > 0 {
                format!(
                    "{}; bulk, 4 at a time: {:.0} workspaces/s",
                    point.spares,
                    bulk_count as f64 / bulk_time.as_secs_f64().max(1e-9)
                )
            } else {
                point.spares.clone()
            };
            rows.push(row(
                format!("3. ... the {BATCH} up to {} workspaces", point.at),
                if last {
                    "p50 < 100 ms and <= 1.5 x the first"
                } else {
                    "p50 < 100 ms"
                },
                measured,
                baseline,
                format!("{versus_first:.2} x the first {BATCH}"),
                Some(p50 < Duration::from_millis(100) && (!last || versus_first <= 1.5)),
            ));
        }
    }
    let bounds = MEMORY_SETTINGS
        .iter()
        .map(|name| match env.get(*name) {
            Some(value) => format!("{name}={value}"),
            None if *name == "DATABASE_MAX_CONNECTIONS" => {
                format!("{name}: default ({pool_size})")
            }
            None => format!("{name}: default"),
        })
        .collect::<Vec<_>>()
        .join(", ");
    let memory_row = |when: String, memory: Option<(usize, f64)>| match memory {
        Some((count, pss)) => row(
            format!("5. PostgreSQL backends of the API's pool {when}: proportional set size"),
            "",
            format!("{count} backends, {pss:.0} MiB"),
            bounds.clone(),
            format!("{:.1} MiB per backend", pss / count.max(1) as f64),
            None,
        ),
        None => row(
            format!("5. PostgreSQL backends of the API's pool {when}: proportional set size"),
            "",
            "n/a (PostgreSQL not readable on this machine)",
            bounds.clone(),
            "",
            None,
        ),
    };
    rows.extend([
        row(
            format!("4. `supportdesk tenants migrate`, nothing to do, {tenants} tenants"),
            "< 30 s",
            format!("{:.2} s", noop.as_secs_f64()),
            "whole process: start, connect, one query",
            "",
            Some(noop < Duration::from_secs(30)),
        ),
        row(
            format!("4. one new migration across {tenants} tenants, 8 at a time"),
            "< 5 min",
            format!("{:.1} s", applied.as_secs_f64()),
            format!("{} migrated", report.migrated),
            format!(
                "{:.2} ms per tenant",
                applied.as_secs_f64() * 1000.0 / report.migrated.max(1) as f64
            ),
            Some(applied < Duration::from_secs(300) && report.migrated == tenants),
        ),
        row(
            format!("5. API resident memory after serving all {tenants} workspaces"),
            "< 200 MiB",
            format!("{rss_end:.0} MiB (peak {rss_peak:.0} MiB), {sweep_errors} errors"),
            format!(
                "at start {rss_start:.0} MiB; after target 1 {rss_after_hot:.0}; after the login flood {rss_after_flood:.0}"
            ),
            format!("{:.2} (end / start)", rss_end / rss_start),
            Some(rss_peak < 200.0 && sweep_errors == 0),
        ),
        memory_row(
            format!("after 1b ({} workspaces)", knobs.wide),
            memory_wide,
        ),
        memory_row(format!("after serving all {tenants} workspaces"), memory_all),
    ]);

    let mut table = String::new();
    writeln!(
        table,
        "load benchmark: {tenants} tenants, {} s runs, {} cores, {} in all",
        knobs.seconds,
        cores(),
        humantime(started_all.elapsed())
    )?;
    writeln!(
        table,
        "| target | budget | measured | same-run baseline | ratio | holds |"
    )?;
    writeln!(table, "|---|---|---|---|---|---|")?;
    for r in &rows {
        let holds = match r.holds {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "",
        };
        writeln!(
            table,
            "| {} | {} | {} | {} | {} | {holds} |",
            r.target, r.budget, r.measured, r.baseline, r.ratio
        )?;
    }
    writeln!(
        table,
        "\nCPU per request: the API and PgBouncer from /proc/<pid>/stat over the measured run; PostgreSQL as the backends serving that process's connections (and every postgres process, the server's housekeeping and other databases included); {:.0} clock ticks a second.",
        cpu_probe.hz
    )?;
    if log_lines > 0 {
        writeln!(
            table,
            "\nThe server logged {log_lines} ERROR lines (see {}).",
            server_log_copy(&work, &out)?.display()
        )?;
    }
    writeln!(
        table,
        "\nWhere the time goes (GET /api/agents as in target 1 (a), perf, system-wide):"
    )?;
    for line in &perf_summary {
        writeln!(table, "    {line}")?;
    }
    println!("{table}");
    std::fs::write(out.join("results.md"), &table)?;
    eprintln!("reports in {}", out.display());
    drop(pool);
    drop(database);
    std::fs::remove_dir_all(&work).ok();
    Ok(())
}

fn server_log_copy(work: &Path, out: &Path) -> anyhow::Result<PathBuf> {
    let copy = out.join("server.log");
    std::fs::copy(work.join("server.log"), &copy)?;
    Ok(copy)
}

fn humantime(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}m{:02}s", s / 60, s % 60)
}

fn perf_works() -> bool {
    Command::new("perf")
        .args(["record", "-a", "-o", "/dev/null", "--", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn tempdir() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("supportdesk-bench-{}", Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
