//! Chat hub benchmark: the release API serving WebSocket connections from a load generator in
//! this process (tokio-tungstenite), speaking the SignalR JSON protocol as the official
//! clients do (negotiate, handshake, pings every 10 s).
//!
//! 1. `HUB_BENCH_IDLE` (10 000) idle agent connections over 10 workspaces: the server's
//!    resident memory per connection (budget 40 KiB).
//! 2. Fan-out: a reply posted over REST in a workspace with `HUB_BENCH_FANOUT` (1 000) open
//!    connections, 20 times; the time from the POST to each connection's `MessageCreated`
//!    (budget: p99 < 100 ms).
//! 3. `SendMessage` round trips at `HUB_BENCH_RATE` (200) calls/s for `HUB_BENCH_SECONDS` (20)
//!    while `HUB_BENCH_OPEN` (5 000) connections are open over `HUB_BENCH_WORKSPACES` (100)
//!    workspaces, each call fanned out to its workspace's connections (budget: p99 < 20 ms).
//!
//! Needs PostgreSQL and Redis as the tests do (`TEST_DATABASE_URL`, `TEST_REDIS_URL`). Run it
//! with `BENCH_ONLY=hub bash .ci/bench` or `cargo bench --bench hub`. Reports go to
//! `$CARGO_TARGET_TMPDIR/bench-hub/`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test and benchmark harness: a failure here is a failed run, with its message"
)]

#[path = "common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use common::{insert_users, ms, percentile, post_json};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use supportdesk::credentials::jwt::JwtKeys;
use supportdesk_core::config::Settings;
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::process::KillOnDrop;
use supportdesk_test_support::{free_port, test_env};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::connect_async;
use tokio_tungstenite::tungstenite::Message;

const RS: char = '\u{1e}';
/// Calls at the measured rate before the measured ones.
const WARM_UP_SECONDS: usize = 10;

/// What a run of calls at a fixed rate measured.
struct Calls {
    round_trips: Vec<Duration>,
    errors: Vec<String>,
    achieved: f64,
}

/// `SendMessage` at `rate` calls a second for `seconds`, from the first connection of each
/// workspace in turn (`open` holds them first, one per workspace); every call's round trip.
async fn send_at_rate(
    open: &Arc<Vec<Conn>>,
    conversations: &[String],
    rate: usize,
    seconds: usize,
) -> anyhow::Result<Calls> {
    let workspaces = conversations.len();
    let total = rate * seconds;
    let interval = Duration::from_secs_f64(1.0 / rate as f64);
    let begun = tokio::time::Instant::now();
    let mut calls = Vec::with_capacity(total);
    for i in 0..total {
        tokio::time::sleep_until(begun + interval * i as u32).await;
        // The first connection of each workspace sends, in turn.
        let sender = i % workspaces;
        let open = open.clone();
        let conversation = conversations[sender].clone();
        calls.push(tokio::spawn(async move {
            let started = Instant::now();
            let answer = open[sender]
                .invoke("SendMessage", json!([conversation, "Round trip"]))
                .await;
            match answer {
                Ok(value) if value.get("result").is_some() => Ok(started.elapsed()),
                Ok(value) => Err(value.to_string()),
                Err(err) => Err(err.to_string()),
            }
        }));
    }
    let mut round_trips = Vec::new();
    let mut errors = Vec::new();
    // When the slow calls were sent (seconds into the run), to tell a stall from a spread.
    let mut slow_at: Vec<String> = Vec::new();
    for (i, call) in calls.into_iter().enumerate() {
        match call.await? {
            Ok(elapsed) => {
                if elapsed > Duration::from_millis(50) {
                    slow_at.push(format!("{:.2}", (interval * i as u32).as_secs_f64()));
                }
                round_trips.push(elapsed);
            }
            Err(err) => errors.push(err),
        }
    }
    if !slow_at.is_empty() {
        eprintln!(
            "calls over 50 ms, sent at (s into the run): {}",
            slow_at.join(" ")
        );
    }
    let achieved = total as f64 / begun.elapsed().as_secs_f64();
    Ok(Calls {
        round_trips,
        errors,
        achieved,
    })
}

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Knobs {
    idle: usize,
    fanout: usize,
    open: usize,
    workspaces: usize,
    rate: usize,
    seconds: usize,
}

fn main() -> anyhow::Result<()> {
    let knobs = Knobs {
        idle: knob("HUB_BENCH_IDLE", 10_000).max(10),
        fanout: knob("HUB_BENCH_FANOUT", 1_000).max(1),
        open: knob("HUB_BENCH_OPEN", 5_000).max(1),
        workspaces: knob("HUB_BENCH_WORKSPACES", 100).max(10),
        rate: knob("HUB_BENCH_RATE", 200).max(1),
        seconds: knob("HUB_BENCH_SECONDS", 20).max(3),
    };
    tokio::runtime::Builder::new_multi_thread()
        .thread_name("bench-client")
        .enable_all()
        .build()?
        .block_on(run(knobs))
}

/// A `MessageCreated` a connection heard: the message id and when.
type Heard = (String, Instant);

/// One client connection: calls go through `writer`; its reader answers completions and
/// reports `MessageCreated` events.
struct Conn {
    writer: mpsc::UnboundedSender<Message>,
    pending: Arc<Mutex<HashMap<String, oneshot::Sender<Value>>>>,
    next_id: AtomicU64,
    tasks: [tokio::task::JoinHandle<()>; 2],
}

impl Drop for Conn {
    fn drop(&mut self) {
        let _ = self.writer.send(Message::Close(None));
        self.tasks[1].abort();
    }
}

impl Conn {
    async fn open(
        client: &reqwest::Client,
        base: &str,
        token: &str,
        heard: mpsc::UnboundedSender<Heard>,
    ) -> anyhow::Result<Self> {
        let negotiated = post_json(
            client,
            format!("{base}/hubs/chat/negotiate?negotiateVersion=1"),
            token,
            json!({}),
        )
        .await?;
        let id = negotiated["connectionToken"].as_str().context("token")?;
        let url = format!("{}/hubs/chat?id={id}", base.replacen("http", "ws", 1));
        let (ws, _) = connect_async(url).await?;
        let (mut sink, mut stream) = ws.split();
        sink.send(Message::Text(
            format!("{{\"protocol\":\"json\",\"version\":1}}{RS}").into(),
        ))
        .await?;
        match stream.next().await {
            Some(Ok(Message::Text(text))) if text.as_str().starts_with("{}") => {}
            other => bail!("handshake: {other:?}"),
        }
        let (writer, mut outgoing) = mpsc::unbounded_channel::<Message>();
        let write = tokio::spawn(async move {
            // Clients ping every 10 s from a random start, as clients that connected at
            // different times would.
            let every = Duration::from_secs(10);
            let first = tokio::time::Instant::now() + every.mul_f64(rand::random::<f64>());
            let mut ping = tokio::time::interval_at(first, every);
            loop {
                let message = tokio::select! {
                    message = outgoing.recv() => match message {
                        Some(message) => message,
                        None => return,
                    },
                    _ = ping.tick() => Message::Text(format!("{{\"type\":6}}{RS}").into()),
                };
                let closing = matches!(message, Message::Close(_));
                if sink.send(message).await.is_err() || closing {
                    return;
                }
            }
        });
        let pending: Arc<Mutex<HashMap<String, oneshot::Sender<Value>>>> = Arc::default();
        let answers = pending.clone();
        let read = tokio::spawn(async move {
            while let Some(Ok(frame)) = stream.next().await {
                let Message::Text(text) = frame else { continue };
                let at = Instant::now();
                for record in text.as_str().split(RS).filter(|r| !r.is_empty()) {
                    // Only what the benchmark measures is parsed in full.
                    if record.starts_with("{\"type\":3") {
                        let value: Value = serde_json::from_str(record).unwrap_or_default();
                        let id = value["invocationId"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned();
                        if let Some(answer) = answers.lock().unwrap().remove(&id) {
                            let _ = answer.send(value);
                        }
                    } else if record.contains("\"target\":\"MessageCreated\"") {
                        // The message id is the first "id" of the record's message: found
                        // without parsing, so the generator stays light beside the server.
                        let id = record
                            .split_once("\"message\":{\"id\":\"")
                            .and_then(|(_, rest)| rest.split_once('"'))
                            .map(|(id, _)| id.to_owned())
                            .unwrap_or_default();
                        let _ = heard.send((id, at));
                    }
                }
            }
        });
        Ok(Self {
            writer,
            pending,
            next_id: AtomicU64::new(0),
            tasks: [write, read],
        })
    }

    /// Invokes `target`; its Completion.
    async fn invoke(&self, target: &str, arguments: Value) -> anyhow::Result<Value> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed).to_string();
        let (answer, answered) = oneshot::channel();
        self.pending.lock().unwrap().insert(id.clone(), answer);
        let record =
            json!({"type": 1, "invocationId": id, "target": target, "arguments": arguments});
        self.writer
            .send(Message::Text(format!("{record}{RS}").into()))
            .ok()
            .context("connection closed")?;
        Ok(tokio::time::timeout(Duration::from_secs(10), answered).await??)
    }
}

/// Opens `count` connections, spread over `tokens` in turn, 64 at a time.
async fn open_many(
    client: &reqwest::Client,
    base: &str,
    tokens: &[String],
    count: usize,
    heard: &mpsc::UnboundedSender<Heard>,
) -> anyhow::Result<Vec<Conn>> {
    futures::stream::iter(0..count)
        .map(|i| {
            let heard = heard.clone();
            async move { Conn::open(client, base, &tokens[i % tokens.len()], heard).await }
        })
        .buffered(64)
        .collect::<Vec<anyhow::Result<Conn>>>()
        .await
        .into_iter()
        .collect()
}

fn rss_kib(pid: u32) -> anyhow::Result<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .context("VmRSS")?;
    Ok(line.split_whitespace().nth(1).context("value")?.parse()?)
}

async fn run(knobs: Knobs) -> anyhow::Result<()> {
    let started_all = Instant::now();
    let step = |what: &str| eprintln!("[{:>6.1} s] {what}", started_all.elapsed().as_secs_f64());
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-hub");
    std::fs::create_dir_all(&out)?;
    let client = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(64)
        .build()?;

    step("creating the benchmark database");
    let database = TestDatabase::empty().await;
    let env = test_env(
        &database.url,
        &[
            ("ASPNETCORE_ENVIRONMENT", "Production"),
            ("RUN_MIGRATIONS_ON_STARTUP", "false"),
            ("WORKSPACE_CREATES_PER_HOUR", "0"),
            ("RUST_LOG", "warn"),
        ],
    );
    let settings = Settings::load_from(None, Some(env.clone()))?;
    let migrate = Command::new(env!("CARGO_BIN_EXE_supportdesk"))
        .arg("migrate")
        .env_clear()
        .envs(&env)
        .current_dir(&out)
        .output()?;
    ensure!(migrate.status.success(), "supportdesk migrate failed");

    step("starting the API (release build)");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let server = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_supportdesk"))
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .env_clear()
            .envs(&env)
            .current_dir(&out)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(out.join("server.log"))?)
            .spawn()?,
    );
    let pid = server.id();
    let mut healthy = false;
    for _ in 0..100 {
        if client
            .get(format!("{base}/healthz"))
            .send()
            .await
            .is_ok_and(|r| r.status() == 200)
        {
            healthy = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    ensure!(healthy, "the API did not become healthy");

    step(&format!(
        "{} workspaces, a conversation in each",
        knobs.workspaces
    ));
    let pool = database.pool().await;
    let owners = insert_users(&pool, "hub-owner-", knobs.workspaces, "unused").await?;
    let jwt = JwtKeys::new(
        settings
            .application
            .jwt_secret
            .as_ref()
            .context("JWT_SECRET")?,
    );
    let mut tokens = Vec::new();
    let mut conversations = Vec::new();
    for (i, (user_id, _)) in owners.iter().enumerate() {
        let user_token = jwt.issue_user(*user_id, 0)?.token;
        let created = post_json(
            &client,
            format!("{base}/workspaces"),
            &user_token,
            json!({"name": format!("Hub {i}")}),
        )
        .await?;
        let workspace = created["id"].as_str().context("id")?;
        let selected = post_json(
            &client,
            format!("{base}/workspaces/{workspace}/select"),
            &user_token,
            json!({}),
        )
        .await?;
        let token = selected["token"].as_str().context("token")?.to_owned();
        let conversation = post_json(
            &client,
            format!("{base}/api/conversations"),
            &token,
            json!({"contact": {"email": format!("c{i}@bench.test")}, "body": "Hello"}),
        )
        .await?;
        conversations.push(conversation["id"].as_str().context("id")?.to_owned());
        tokens.push(token);
    }
    let mut report = String::new();
    writeln!(report, "| target | budget | measured | holds |")?;
    writeln!(report, "|---|---|---|---|")?;

    // 1. Idle connections: memory.
    let (heard, mut hearing) = mpsc::unbounded_channel::<Heard>();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = rss_kib(pid)?;
    step(&format!(
        "opening {} idle connections over 10 workspaces",
        knobs.idle
    ));
    let opened = Instant::now();
    let idle = open_many(&client, &base, &tokens[..10], knobs.idle, &heard).await?;
    let open_rate = knobs.idle as f64 / opened.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(5)).await;
    let after = rss_kib(pid)?;
    let per = (after - before) / knobs.idle as f64;
    writeln!(
        report,
        "| 1. {} idle connections: API resident memory per connection | < 40 KiB | {per:.1} KiB ({:.0} -> {:.0} MiB; opened at {open_rate:.0}/s) | {} |",
        knobs.idle,
        before / 1024.0,
        after / 1024.0,
        if per < 40.0 { "yes" } else { "**no**" }
    )?;
    while hearing.try_recv().is_ok() {}

    // 2. Fan-out to the connections of one workspace. Workspace 0 holds every 10th idle
    // connection; more are opened there until it has `fanout`.
    let in_first = knobs.idle.div_ceil(10);
    let extra = if knobs.fanout > in_first {
        open_many(
            &client,
            &base,
            &tokens[..1],
            knobs.fanout - in_first,
            &heard,
        )
        .await?
    } else {
        Vec::new()
    };
    let audience = in_first.max(knobs.fanout);
    step(&format!(
        "fan-out: 20 replies to {audience} connections of one workspace"
    ));
    let mut latencies = Vec::new();
    for round in 0..20 {
        let sent = Instant::now();
        let reply = post_json(
            &client,
            format!("{base}/api/conversations/{}/messages", conversations[0]),
            &tokens[0],
            json!({"body": format!("Fan-out {round}")}),
        )
        .await?;
        let id = reply["id"].as_str().context("id")?.to_owned();
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut got = 0;
        while got < audience && Instant::now() < deadline {
            match tokio::time::timeout(Duration::from_secs(10), hearing.recv()).await {
                Ok(Some((heard_id, at))) if heard_id == id => {
                    latencies.push(at.duration_since(sent));
                    got += 1;
                }
                Ok(Some(_)) => {}
                _ => break,
            }
        }
        ensure!(
            got == audience,
            "round {round}: {got} of {audience} heard the reply"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    latencies.sort();
    let p99 = percentile(&latencies, 0.99);
    writeln!(
        report,
        "| 2. a reply fanned out to {audience} connections of one workspace, 20 times | p99 < 100 ms | p50 {} / p99 {} / max {} (POST to delivery) | {} |",
        ms(percentile(&latencies, 0.5)),
        ms(p99),
        ms(*latencies.last().unwrap_or(&Duration::ZERO)),
        if p99 < Duration::from_millis(100) {
            "yes"
        } else {
            "**no**"
        }
    )?;
    drop(extra);
    drop(idle);
    tokio::time::sleep(Duration::from_secs(3)).await;
    while hearing.try_recv().is_ok() {}

    // 3. SendMessage round trips at a fixed rate while `open` connections are open.
    step(&format!(
        "{} connections over {} workspaces; SendMessage at {}/s for {} s",
        knobs.open, knobs.workspaces, knobs.rate, knobs.seconds
    ));
    let open = Arc::new(open_many(&client, &base, &tokens, knobs.open, &heard).await?);
    let drain = tokio::spawn(async move {
        let mut count = 0u64;
        while hearing.recv().await.is_some() {
            count += 1;
        }
        count
    });
    // The first seconds prepare each statement on each pooled connection for each of the
    // workspaces (and load their catalog entries): warm up, then measure the steady state.
    let mut warm = send_at_rate(&open, &conversations, knobs.rate, WARM_UP_SECONDS).await?;
    warm.round_trips.sort();
    let calls = send_at_rate(&open, &conversations, knobs.rate, knobs.seconds).await?;
    let (mut round_trips, errors, achieved) = (calls.round_trips, calls.errors, calls.achieved);
    round_trips.sort();
    let p99 = percentile(&round_trips, 0.99);
    drop(open);
    drop(heard);
    let delivered = tokio::time::timeout(Duration::from_secs(10), drain)
        .await
        .map_or(0, |count| count.unwrap_or(0));
    writeln!(
        report,
        "| 3. SendMessage round trip at {}/s ({achieved:.0}/s achieved) with {} connections open, after a {WARM_UP_SECONDS} s warm-up | p99 < 20 ms, 0 errors | p50 {} / p99 {} / max {}; {} errors; {delivered} events delivered | {} |",
        knobs.rate,
        knobs.open,
        ms(percentile(&round_trips, 0.5)),
        ms(p99),
        ms(*round_trips.last().unwrap_or(&Duration::ZERO)),
        errors.len(),
        if p99 < Duration::from_millis(20) && errors.is_empty() {
            "yes"
        } else {
            "**no**"
        }
    )?;
    writeln!(
        report,
        "| 3. ... its warm-up: the first {WARM_UP_SECONDS} s of calls, statements new to the pooled connections (not the measure) |  | p50 {} / p99 {} / max {}; {} errors |  |",
        ms(percentile(&warm.round_trips, 0.5)),
        ms(percentile(&warm.round_trips, 0.99)),
        ms(*warm.round_trips.last().unwrap_or(&Duration::ZERO)),
        warm.errors.len(),
    )?;
    if let Some(first) = errors.first() {
        eprintln!("first error: {first}");
    }
    drop(server);

    let machine = format!(
        "hub benchmark: {} cores, {:.0} s in all",
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        started_all.elapsed().as_secs_f64()
    );
    let text = format!("{machine}\n{report}");
    std::fs::write(out.join("results.md"), &text)?;
    println!("\n{text}\nreports in {}", out.display());
    Ok(())
}
