//! Webhook delivery latency: events of `WEBHOOK_BENCH_WORKSPACES` (50) workspaces, each with
//! one endpoint, at `WEBHOOK_BENCH_RATE` (500) events a second for `WEBHOOK_BENCH_SECONDS`
//! (20), through the release API (agents' replies, each a `message.created`) and the release
//! worker, to a receiver in this process. Measured: from the event's commit (its `timestamp`)
//! to the receiver, p50 / p99 / max, first as is, then with one more endpoint that never
//! answers (its delivery hangs until the 15 s timeout, then retries), whose neighbours'
//! figures must not move.
//!
//! Baseline, the same run: the same receiver POSTed to directly at the same rate (loopback
//! HTTP, no database, no queue): what the figures would be if delivery cost nothing but the
//! request.
//!
//! `cargo build --release -p supportdesk-worker && cargo bench --bench webhooks` (or
//! `BENCH_ONLY=webhooks bash .ci/bench`).

mod common;

use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use axum::extract::{Path, State};
use common::{
    bench_env, insert_users, jwt_keys, knob, ms, percentile, post_json, serve_api,
    workspace_via_api,
};
use serde_json::{Value, json};
use supportdesk_core::config::Settings;
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::free_port;
use supportdesk_test_support::process::KillOnDrop;
use time::OffsetDateTime;
use tokio::sync::Semaphore;

fn main() -> anyhow::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run())
}

/// What the receiver heard: per path, how late each event arrived after its commit.
#[derive(Clone, Default)]
struct Heard {
    lags: Arc<Mutex<HashMap<String, Vec<Duration>>>>,
}

impl Heard {
    fn take(&self) -> Vec<Duration> {
        let mut all: Vec<Duration> = self
            .lags
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .drain()
            .filter(|(path, _)| path != "baseline")
            .flat_map(|(_, lags)| lags)
            .collect();
        all.sort();
        all
    }

    fn count(&self) -> usize {
        self.lags
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|(path, _)| *path != "baseline")
            .map(|(_, lags)| lags.len())
            .sum()
    }
}

async fn receive(
    State(heard): State<Heard>,
    Path(path): Path<String>,
    body: String,
) -> &'static str {
    if path == "hang" {
        tokio::time::sleep(Duration::from_secs(120)).await;
        return "late";
    }
    let now = OffsetDateTime::now_utc();
    let lag = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|v| v["timestamp"].as_str().map(str::to_owned))
        .and_then(|t| {
            OffsetDateTime::parse(&t, &time::format_description::well_known::Rfc3339).ok()
        })
        .map(|at| (now - at).unsigned_abs())
        .unwrap_or_default();
    heard
        .lags
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .entry(path)
        .or_default()
        .push(lag);
    "ok"
}

/// `rate` a second for `seconds`, each `send(n)` in a task of its own (at most 256 at once);
/// how many were sent.
async fn paced<F, Fut>(rate: usize, seconds: usize, send: F) -> usize
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let slots = Arc::new(Semaphore::new(256));
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / rate as f64));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let total = rate * seconds;
    let mut tasks = Vec::with_capacity(total);
    for n in 0..total {
        tick.tick().await;
        let Ok(slot) = slots.clone().acquire_owned().await else {
            break;
        };
        let fut = send(n);
        tasks.push(tokio::spawn(async move {
            fut.await;
            drop(slot);
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
    total
}

fn line(label: &str, lags: &[Duration]) -> String {
    format!(
        "{label}: {} events, p50 {}, p99 {}, max {}",
        lags.len(),
        ms(percentile(lags, 0.5)),
        ms(percentile(lags, 0.99)),
        ms(lags.last().copied().unwrap_or_default())
    )
}

async fn run() -> anyhow::Result<()> {
    let count = knob("WEBHOOK_BENCH_WORKSPACES", 50).max(1);
    let rate = knob("WEBHOOK_BENCH_RATE", 500).max(1);
    let seconds = knob("WEBHOOK_BENCH_SECONDS", 20).max(1);
    let started_all = Instant::now();
    let step = |what: &str| eprintln!("[{:>6.1} s] {what}", started_all.elapsed().as_secs_f64());
    let client = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(256)
        .build()?;

    // The receiver.
    let heard = Heard::default();
    let receiver = axum::Router::new()
        .route("/{path}", axum::routing::post(receive))
        .with_state(heard.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let receiver_port = listener.local_addr()?.port();
    tokio::spawn(async move { axum::serve(listener, receiver).await });

    step("creating the benchmark database, starting the API and the worker (release builds)");
    let database = TestDatabase::empty().await;
    let env = bench_env(
        &database.url,
        &[
            ("WEBHOOK_ALLOW_HTTP", "true"),
            ("WEBHOOK_ALLOWED_PRIVATE_RANGES", "127.0.0.0/8"),
            ("SPARE_SCHEMAS", "0"),
        ],
    );
    let settings = Settings::load_from(None, Some(env.clone()))?;
    let (_server, base) = serve_api(&client, &env).await?;
    let worker_binary = std::path::Path::new(env!("CARGO_BIN_EXE_supportdesk"))
        .with_file_name("supportdesk-worker");
    ensure!(
        worker_binary.is_file(),
        "{} is not built (cargo build --release -p supportdesk-worker)",
        worker_binary.display()
    );
    let _worker = KillOnDrop(
        Command::new(worker_binary)
            .env_clear()
            .envs(env.iter().filter(|(k, _)| k.as_str() != "JWT_SECRET"))
            .env("WORKER_HEALTH_PORT", free_port().to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?,
    );
    let pool = database.pool().await;
    let jwt = jwt_keys(&settings)?;

    step(&format!(
        "{count} workspaces, each with a conversation and an endpoint"
    ));
    let owners = insert_users(&pool, "hooks-owner-", count, "unused").await?;
    let mut targets: Vec<(String, String)> = Vec::new();
    let mut first_token = String::new();
    for (i, (user_id, _)) in owners.iter().enumerate() {
        let user_token = jwt.issue_user(*user_id, 0)?.token;
        let (_, token) =
            workspace_via_api(&client, &base, &user_token, &format!("Hooks {i}")).await?;
        let conversation = post_json(
            &client,
            format!("{base}/api/conversations"),
            &token,
            json!({"contact": {"email": format!("c{i}@bench.test")}, "body": "Hello"}),
        )
        .await?;
        post_json(
            &client,
            format!("{base}/api/webhooks"),
            &token,
            json!({"url": format!("http://127.0.0.1:{receiver_port}/w{i}"),
                   "eventTypes": ["message.created"]}),
        )
        .await?;
        if i == 0 {
            first_token = token.clone();
        }
        targets.push((token, conversation["id"].as_str().context("id")?.to_owned()));
    }
    // Let the worker's pass find the workspaces before the clock starts.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let targets = Arc::new(targets);

    // Baseline: the receiver POSTed to directly, at the same rate.
    step(&format!(
        "baseline: {rate}/s straight to the receiver for {seconds} s"
    ));
    let baseline: Arc<Mutex<Vec<Duration>>> = Arc::default();
    paced(rate, seconds, |n| {
        let client = client.clone();
        let baseline = baseline.clone();
        let url = format!("http://127.0.0.1:{receiver_port}/baseline");
        async move {
            let started = Instant::now();
            let body = json!({"type": "message.created", "n": n}).to_string();
            if client.post(url).body(body).send().await.is_ok() {
                baseline
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(started.elapsed());
            }
        }
    })
    .await;
    let mut baseline = std::mem::take(
        &mut *baseline
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    baseline.sort();

    let mut lines = vec![line("baseline (POST straight to the receiver)", &baseline)];
    for (phase, hanging) in [
        ("all endpoints answer", false),
        ("one endpoint hangs", true),
    ] {
        if hanging {
            post_json(
                &client,
                format!("{base}/api/webhooks"),
                &first_token,
                json!({"url": format!("http://127.0.0.1:{receiver_port}/hang"),
                       "eventTypes": ["*"]}),
            )
            .await?;
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        heard.take();
        step(&format!(
            "{phase}: {rate} events/s for {seconds} s over {count} workspaces"
        ));
        let started = Instant::now();
        let refused = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let sent = paced(rate, seconds, |n| {
            let client = client.clone();
            let targets = targets.clone();
            let refused = refused.clone();
            let base = base.clone();
            async move {
                let (token, conversation) = &targets[n % targets.len()];
                let ok = client
                    .post(format!("{base}/api/conversations/{conversation}/messages"))
                    .bearer_auth(token)
                    .json(&json!({"body": format!("Reply {n}")}))
                    .send()
                    .await
                    .is_ok_and(|r| r.status() == 201);
                if !ok {
                    refused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        })
        .await;
        let achieved = sent as f64 / started.elapsed().as_secs_f64();
        let committed = sent - refused.load(std::sync::atomic::Ordering::Relaxed);
        let deadline = Instant::now() + Duration::from_secs(60);
        while heard.count() < committed && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let lags = heard.take();
        lines.push(format!(
            "{} ({committed} of {sent} replies committed, {achieved:.0}/s offered; {} delivered)",
            line(phase, &lags),
            lags.len()
        ));
        let (p99, base_p99) = (percentile(&lags, 0.99), percentile(&baseline, 0.99));
        if !base_p99.is_zero() {
            lines.push(format!(
                "  p99 / baseline p99: {:.1}x",
                p99.as_secs_f64() / base_p99.as_secs_f64()
            ));
        }
    }
    println!("\n== webhooks: commit -> receiver ==");
    for line in lines {
        println!("{line}");
    }
    Ok(())
}
