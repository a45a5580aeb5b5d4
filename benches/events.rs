//! The event log's costs, each beside a baseline of the same run:
//!
//! 1. The write path: replies per second with and without their event. Baseline: a reply's
//!    transaction as the API and the hub run it, without its event
//!    (`notifications::write_by_member` and `messages::store`: the conversation's
//!    `lastMessageAt` with the author, contact and settings, then the message); against it the
//!    same with its `message.created` event (`messages::record_created`, which on PostgreSQL
//!    writes the message in the event's statement), which is what
//!    `notifications::add_by_member` commits. `EVENTS_BENCH_WRITERS` (16) writers for
//!    `EVENTS_BENCH_SECONDS` (30) per run, the two alternated `EVENTS_BENCH_ROUNDS` (3) times,
//!    each run after a `CHECKPOINT` (so no run pays for the pages another dirtied), first all
//!    in one workspace over its 4 conversations (every writer waits for the one log head, and
//!    for its conversation's row behind 3 others: the worst case), then in one workspace with
//!    a conversation each (the log's head is all the writers share), then spread over
//!    `EVENTS_BENCH_SPREAD` (16) workspaces. `EVENTS_BENCH_ROUNDS=0` skips the write path;
//!    `EVENTS_BENCH_CASES=2` (or `1,3`) runs only those of the three cases. Beside each
//!    ratio, the machine's busy CPU a reply on each side (`/proc/stat`): when the two agree,
//!    what the event costs is CPU. With `EVENTS_BENCH_API_WITHOUT` (the path of an API built
//!    without the reply's event: `docs/performance.md` gives the change), the same cases again
//!    through HTTP: `EVENTS_BENCH_WRITERS` clients posting replies
//!    (`POST /api/conversations/{id}/messages`) to the product's API and to that build, served
//!    side by side on the same database, alternated as above.
//! 2. The read path: `GET /api/events?after=...&limit=1000` from the release API, with
//!    `EVENTS_BENCH_WORKSPACES` (10 000) workspaces in the database, at random ones of the
//!    `EVENTS_BENCH_FULL` (100) that hold 1 200 events each, every other one's numbered by
//!    batches after their commits as a busy workspace's are (each kind read and reported on
//!    its own); `EVENTS_BENCH_READS` (2 000)
//!    requests from one client, then from 4 at once; p50, p99, each request timed to its
//!    response's last byte. Baseline: the same page read straight from PostgreSQL by the
//!    statement the route runs (`events::log::read_stored`, on a connection of a pool like
//!    the API's; no HTTP, no token, no head). The reads start after a
//!    `CHECKPOINT`: creating the workspaces dirties their catalogs' pages, which the
//!    checkpointer would otherwise write out during the reads.
//!
//! `cargo bench --bench events` (or `BENCH_ONLY=events bash .ci/bench`).

mod common;
#[path = "load/cpu.rs"]
#[allow(dead_code)]
mod cpu;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use common::{
    bare_workspaces, bench_env, insert_users, jwt_keys, knob, ms, percentile, post_json,
    select_workspace, serve_api, serve_api_binary, workspace_via_api,
};
use rand::RngExt;
use serde_json::json;
use sqlx::PgPool;
use supportdesk::conversations::messages::Recipients;
use supportdesk::conversations::messages::{self, MemberMessage, MessageKind};
use supportdesk::credentials::jwt::JwtKeys;
use supportdesk::events::log::{self, Appended};
use supportdesk::events::publisher::Publisher;
use supportdesk::notifications;
use supportdesk_core::config::Settings;
use supportdesk_core::db::Engine;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_test_support::database::TestDatabase;
use uuid::Uuid;

/// The inbound mail domain a reply by email would name (no conversation here is one).
const DOMAIN: &str = "bench.test";

fn main() -> anyhow::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run())
}

/// A workspace made through the API, its owner and its conversations.
struct Workspace {
    id: Uuid,
    owner: Uuid,
    conversations: Vec<Uuid>,
}

/// The machine's busy CPU time so far, in clock ticks of `/proc/stat`:
/// user, nice, system, irq and softirq of every core, so every process of the write path
/// (the writers here, PostgreSQL's backends, the WAL writer, the numbering passes) and not
/// the time a hypervisor took (`steal`). `None` where there is no `/proc/stat`.
fn busy_cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<u64> = stat
        .lines()
        .next()?
        .strip_prefix("cpu ")?
        .split_whitespace()
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    let [user, nice, system, _idle, _iowait, irq, softirq, ..] = fields[..] else {
        return None;
    };
    Some(user + nice + system + irq + softirq)
}

/// One timed run of the write path: replies per second, and the machine's busy CPU
/// microseconds per reply over the same window (`None` without `/proc/stat`).
struct Run {
    replies_per_second: f64,
    cpu_us_per_reply: Option<f64>,
}

/// The means of a measure's rounds without and with the event, and each round's pair as
/// "with/without".
fn compared(without: Vec<f64>, with: Vec<f64>) -> (f64, f64, String) {
    let mean = |side: &[f64]| side.iter().sum::<f64>() / side.len().max(1) as f64;
    let each: Vec<String> = without
        .iter()
        .zip(&with)
        .map(|(without, with)| format!("{with:.0}/{without:.0}"))
        .collect();
    (mean(&without), mean(&with), each.join(", "))
}

/// The lines of one write-path case: replies a second with and without the event, and the
/// same cost as CPU a reply. Where the two agree, what the event takes is CPU on a machine
/// with none to spare; where throughput drops more, writers wait (on the log's head, on the
/// WAL's flush) with cores idle.
fn report(case: &str, without: &[Run], with: &[Run]) -> Vec<String> {
    let replies = |side: &[Run]| side.iter().map(|r| r.replies_per_second).collect();
    let (without_mean, with_mean, each) = compared(replies(without), replies(with));
    let mut lines = vec![format!(
        "1. replies/s, {case}: without the event {without_mean:.0}, with it {with_mean:.0}: {:.1} % of the throughput kept (budget: at least 85 %); each round, with/without: {each}",
        100.0 * with_mean / without_mean,
    )];
    let cpu = |side: &[Run]| side.iter().map(|r| r.cpu_us_per_reply).collect();
    if let (Some(cpu_without), Some(cpu_with)) = (cpu(without), cpu(with)) {
        let (without_mean, with_mean, each) = compared(cpu_without, cpu_with);
        lines.push(format!(
            "1. CPU a reply (the whole machine), {case}: without the event {without_mean:.0} µs, with it {with_mean:.0} µs: {:.1} % of the throughput a CPU-bound machine would keep; each round, with/without: {each}",
            100.0 * without_mean / with_mean,
        ));
    }
    lines
}

/// Replies per second by `writers` writers over `workspaces` (each writer in one of the
/// first `conversations` conversations of its workspace), with or without the event.
async fn replies_per_second(
    pool: &PgPool,
    workspaces: &[Workspace],
    conversations: usize,
    writers: usize,
    seconds: u64,
    with_event: bool,
    engine: Engine,
) -> anyhow::Result<Run> {
    // The previous run's pages written out, so no run pays for another's checkpoint.
    sqlx::query("CHECKPOINT").execute(pool).await?;
    let done = Arc::new(AtomicU64::new(0));
    let waited = Arc::new(AtomicU64::new(0));
    let publisher = Publisher::new(Vec::new(), pool.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for w in 0..writers {
        let workspace = &workspaces[w % workspaces.len()];
        let schema = TenantSchema::for_workspace(workspace.id);
        let conversation =
            workspace.conversations[w % conversations.min(workspace.conversations.len())];
        let (pool, done, stop, owner) = (pool.clone(), done.clone(), stop.clone(), workspace.owner);
        let (publisher, waited, workspace_id) = (publisher.clone(), waited.clone(), workspace.id);
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let message = MemberMessage {
                    conversation_id: conversation,
                    kind: MessageKind::Outgoing,
                    body: "Bench reply",
                    attachment_ids: &[],
                    recipients: &Recipients::default(),
                };
                let mut tx = pool.begin().await?;
                let mut written = notifications::write_by_member(
                    &mut tx, &schema, &message, owner, DOMAIN, engine,
                )
                .await?
                .context("the reply was written")?;
                let posted = if with_event {
                    Some(
                        messages::record_created(&mut tx, &schema, written, Uuid::now_v7(), engine)
                            .await?,
                    )
                } else {
                    messages::store(&mut tx, &schema, &mut written).await?;
                    None
                };
                tx.commit().await?;
                // An event that waited for its number goes to the publisher as the API hands
                // it, which numbers it in a pass of its own (with no subscriber to hear it).
                if posted.is_some_and(|posted| posted.event_seq.is_none()) {
                    waited.fetch_add(1, Ordering::Relaxed);
                    publisher.committed(workspace_id, Appended::Waiting(schema.clone()));
                }
                done.fetch_add(1, Ordering::Relaxed);
            }
            anyhow::Ok(())
        }));
    }
    let run = timed(seconds, &done).await;
    stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.await??;
    }
    // The passes still running, outside the timed window (the next run starts without them).
    publisher.drain().await;
    let (done, waited) = (done.load(Ordering::Relaxed), waited.load(Ordering::Relaxed));
    if with_event {
        eprintln!("         {waited} of {done} events waited for their numbers");
    }
    Ok(run)
}

/// Replies per second through the API at `base` (`POST /api/conversations/{id}/messages`
/// with a workspace token, checked for its 201), by `writers` clients over `workspaces` as
/// [`replies_per_second`] spreads its writers: the reply as a client sends it, HTTP, the
/// token, the tenant's connection, the hub told after the commit and all.
#[allow(clippy::too_many_arguments)]
async fn replies_over_http(
    client: &reqwest::Client,
    base: &str,
    jwt: &JwtKeys,
    workspaces: &[Workspace],
    conversations: usize,
    writers: usize,
    seconds: u64,
    pool: &PgPool,
) -> anyhow::Result<Run> {
    sqlx::query("CHECKPOINT").execute(pool).await?;
    // Tokens taken for this run: a benchmark of many rounds outlasts a token's lifetime.
    let mut tokens = Vec::with_capacity(workspaces.len());
    for workspace in workspaces {
        let user_token = jwt.issue_user(workspace.owner, 0)?.token;
        tokens.push(Arc::new(
            select_workspace(client, base, &user_token, workspace.id).await?,
        ));
    }
    let done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for w in 0..writers {
        let workspace = &workspaces[w % workspaces.len()];
        let conversation =
            workspace.conversations[w % conversations.min(workspace.conversations.len())];
        let url = format!("{base}/api/conversations/{conversation}/messages");
        let (client, token) = (client.clone(), tokens[w % workspaces.len()].clone());
        let (done, stop) = (done.clone(), stop.clone());
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let response = client
                    .post(&url)
                    .bearer_auth(token.as_str())
                    .json(&json!({"body": "Bench reply"}))
                    .send()
                    .await?;
                let status = response.status();
                let text = response.text().await?;
                ensure!(status.as_u16() == 201, "{url}: {status} {text}");
                done.fetch_add(1, Ordering::Relaxed);
            }
            anyhow::Ok(())
        }));
    }
    let run = timed(seconds, &done).await;
    stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.await??;
    }
    Ok(run)
}

/// Waits `seconds` while writers count their replies in `done`: the replies a second and
/// the machine's busy CPU a reply over that window.
async fn timed(seconds: u64, done: &AtomicU64) -> Run {
    let (started, ticks_before, done_before) = (
        Instant::now(),
        busy_cpu_ticks(),
        done.load(Ordering::Relaxed),
    );
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let (ticks_after, done_after) = (busy_cpu_ticks(), done.load(Ordering::Relaxed));
    let (elapsed, replies) = (started.elapsed(), done_after.saturating_sub(done_before));
    Run {
        replies_per_second: replies as f64 / elapsed.as_secs_f64(),
        cpu_us_per_reply: ticks_before.zip(ticks_after).map(|(before, after)| {
            1e6 * after.saturating_sub(before) as f64
                / cpu::ticks_per_second()
                / replies.max(1) as f64
        }),
    }
}

/// What the benchmark checks of a page it read.
#[derive(serde::Deserialize)]
struct Page {
    events: Vec<serde::de::IgnoredAny>,
}

/// `reads` pages of 1 000 events from random `targets`, by `clients` clients at once, each
/// through the API and then straight from PostgreSQL; the sorted latencies of both.
async fn read_pages(
    client: &reqwest::Client,
    base: &str,
    pool: &PgPool,
    targets: &Arc<Vec<(Uuid, String)>>,
    reads: usize,
    clients: usize,
) -> anyhow::Result<(Vec<Duration>, Vec<Duration>)> {
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (client, base, targets, pool) = (
            client.clone(),
            base.to_owned(),
            targets.clone(),
            pool.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let (mut api, mut db) = (Vec::new(), Vec::new());
            for _ in 0..reads / clients {
                let (id, token) = &targets[rand::rng().random_range(0..targets.len())];
                let after = rand::rng().random_range(0..150);
                let started = Instant::now();
                let response = client
                    .get(format!("{base}/api/events?after={after}&limit=1000"))
                    .bearer_auth(token)
                    .send()
                    .await?;
                ensure!(
                    response.status() == 200,
                    "GET /api/events: {}",
                    response.status()
                );
                // Served when its last byte is in: the client's parsing is its own.
                let body = response.bytes().await?;
                api.push(started.elapsed());
                // Counted without building a tree: the client shares the two cores.
                let page: Page = serde_json::from_slice(&body)?;
                ensure!(page.events.len() == 1000);
                let schema = TenantSchema::for_workspace(*id);
                let started = Instant::now();
                let mut conn = pool.acquire().await?;
                let rows = log::read_stored(&mut conn, &schema, after, None, 1000).await?;
                drop(conn);
                db.push(started.elapsed());
                ensure!(rows.len() == 1000);
            }
            anyhow::Ok((api, db))
        }));
    }
    let (mut api, mut db) = (Vec::new(), Vec::new());
    for task in tasks {
        let (a, d) = task.await??;
        api.extend(a);
        db.extend(d);
    }
    api.sort();
    db.sort();
    Ok((api, db))
}

async fn run() -> anyhow::Result<()> {
    let writers = knob("EVENTS_BENCH_WRITERS", 16).max(1);
    let seconds = knob("EVENTS_BENCH_SECONDS", 30).max(1) as u64;
    let spread = knob("EVENTS_BENCH_SPREAD", 16).max(1);
    let total = knob("EVENTS_BENCH_WORKSPACES", 10_000).max(spread);
    let full = knob("EVENTS_BENCH_FULL", 100).clamp(1, total);
    let reads = knob("EVENTS_BENCH_READS", 2_000).max(10);
    let rounds = knob("EVENTS_BENCH_ROUNDS", 3);
    let started_all = Instant::now();
    let step = |what: &str| eprintln!("[{:>6.1} s] {what}", started_all.elapsed().as_secs_f64());
    let client = reqwest::Client::builder().no_proxy().build()?;

    step("creating the benchmark database and starting the API (release build)");
    let database = TestDatabase::empty().await;
    let env = bench_env(&database.url, &[]);
    let settings = Settings::load_from(None, Some(env.clone()))?;
    let (_server, base) = serve_api(&client, &env).await?;
    // The API's own pool (its statement cache, plan settings and one connection a writer), so
    // the writers run their statements as a request does.
    let pool = supportdesk_core::db::pool(
        &settings.database,
        u32::try_from(writers.max(4)).unwrap_or(u32::MAX),
    );
    let engine = Engine::detect(&pool).await?;
    let jwt = jwt_keys(&settings)?;

    // The pages are read from workspaces of their own: those the write path filled hold
    // what its cases left (in one workspace, events all numbered by batches).
    let readers_from = if rounds > 0 { spread } else { 0 };
    let api_workspaces = (readers_from + full).max(spread);
    step(&format!(
        "{api_workspaces} workspaces through the API, 4 conversations each ({} in the first)",
        writers.max(4)
    ));
    let owners = insert_users(&pool, "events-owner-", api_workspaces, "unused").await?;
    let mut workspaces = Vec::new();
    for (i, (user_id, _)) in owners.iter().enumerate() {
        let user_token = jwt.issue_user(*user_id, 0)?.token;
        let (id, token) =
            workspace_via_api(&client, &base, &user_token, &format!("Events {i}")).await?;
        let mut conversations = Vec::new();
        let count = if i == 0 { writers.max(4) } else { 4 };
        for c in 0..count {
            let conversation = post_json(
                &client,
                format!("{base}/api/conversations"),
                &token,
                json!({"contact": {"email": format!("c{i}-{c}@bench.test")}, "body": "Hello"}),
            )
            .await?;
            conversations.push(conversation["id"].as_str().context("id")?.parse()?);
        }
        workspaces.push(Workspace {
            id,
            owner: *user_id,
            conversations,
        });
    }

    // 1. The write path.
    let mut lines = Vec::new();
    let scenarios = [
        ("one workspace, 4 conversations", &workspaces[..1], 4),
        (
            "one workspace, a conversation each",
            &workspaces[..1],
            writers,
        ),
        ("spread", &workspaces[..spread], 4),
    ];
    // `EVENTS_BENCH_CASES`: which of them to run, by number (`2` or `1,3`); all by default.
    let cases = std::env::var("EVENTS_BENCH_CASES").unwrap_or_default();
    let chosen =
        |case: usize| cases.is_empty() || cases.split(',').any(|c| c.trim() == case.to_string());
    for (case, (label, set, conversations)) in scenarios.iter().copied().enumerate() {
        if rounds == 0 || !chosen(case + 1) {
            continue;
        }
        let (mut without, mut with) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            step(&format!("write path, {label}: round {round}"));
            for with_event in [false, true] {
                let run = replies_per_second(
                    &pool,
                    set,
                    conversations,
                    writers,
                    seconds,
                    with_event,
                    engine,
                )
                .await?;
                let side = if with_event { &mut with } else { &mut without };
                side.push(run);
            }
        }
        lines.extend(report(
            &format!("{writers} writers, {label} ({} workspaces)", set.len()),
            &without,
            &with,
        ));
    }

    // 1b. The same through the API, against a build of it without the reply's event
    // (`EVENTS_BENCH_API_WITHOUT`, docs/performance.md says how it is made).
    match std::env::var_os("EVENTS_BENCH_API_WITHOUT") {
        Some(binary) if rounds > 0 => {
            let (_bare, bare_base) =
                serve_api_binary(&client, &env, std::path::Path::new(&binary)).await?;
            for (case, (label, set, conversations)) in scenarios.into_iter().enumerate() {
                if !chosen(case + 1) {
                    continue;
                }
                let (mut without, mut with) = (Vec::new(), Vec::new());
                for round in 0..rounds {
                    step(&format!(
                        "write path through the API, {label}: round {round}"
                    ));
                    for (api, side) in [(&bare_base, &mut without), (&base, &mut with)] {
                        side.push(
                            replies_over_http(
                                &client,
                                api,
                                &jwt,
                                set,
                                conversations,
                                writers,
                                seconds,
                                &pool,
                            )
                            .await?,
                        );
                    }
                }
                lines.extend(report(
                    &format!(
                        "{writers} clients through the API, {label} ({} workspaces)",
                        set.len()
                    ),
                    &without,
                    &with,
                ));
            }
        }
        _ => eprintln!(
            "(the write path through the API is measured with EVENTS_BENCH_API_WITHOUT, the path of an API built without the reply's event)"
        ),
    }

    // 2. The read path: every full workspace gets 1 200 events (replies through the write
    // path), the rest of the 10 000 are schemas of their own with a few. Every other full
    // workspace gets its events the way a busy one does: written while the log's head is
    // held, so each waits for its number, then numbered after their commits by passes of
    // `events::log::number_waiting` (rows untouched, one `event_batches` row a pass); a page
    // of those is read through their batches. The reads are reported for each kind.
    let readers = &workspaces[readers_from..readers_from + full];
    let by_batches_at = |n: usize| n % 2 == 1;
    step(&format!(
        "{full} workspaces with 1 200 events each (every other one numbered by batches)"
    ));
    for (n, workspace) in readers.iter().enumerate() {
        let schema = TenantSchema::for_workspace(workspace.id);
        let have: i64 = sqlx::query_scalar(schema.sql("SELECT seq FROM {schema}.event_log_head"))
            .fetch_one(&pool)
            .await?;
        let batched = by_batches_at(n);
        let holder = if batched {
            let mut holder = pool.begin().await?;
            sqlx::query(schema.sql("SELECT FROM {schema}.event_log_head FOR UPDATE"))
                .execute(&mut *holder)
                .await?;
            Some(holder)
        } else {
            None
        };
        for _ in have..1_200 {
            let mut tx = pool.begin().await?;
            let message = MemberMessage {
                conversation_id: workspace.conversations[0],
                kind: MessageKind::Outgoing,
                body: "Bench reply",
                attachment_ids: &[],
                recipients: &Recipients::default(),
            };
            let written = notifications::write_by_member(
                &mut tx,
                &schema,
                &message,
                workspace.owner,
                DOMAIN,
                engine,
            )
            .await?
            .context("the reply was written")?;
            let posted =
                messages::record_created(&mut tx, &schema, written, Uuid::now_v7(), engine).await?;
            ensure!(
                !batched || posted.event_seq.is_none(),
                "an event written while the head is held waits for its number"
            );
            tx.commit().await?;
        }
        if let Some(holder) = holder {
            holder.rollback().await?;
            let mut passes = 0;
            while !log::number_waiting(&pool, &schema).await?.settled {
                passes += 1;
                ensure!(passes < 1_000, "the log settled");
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            let batches: i64 =
                sqlx::query_scalar(schema.sql("SELECT count(*) FROM {schema}.event_batches"))
                    .fetch_one(&pool)
                    .await?;
            ensure!(batches >= 2, "1 200 events took two batches or more");
        }
    }
    let extra = total.saturating_sub(workspaces.len());
    step(&format!(
        "{extra} more workspaces (schemas at the latest tenant version)"
    ));
    bare_workspaces(&pool, extra, "extra", None, 1000).await?;

    // Tokens taken now: making the workspaces can outlast the ones taken when they were made.
    let (mut in_rows, mut by_batches) = (Vec::new(), Vec::new());
    for (n, workspace) in readers.iter().enumerate() {
        let user_token = jwt.issue_user(workspace.owner, 0)?.token;
        let token = select_workspace(&client, &base, &user_token, workspace.id).await?;
        let kind = if by_batches_at(n) {
            &mut by_batches
        } else {
            &mut in_rows
        };
        kind.push((workspace.id, token));
    }
    sqlx::query("CHECKPOINT").execute(&pool).await?;
    for (kind, targets) in [
        ("numbered in their rows", in_rows),
        ("numbered by batches", by_batches),
    ] {
        if targets.is_empty() {
            continue;
        }
        let count = targets.len();
        let targets = Arc::new(targets);
        for clients in [1, 4] {
            step(&format!(
                "{reads} reads of 1 000 events {kind} ({count} workspaces), {clients} client(s)"
            ));
            let (api, db) = read_pages(&client, &base, &pool, &targets, reads, clients).await?;
            lines.push(format!(
                "2. GET /api/events, 1 000 events a page {kind} (at {count} workspaces of {total}), {clients} client(s) at once: p50 {} p99 {} (budget: p99 under 20 ms); the same page straight from PostgreSQL: p50 {} p99 {}; API p99 / PostgreSQL p99 = {:.1}",
                ms(percentile(&api, 0.50)),
                ms(percentile(&api, 0.99)),
                ms(percentile(&db, 0.50)),
                ms(percentile(&db, 0.99)),
                percentile(&api, 0.99).as_secs_f64() / percentile(&db, 0.99).as_secs_f64().max(1e-9),
            ));
        }
    }
    step("done");
    println!(
        "event log benchmark ({} cores)",
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    );
    for line in lines {
        println!("{line}");
    }
    Ok(())
}
