//! Citus benchmark: the same API, the same reads and the same provisioning on one PostgreSQL
//! (`TEST_DATABASE_URL`) and on a Citus cluster of its own (a coordinator and two workers on
//! this machine, `tests/support/src/citus.rs`), in one run, so each figure is a ratio against
//! a baseline measured beside it.
//!
//! 1. Reads: `GET /api/agents` with a workspace token drawn at random per request (wrk,
//!    `benches/load/agents.lua`) over `BENCH_HOT` (50) workspaces and over `BENCH_WIDE` (2 000),
//!    after a warm-up; requests per second and p50/p99, and the CPU a request costs in the API
//!    and in each PostgreSQL server (all its processes).
//! 2. Provisioning (`create_workspace`: row, schema from scratch or a spare, owner), one at a
//!    time, `BENCH_PROVISION` (20) of them on the empty database and again once `BENCH_WIDE`
//!    workspaces exist; the seeding between is timed too.
//!
//! On 2 cores the three servers, the API and wrk share the machine, so the cluster is expected
//! to cost: the point is what a request costs each node, and that it stays flat with the
//! number of workspaces. Run: `BENCH_ONLY=citus bash .ci/bench` (needs wrk and Citus, which
//! `.ci/bench` installs). Knobs: `BENCH_HOT`, `BENCH_WIDE`, `BENCH_SECONDS` (15, per run),
//! `BENCH_CONNECTIONS` (16), `BENCH_PROVISION`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test and benchmark harness: a failure here is a failed run, with its message"
)]

#[path = "common/mod.rs"]
mod common;
#[path = "load/cpu.rs"]
#[allow(dead_code)]
mod cpu;

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use common::{knob, ms, percentile, provision, select_workspace, serve_api};
use futures::StreamExt;
use serde_json::json;
use supportdesk_test_support::citus::CitusCluster;
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::{http_client, test_env};
use uuid::Uuid;

struct Knobs {
    hot: usize,
    wide: usize,
    seconds: usize,
    connections: usize,
    provision: usize,
}

/// The PostgreSQL servers of one side, by name, and their postmasters' pids.
struct Servers(Vec<(String, Option<u32>)>);

impl Servers {
    fn ticks(&self) -> Vec<Option<u64>> {
        self.0
            .iter()
            .map(|(_, pid)| pid.and_then(cpu::postgres_ticks))
            .collect()
    }
}

struct ReadRun {
    rate: f64,
    p50: Duration,
    p99: Duration,
    errors: u64,
    /// CPU milliseconds per request: the API, then each server of `Servers`.
    api_ms: f64,
    server_ms: Vec<Option<f64>>,
}

struct Side {
    label: &'static str,
    reads: Vec<(usize, ReadRun)>,
    provision_empty: Vec<Duration>,
    provision_wide: Vec<Duration>,
    seeding: Duration,
    servers: Vec<String>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let knobs = Knobs {
        hot: knob("BENCH_HOT", 50),
        wide: knob("BENCH_WIDE", 2_000),
        seconds: knob("BENCH_SECONDS", 15),
        connections: knob("BENCH_CONNECTIONS", 16),
        provision: knob("BENCH_PROVISION", 20),
    };
    ensure!(
        knobs.wide >= knobs.hot,
        "BENCH_WIDE must be at least BENCH_HOT"
    );

    // One PostgreSQL: the server the tests use.
    let single = TestDatabase::migrated().await;
    let pool = single.pool().await;
    let own: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&pool)
        .await?;
    let postmaster = u32::try_from(own)
        .ok()
        .and_then(cpu::proc_stat)
        .map(|s| s.ppid);
    let servers = Servers(vec![("PostgreSQL".into(), postmaster)]);
    let one = measure("one PostgreSQL", &single, &servers, &knobs).await?;
    drop(pool);
    drop(single);

    // A coordinator and two workers.
    let cluster = tokio::task::spawn_blocking(|| CitusCluster::start(2)).await?;
    let database = TestDatabase::migrated_on_citus(&cluster).await;
    let servers = Servers(
        ["coordinator", "worker 1", "worker 2"]
            .iter()
            .enumerate()
            .map(|(i, name)| ((*name).to_owned(), cluster.postmaster_pid(i)))
            .collect(),
    );
    let citus = measure("Citus", &database, &servers, &knobs).await?;

    report(&knobs, &one, &citus);
    Ok(())
}

async fn measure(
    label: &'static str,
    database: &TestDatabase,
    servers: &Servers,
    knobs: &Knobs,
) -> anyhow::Result<Side> {
    eprintln!("== {label}");
    let client = http_client();
    let env = test_env(&database.url, &[("ASPNETCORE_ENVIRONMENT", "Production")]);
    let (api, base) = serve_api(&client, &env).await?;
    let pool = database.pool().await;

    let registered = client
        .post(format!("{base}/auth/register"))
        .json(
            &json!({"email": "bench@example.com", "password": "Corr3ctHorse", "fullName": "Bench"}),
        )
        .send()
        .await?;
    ensure!(
        registered.status().is_success(),
        "register: {}",
        registered.status()
    );
    let registered: serde_json::Value = registered.json().await?;
    let user_token = registered["token"].as_str().context("token")?.to_owned();
    let owner: Uuid = registered["user"]["id"].as_str().context("id")?.parse()?;

    let provision_empty = provision(&pool, owner, knobs.provision, 1, "first").await?;
    let started = Instant::now();
    let seeded = knobs.wide.saturating_sub(knobs.provision);
    provision(&pool, owner, seeded, 4, "seed").await?;
    let seeding = started.elapsed();
    eprintln!(
        "{label}: {} workspaces in {:.0} s",
        knobs.wide,
        seeding.as_secs_f64()
    );

    let ids: Vec<Uuid> = sqlx::query_scalar("SELECT id FROM public.workspaces ORDER BY created_at")
        .fetch_all(&pool)
        .await?;
    let tokens: Vec<String> = futures::stream::iter(ids.iter().take(knobs.wide))
        .map(|id| {
            let (client, base, user_token) = (&client, &base, &user_token);
            async move { select_workspace(client, base, user_token, *id).await }
        })
        .buffered(8)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<Result<_, _>>()?;

    let work = std::env::temp_dir().join(format!(
        "supportdesk-bench-citus-{}",
        Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&work)?;
    let mut reads = Vec::new();
    for count in [knobs.hot, knobs.wide] {
        let file = work.join(format!("tokens-{count}"));
        std::fs::write(&file, tokens[..count].join("\n"))?;
        let file = file.display().to_string();
        // Warm-up: each connection's first read of a workspace prepares its statements.
        wrk(&base, knobs.connections, 5.max(count / 200), &file).await?;
        let api_before = cpu::proc_stat(api.0.id()).map(|s| s.ticks);
        let servers_before = servers.ticks();
        let run = wrk(&base, knobs.connections, knobs.seconds, &file).await?;
        let hz = cpu::ticks_per_second();
        let per_request = |before: Option<u64>, after: Option<u64>| -> Option<f64> {
            Some(after?.saturating_sub(before?) as f64 / hz * 1000.0 / run.requests.max(1) as f64)
        };
        let api_after = cpu::proc_stat(api.0.id()).map(|s| s.ticks);
        let server_ms = servers_before
            .into_iter()
            .zip(servers.ticks())
            .map(|(before, after)| per_request(before, after))
            .collect();
        let result = ReadRun {
            rate: run.requests as f64 / run.seconds,
            p50: run.p50,
            p99: run.p99,
            errors: run.errors,
            api_ms: per_request(api_before, api_after).unwrap_or(f64::NAN),
            server_ms,
        };
        eprintln!(
            "{label}: reads over {count}: {:.0} req/s, p50 {}, p99 {}, {} errors",
            result.rate,
            ms(result.p50),
            ms(result.p99),
            result.errors
        );
        reads.push((count, result));
    }
    let provision_wide = provision(&pool, owner, knobs.provision, 1, "last").await?;
    let _ = std::fs::remove_dir_all(&work);
    drop(api);
    Ok(Side {
        label,
        reads,
        provision_empty,
        provision_wide,
        seeding,
        servers: servers.0.iter().map(|(name, _)| name.clone()).collect(),
    })
}

struct Wrk {
    requests: u64,
    seconds: f64,
    errors: u64,
    p50: Duration,
    p99: Duration,
}

async fn wrk(base: &str, connections: usize, seconds: usize, tokens: &str) -> anyhow::Result<Wrk> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/load/agents.lua");
    let output = tokio::process::Command::new("wrk")
        .arg("-t2")
        .arg(format!("-c{connections}"))
        .arg(format!("-d{seconds}s"))
        .args(["--timeout", "10s", "-s"])
        .arg(&script)
        .arg(base)
        .args(["--", tokens])
        .kill_on_drop(true)
        .output()
        .await
        .context("running wrk (install it: apt-get install wrk)")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    ensure!(output.status.success(), "wrk failed: {stdout}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("WRK "))
        .with_context(|| format!("no result line in wrk's output:\n{stdout}"))?;
    let fields: HashMap<&str, u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|kv| kv.split_once('='))
        .filter_map(|(k, v)| Some((k, v.parse().ok()?)))
        .collect();
    let get = |k: &str| fields.get(k).copied().unwrap_or(0);
    Ok(Wrk {
        requests: get("requests"),
        seconds: get("duration_us") as f64 / 1e6,
        errors: ["connect", "read", "write", "status", "timeout"]
            .iter()
            .map(|k| get(k))
            .sum(),
        p50: Duration::from_micros(get("p50")),
        p99: Duration::from_micros(get("p99")),
    })
}

fn cpu_text(side: &Side, run: &ReadRun) -> String {
    let mut parts = vec![format!("API {:.2}", run.api_ms)];
    for (name, ms) in side.servers.iter().zip(&run.server_ms) {
        parts.push(match ms {
            Some(ms) => format!("{name} {ms:.2}"),
            None => format!("{name} ?"),
        });
    }
    parts.join(", ")
}

fn report(knobs: &Knobs, one: &Side, citus: &Side) {
    println!();
    println!(
        "| measure | {} | {} | Citus / one |",
        one.label, citus.label
    );
    println!("|---|---|---|---|");
    for ((count, a), (_, b)) in one.reads.iter().zip(&citus.reads) {
        println!(
            "| reads over {count} workspaces (req/s; p50 / p99) | {:.0}; {} / {} | {:.0}; {} / {} | {:.2} |",
            a.rate,
            ms(a.p50),
            ms(a.p99),
            b.rate,
            ms(b.p50),
            ms(b.p99),
            b.rate / a.rate
        );
        println!(
            "| CPU ms per read over {count} | {} | {} | |",
            cpu_text(one, a),
            cpu_text(citus, b)
        );
        let (ea, eb) = (a.errors, b.errors);
        if ea + eb > 0 {
            println!("| errors over {count} | {ea} | {eb} | |");
        }
    }
    let p = |times: &[Duration]| {
        format!(
            "p50 {} / p95 {}",
            ms(percentile(times, 0.5)),
            ms(percentile(times, 0.95))
        )
    };
    let p50 = |times: &[Duration]| percentile(times, 0.5).as_secs_f64();
    println!(
        "| provisioning, first {} | {} | {} | {:.2} |",
        knobs.provision,
        p(&one.provision_empty),
        p(&citus.provision_empty),
        p50(&citus.provision_empty) / p50(&one.provision_empty)
    );
    println!(
        "| provisioning at {} | {} | {} | {:.2} |",
        knobs.wide,
        p(&one.provision_wide),
        p(&citus.provision_wide),
        p50(&citus.provision_wide) / p50(&one.provision_wide)
    );
    println!(
        "| seeding {} workspaces, 4 at a time | {:.0} s | {:.0} s | {:.2} |",
        knobs.wide,
        one.seeding.as_secs_f64(),
        citus.seeding.as_secs_f64(),
        citus.seeding.as_secs_f64() / one.seeding.as_secs_f64()
    );
}
