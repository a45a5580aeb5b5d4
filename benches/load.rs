//! Load benchmark: the release binary serving HTTP against local PostgreSQL and Redis, driven
//! by `wrk` from a separate process, each figure beside a baseline measured in the same run.
//!
//! 1. `GET /api/agents`, workspace tokens at random over `BENCH_HOT` (50) workspaces, 32
//!    connections, against `pgbench -S -M prepared -c 8 -j 2` on the same server (run before
//!    and after, averaged). With `perf` available, a second run is profiled system-wide.
//! 2. An open-loop probe of other authenticated endpoints, idle and then during a flood of
//!    valid logins (more connections than cores), beside raw argon2 verifies per second.
//! 3. Workspace provisioning (`POST /workspaces`) at 1 and at `BENCH_TENANTS` tenants.
//! 4. `supportdesk tenants migrate` with nothing to do, and one new migration, across them all.
//! 5. The API's resident memory after serving every one of the workspaces.
//!
//! Needs PostgreSQL and Redis as the tests do (`TEST_DATABASE_URL`, `TEST_REDIS_URL`), `wrk`
//! and `pgbench` on the PATH. Run everything with `bash .ci/bench`, or this part with
//! `cargo bench --bench load`. Knobs: `BENCH_TENANTS` (10000), `BENCH_HOT` (50),
//! `BENCH_SECONDS` (20), `BENCH_CONNECTIONS` (32), `BENCH_LOGIN_CONNECTIONS` (4 x cores),
//! `BENCH_PROBE_RATE` (100 requests/s), `BENCH_PGBENCH_SCALE` (10), `BENCH_PERF` (1: profile
//! when `perf` works; 0: skip), `BENCH_SERVER_ENV` (`NAME=value,...` for the server, to try
//! settings). Reports go to `$CARGO_TARGET_TMPDIR/bench-load/`.

#[path = "common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use common::{apply_one_new_migration, ms, percentile};
use futures::StreamExt;
use serde_json::{Value, json};
use sqlx::PgPool;
use supportdesk::auth::jwt::JwtKeys;
use supportdesk::auth::password::{Password, PasswordHasher};
use supportdesk::config::Settings;
use supportdesk::tenancy::TenantSchema;
use supportdesk::workspaces::provision::add_profile;
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::process::KillOnDrop;
use supportdesk_test_support::{free_port, test_env};
use uuid::Uuid;

const PASSWORD: &str = "Bench-Passw0rd";
/// Members of each hot workspace besides its owner.
const EXTRA_AGENTS: usize = 4;

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

struct Knobs {
    tenants: usize,
    hot: usize,
    seconds: usize,
    connections: usize,
    login_connections: usize,
    probe_rate: usize,
    pgbench_scale: usize,
    perf: bool,
}

impl Knobs {
    fn from_env() -> Self {
        let hot = knob("BENCH_HOT", 50).max(1);
        Self {
            tenants: knob("BENCH_TENANTS", 10_000).max(hot + 50),
            hot,
            seconds: knob("BENCH_SECONDS", 20).max(3),
            connections: knob("BENCH_CONNECTIONS", 32),
            login_connections: knob("BENCH_LOGIN_CONNECTIONS", 4 * cores()),
            probe_rate: knob("BENCH_PROBE_RATE", 100).max(1),
            pgbench_scale: knob("BENCH_PGBENCH_SCALE", 10).max(1),
            perf: knob("BENCH_PERF", 1) == 1,
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

    /// SIGTERM, then wait for the drain to finish.
    fn stop(mut self) -> anyhow::Result<()> {
        Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()?;
        let status = self.child.wait()?;
        ensure!(status.success(), "server exited with {status}");
        Ok(())
    }
}

async fn start_server(
    env: &HashMap<String, String>,
    work: &Path,
    client: &reqwest::Client,
) -> anyhow::Result<Server> {
    let port = free_port();
    let log = work.join("server.log");
    let child = Command::new(env!("CARGO_BIN_EXE_supportdesk"))
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .env_clear()
        .envs(env)
        .current_dir(work)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log)?)
        .spawn()
        .context("starting supportdesk serve")?;
    let server = Server {
        child: KillOnDrop(child),
        base: format!("http://127.0.0.1:{port}"),
        log,
    };
    for _ in 0..100 {
        if let Ok(response) = client.get(format!("{}/healthz", server.base)).send().await
            && response.status() == 200
        {
            return Ok(server);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!(
        "the server did not become healthy; its log:\n{}",
        std::fs::read_to_string(&server.log).unwrap_or_default()
    )
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

/// `pgbench -S -M prepared -c 8 -j 2` for `seconds`: transactions per second.
async fn pgbench(url: &str, seconds: usize) -> anyhow::Result<f64> {
    let output = tokio::process::Command::new("pgbench")
        .args(["-n", "-S", "-M", "prepared", "-c", "8", "-j", "2", "-T"])
        .arg(seconds.to_string())
        .arg(url)
        .output()
        .await
        .context("running pgbench")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    ensure!(
        output.status.success(),
        "pgbench failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .find(|l| l.starts_with("tps = "))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|v| v.parse().ok())
        .with_context(|| format!("no tps in pgbench's output:\n{stdout}"))
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

async fn post_json(
    client: &reqwest::Client,
    url: String,
    token: &str,
    body: Value,
) -> anyhow::Result<Value> {
    let response = client
        .post(&url)
        .bearer_auth(token)
        .json(&body)
        .send()
        .await?;
    let status = response.status();
    let text = response.text().await?;
    ensure!(status.is_success(), "{url}: {status} {text}");
    Ok(serde_json::from_str(&text)?)
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
            let selected = post_json(
                client,
                format!("{base}/workspaces/{workspace}/select"),
                &token,
                json!({}),
            )
            .await?;
            Ok(selected["token"].as_str().context("token")?.to_owned())
        })
        .buffered(16)
        .collect::<Vec<anyhow::Result<String>>>()
        .await
        .into_iter()
        .collect()
}

/// Users straight into the control plane (registering through the API would spend an argon2
/// hash each), all with the same password hash; (id, email) in order.
async fn insert_users(
    pool: &PgPool,
    prefix: &str,
    count: usize,
    hash: &str,
) -> anyhow::Result<Vec<(Uuid, String)>> {
    Ok(sqlx::query_as(
        "INSERT INTO public.users (id, email, full_name, password_hash, email_verified)
         SELECT gen_random_uuid(), $1 || n || '@bench.test', 'Bench ' || $1 || n, $2, true
           FROM generate_series(1, $3) n
          ORDER BY n
      RETURNING id, email",
    )
    .bind(prefix)
    .bind(hash)
    .bind(count as i64)
    .fetch_all(pool)
    .await?)
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

/// Proportional set size (MiB) of the PostgreSQL backends serving the API, when they run on
/// this machine.
async fn backend_memory(pool: &PgPool) -> Option<(usize, f64)> {
    let pids: Vec<i32> = sqlx::query_scalar(
        "SELECT pid FROM pg_stat_activity
          WHERE application_name = 'supportdesk' AND datname = current_database()",
    )
    .fetch_all(pool)
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
    let tokens_arg = [hot_tokens.to_str().context("path")?];
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
    measured: String,
    baseline: String,
    ratio: String,
    holds: Option<bool>,
}

fn row(
    target: impl Into<String>,
    measured: impl Into<String>,
    baseline: impl Into<String>,
    ratio: impl Into<String>,
    holds: Option<bool>,
) -> Row {
    Row {
        target: target.into(),
        measured: measured.into(),
        baseline: baseline.into(),
        ratio: ratio.into(),
        holds,
    }
}

async fn run(knobs: Knobs) -> anyhow::Result<()> {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-load");
    std::fs::create_dir_all(&out)?;
    let work = tempdir()?;
    let client = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(256)
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

    step("initialising pgbench tables (in the benchmark database)");
    let status = Command::new("pgbench")
        .args(["-i", "-q", "-s", &knobs.pgbench_scale.to_string()])
        .arg(&database.url)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .context("running pgbench -i")?;
    ensure!(status.success(), "pgbench -i failed");

    step("starting the API (release build)");
    let server = start_server(&env, &work, &client).await?;
    let (rss_start, _) = server.memory()?;
    let base = server.base.clone();

    step("seeding users");
    let hash = PasswordHasher::new(1)?
        .hash(&Password::parse(PASSWORD.into()).map_err(|e| anyhow::anyhow!("{e:?}"))?)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let owners = insert_users(&pool, "owner-", knobs.tenants, &hash).await?;
    let agents = insert_users(&pool, "agent-", knobs.hot * EXTRA_AGENTS, &hash).await?;
    let jwt = JwtKeys::new(settings.jwt_secret.as_ref().context("JWT_SECRET")?);
    let user_token = |id: Uuid| jwt.issue_user(id, 0).map(|t| t.token);
    let owners: Vec<(Uuid, String)> = owners
        .iter()
        .map(|(id, _)| Ok((*id, user_token(*id)?)))
        .collect::<anyhow::Result<_>>()?;

    // 3. Provisioning: the hot workspaces one at a time at the start, the bulk 4 at a time,
    // the last 50 one at a time at (nearly) the full count.
    step(&format!(
        "provisioning {} workspaces over HTTP",
        knobs.tenants
    ));
    let bulk_end = knobs.tenants - 50;
    let (hot, first_times) = provision(&client, &base, &owners[..knobs.hot], 1, 0).await?;
    let started = Instant::now();
    let (bulk, _) = provision(&client, &base, &owners[knobs.hot..bulk_end], 4, knobs.hot).await?;
    let bulk_rate = bulk.len() as f64 / started.elapsed().as_secs_f64();
    let (last, last_times) = provision(&client, &base, &owners[bulk_end..], 1, bulk_end).await?;
    let workspaces: Vec<Workspace> = hot
        .iter()
        .chain(bulk.iter())
        .chain(last.iter())
        .cloned()
        .collect();

    step("adding agents to the hot workspaces, selecting workspace tokens");
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
    let hot_tokens_arg = hot_tokens_file.to_str().context("path")?;
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

    // 1. GET /api/agents beside pgbench -S, before and after.
    step("target 1: pgbench -S (before)");
    let pgbench_before = pgbench(&database.url, knobs.seconds).await?;
    step("target 1: GET /api/agents (warm-up, then measured)");
    wrk("agents.lua", &base, knobs.connections, 3, &[hot_tokens_arg]).await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let transactions_before = transactions(&pool).await?;
    let agents_run = wrk(
        "agents.lua",
        &base,
        knobs.connections,
        knobs.seconds,
        &[hot_tokens_arg],
    )
    .await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let per_request =
        (transactions(&pool).await? - transactions_before) as f64 / agents_run.requests as f64;
    // The same with every token in one workspace: no connection ever switches tenant, so
    // PostgreSQL keeps its cached plans; the difference is what switching costs.
    step("target 1: GET /api/agents, one workspace only (control)");
    let one_tokens_file = work.join("one-workspace-tokens.txt");
    std::fs::write(&one_tokens_file, hot_tokens[..=EXTRA_AGENTS].join("\n"))?;
    let one_workspace = wrk(
        "agents.lua",
        &base,
        knobs.connections,
        knobs.seconds,
        &[one_tokens_file.to_str().context("path")?],
    )
    .await?;
    step("target 1: pgbench -S (after)");
    let pgbench_after = pgbench(&database.url, knobs.seconds).await?;
    let pgbench_mean = (pgbench_before + pgbench_after) / 2.0;
    let (rss_after_hot, _) = server.memory()?;
    server.save_smaps(&out, "after-target-1");

    let perf_summary = if knobs.perf && perf_works() {
        step("target 1: profiling a second run with perf");
        match profile(&base, &knobs, &hot_tokens_file, &out).await {
            Ok(lines) => lines,
            Err(err) => vec![format!("perf failed: {err:#}")],
        }
    } else {
        vec!["perf: skipped (BENCH_PERF=0, or perf cannot record system-wide here)".into()]
    };

    // 2. Other endpoints, idle and during a login flood; raw argon2 beside the login rate.
    step("target 2: raw argon2 verifies");
    let hash_threads = settings.password_hash_concurrency;
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
    let all_pairs: Vec<(String, Uuid)> = owners
        .iter()
        .zip(&workspaces)
        .map(|((_, token), workspace)| (token.clone(), workspace.id))
        .collect();
    let all_tokens = select_all(&client, &base, all_pairs).await?;
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
    let backends = backend_memory(&pool).await;
    let log_lines = std::fs::read_to_string(&server.log)
        .map(|l| l.lines().filter(|l| l.contains("\"ERROR\"")).count())
        .unwrap_or(0);
    server.stop()?;

    // 4. tenants migrate: the command with nothing to do, then one new migration.
    step("target 4: tenants migrate (nothing to do, the real command)");
    let noop = cli(&["tenants", "migrate", "--json"])?;
    step("target 4: one new migration across every workspace");
    let (applied, report) = apply_one_new_migration(&pool, 8).await?;

    // The table.
    let tenants = workspaces.len();
    let provision_1 = percentile(&first_times, 0.5);
    let provision_n = percentile(&last_times, 0.5);
    let agents_ratio = agents_run.rate() / pgbench_mean;
    let flood_p99 = percentile(&flooded.sorted, 0.99);
    let idle_p99 = percentile(&idle.sorted, 0.99);
    let login_rate = login_run.rate();
    let rows = vec![
        row(
            format!(
                "1. GET /api/agents, {} workspaces, {} connections: throughput (>= 0.25 x pgbench)",
                knobs.hot, knobs.connections
            ),
            format!("{:.0} req/s", agents_run.rate()),
            format!("pgbench -S: {pgbench_before:.0} / {pgbench_after:.0} tps (before / after)"),
            format!("{agents_ratio:.2}"),
            Some(agents_ratio >= 0.25),
        ),
        row(
            "1. ... p50 / p99 (p99 < 50 ms) / max, errors (0)",
            format!(
                "{} / {} / {}, {} errors",
                ms(agents_run.p50),
                ms(agents_run.p99),
                ms(agents_run.max),
                agents_run.errors
            ),
            "",
            format!("{:.1} PostgreSQL transactions per request", per_request),
            Some(agents_run.p99 < Duration::from_millis(50) && agents_run.errors == 0),
        ),
        row(
            "1. control: the same, every token in one workspace (no tenant switching)",
            format!(
                "{:.0} req/s, p99 {}, {} errors",
                one_workspace.rate(),
                ms(one_workspace.p99),
                one_workspace.errors
            ),
            "",
            format!(
                "{:.2} x pgbench; {} workspaces / one = {:.2}",
                one_workspace.rate() / pgbench_mean,
                knobs.hot,
                agents_run.rate() / one_workspace.rate()
            ),
            None,
        ),
        row(
            format!(
                "2. probe of /api/agents + /auth/me at {}/s during {} concurrent logins: p99 (< 25 ms)",
                knobs.probe_rate, knobs.login_connections
            ),
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
            format!(
                "{login_rate:.1} logins/s, p99 {}, {} errors",
                ms(login_run.p99),
                login_run.errors
            ),
            format!("raw argon2 verify, {hash_threads} thread(s): {raw_verifies:.1}/s"),
            format!("{:.2}", login_rate / raw_verifies),
            None,
        ),
        row(
            "3. provision a workspace (POST /workspaces): p50 (< 100 ms) at the start",
            format!(
                "{} (p95 {})",
                ms(provision_1),
                ms(percentile(&first_times, 0.95))
            ),
            format!("first {} workspaces, one at a time", knobs.hot),
            "",
            Some(provision_1 < Duration::from_millis(100)),
        ),
        row(
            format!("3. ... p50 (< 100 ms) at {bulk_end} tenants"),
            format!(
                "{} (p95 {})",
                ms(provision_n),
                ms(percentile(&last_times, 0.95))
            ),
            format!("bulk, 4 at a time: {bulk_rate:.0} workspaces/s"),
            format!(
                "{:.2} (at {bulk_end} / at start)",
                provision_n.as_secs_f64() / provision_1.as_secs_f64()
            ),
            Some(provision_n < Duration::from_millis(100)),
        ),
        row(
            format!("4. `supportdesk tenants migrate`, nothing to do, {tenants} tenants (< 30 s)"),
            format!("{:.2} s", noop.as_secs_f64()),
            "whole process: start, connect, one query",
            "",
            Some(noop < Duration::from_secs(30)),
        ),
        row(
            format!("4. one new migration across {tenants} tenants, 8 at a time (< 5 min)"),
            format!("{:.1} s", applied.as_secs_f64()),
            format!("{} migrated", report.migrated),
            format!(
                "{:.2} ms per tenant",
                applied.as_secs_f64() * 1000.0 / report.migrated.max(1) as f64
            ),
            Some(applied < Duration::from_secs(300) && report.migrated == tenants),
        ),
        row(
            format!("5. API resident memory after serving all {tenants} workspaces (< 200 MiB)"),
            format!("{rss_end:.0} MiB (peak {rss_peak:.0} MiB), {sweep_errors} errors"),
            format!(
                "at start {rss_start:.0} MiB; after target 1 {rss_after_hot:.0}; after the login flood {rss_after_flood:.0}"
            ),
            format!("{:.2} (end / start)", rss_end / rss_start),
            Some(rss_peak < 200.0 && sweep_errors == 0),
        ),
    ];

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
        "| target | measured | same-run baseline | ratio | holds |"
    )?;
    writeln!(table, "|---|---|---|---|---|")?;
    for r in &rows {
        let holds = match r.holds {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "",
        };
        writeln!(
            table,
            "| {} | {} | {} | {} | {holds} |",
            r.target, r.measured, r.baseline, r.ratio
        )?;
    }
    if let Some((count, pss)) = backends {
        writeln!(
            table,
            "\nPostgreSQL backends of the API after the sweep: {count}, {pss:.0} MiB proportional set size in all"
        )?;
    }
    if log_lines > 0 {
        writeln!(
            table,
            "\nThe server logged {log_lines} ERROR lines (see {}).",
            server_log_copy(&work, &out)?.display()
        )?;
    }
    writeln!(
        table,
        "\nWhere the time goes (GET /api/agents as in target 1, perf, system-wide):"
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
