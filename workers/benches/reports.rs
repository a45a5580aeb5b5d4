//! Reports' costs, each beside a baseline of the same run:
//!
//! 1. Reading: a workspace holding a year of `REPORTS_BENCH_CONVERSATIONS` (1 000 000)
//!    conversations, a tenth of them reopened once (so 1 100 000 cycles), answered,
//!    resolved and one in five rated, by 50 agents over 3 channels, with 8 760 hours of
//!    incoming messages; every report for the whole year through the API (JSON, one client,
//!    `REPORTS_BENCH_READS` (30) requests each after 3 to warm up), grouped by day and by
//!    month, in calendar and business time, filtered by agent, channel and label; p50, p99.
//!    Budget: p99 under 300 ms. Baseline: one pass over the year's first responses straight
//!    from PostgreSQL (`count(*)` of the same index range), p99 of as many.
//!    The year's rows are written straight into the report tables, as the fold would leave
//!    them (cycles, then their hourly rollups from them, the labels' with the worker's own
//!    `reports::labels::build`; folding 5 000 000 events first would only make the run long).
//! 2. Upkeep: replies per second (with their `message.created` events, the API's write path)
//!    by `REPORTS_BENCH_WRITERS` (16) writers over as many workspaces, for
//!    `REPORTS_BENCH_SECONDS` (20) per run, without and then with the reports fold running
//!    beside them (one task catching every workspace up, as a woken worker does), alternated
//!    `REPORTS_BENCH_ROUNDS` (3) times, each run after a `CHECKPOINT`. Budget: at least 90 %
//!    of the throughput kept. Also: events folded per second, and how far the fold was behind
//!    when the writers stopped.
//!
//! `REPORTS_BENCH_HOLD=<seconds>` keeps the year's database that long once it is written (its
//! URL, schema, agent and label on stderr), to read the reports' plans with `EXPLAIN`.
//!
//! Needs PostgreSQL and Redis as the tests do (`TEST_DATABASE_URL`, `TEST_REDIS_URL`).
//! `cargo bench -p supportdesk-worker --bench reports` (or `BENCH_ONLY=reports bash .ci/bench`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test and benchmark harness: a failure here is a failed run, with its message"
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use serde_json::{Value, json};
use sqlx::PgPool;
use supportdesk::conversations::messages::{self, MemberMessage, MessageKind, Recipients};
use supportdesk::notifications;
use supportdesk::startup::Application;
use supportdesk_core::config::Settings;
use supportdesk_core::db::Engine;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::test_env;
use supportdesk_worker::reports::catch_up;
use uuid::Uuid;

const PASSWORD: &str = "Corr3ctHorse";
/// The inbound mail domain a reply by email would name (no conversation here is one).
const DOMAIN: &str = "bench.test";

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// A workspace made through the API: its id, token, Owner's user id and conversations.
struct Workspace {
    id: Uuid,
    token: String,
    owner: Uuid,
    conversations: Vec<Uuid>,
}

async fn post(
    client: &reqwest::Client,
    url: String,
    token: Option<&str>,
    body: Value,
) -> anyhow::Result<Value> {
    let mut request = client.post(&url).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await?;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or_default();
    ensure!(status.is_success(), "POST {url}: {status} {body}");
    Ok(body)
}

async fn workspace(
    client: &reqwest::Client,
    api: &str,
    n: usize,
    conversations: usize,
) -> anyhow::Result<Workspace> {
    let registered = post(
        client,
        format!("{api}/auth/register"),
        None,
        json!({"email": format!("reports-{n}-{}@bench.test", Uuid::new_v4().simple()),
               "password": PASSWORD, "fullName": format!("Owner {n}")}),
    )
    .await?;
    let user_token = registered["token"].as_str().context("token")?.to_owned();
    let owner: Uuid = registered["user"]["id"].as_str().context("id")?.parse()?;
    let created = post(
        client,
        format!("{api}/workspaces"),
        Some(&user_token),
        json!({"name": format!("Reports {n}")}),
    )
    .await?;
    let id: Uuid = created["id"].as_str().context("id")?.parse()?;
    let selected = post(
        client,
        format!("{api}/workspaces/{id}/select"),
        Some(&user_token),
        json!({}),
    )
    .await?;
    let token = selected["token"].as_str().context("token")?.to_owned();
    let mut ids = Vec::new();
    for c in 0..conversations {
        let conversation = post(
            client,
            format!("{api}/api/conversations"),
            Some(&token),
            json!({"contact": {"email": format!("c{n}-{c}@bench.test")}, "body": "Hello"}),
        )
        .await?;
        ids.push(conversation["id"].as_str().context("id")?.parse()?);
    }
    Ok(Workspace {
        id,
        token,
        owner,
        conversations: ids,
    })
}

/// Writes a year of report rows into `schema`: `count` conversations from `start`, evenly
/// spread, a tenth reopened once; 50 agents; the hours' incoming messages.
async fn a_year(
    pool: &PgPool,
    schema: &TenantSchema,
    count: usize,
    label: Uuid,
) -> anyhow::Result<Vec<Uuid>> {
    let agents: Vec<Uuid> = sqlx::query_scalar(schema.sql(
        "INSERT INTO {schema}.agent_profiles
                (user_id, display_name, email, full_name, role, status, joined_at)
         SELECT gen_random_uuid(), 'Agent ' || n, 'agent' || n || '@bench.test', 'Agent ' || n,
                'agent', 'active', now()
           FROM generate_series(1, 50) n
      RETURNING id",
    ))
    .fetch_all(pool)
    .await?;
    let batch = 100_000usize;
    for first in (0..count).step_by(batch) {
        let last = (first + batch).min(count);
        // Cycle 1 of each conversation, and cycle 2 of every tenth: a reopening a day later.
        sqlx::query(schema.sql(
            "INSERT INTO {schema}.report_cycles
                    (conversation_id, cycle, channel, started_at, assignee_id, labels,
                     first_incoming_at, first_response_at, responder_id, response_seconds,
                     response_business_seconds, resolved_at, resolution_seconds,
                     resolution_business_seconds, rating_id, rating, rated_at)
             SELECT gen_random_uuid(), c.cycle, (ARRAY['chat', 'email', 'manual'])[1 + g.n % 3],
                    g.s + (c.cycle - 1) * interval '1 day', $4[1 + g.n % 50],
                    CASE WHEN g.n % 5 = 0 THEN ARRAY[$5::uuid] ELSE '{}'::uuid[] END,
                    g.s, g.s + g.answer * interval '1 second', $4[1 + (g.n * 7) % 50],
                    g.answer, g.answer / 3,
                    CASE WHEN g.n % 20 <> 0 THEN g.s + g.resolve * interval '1 second' END,
                    CASE WHEN g.n % 20 <> 0 THEN g.resolve END,
                    CASE WHEN g.n % 20 <> 0 THEN g.resolve / 3 END,
                    CASE WHEN g.n % 20 <> 0 AND g.n % 5 = 1 THEN gen_random_uuid() END,
                    CASE WHEN g.n % 20 <> 0 AND g.n % 5 = 1 THEN 1 + (g.n / 5) % 5 END,
                    CASE WHEN g.n % 20 <> 0 AND g.n % 5 = 1
                         THEN g.s + (g.resolve + 600) * interval '1 second' END
               FROM (SELECT n, timestamptz '2025-01-01 00:00:00+00'
                               + (n::float8 / $3) * interval '365 days' AS s,
                            (30 + random() * 7200)::int AS answer,
                            (3600 + random() * 259200)::int AS resolve
                       FROM generate_series($1::int, $2::int - 1) n) g
               CROSS JOIN LATERAL (SELECT 1 AS cycle UNION ALL
                                   SELECT 2 WHERE g.n % 10 = 0) c",
        ))
        .bind(first as i32)
        .bind(last as i32)
        .bind(count as f64)
        .bind(&agents)
        .bind(label)
        .execute(pool)
        .await?;
        eprintln!("         {last} conversations");
    }
    // The hours as the fold leaves them: each cycle's facts in the hour they happened.
    let facts = "SELECT date_trunc('hour', started_at, 'UTC') AS hour, channel,
                        assignee_id AS agent, (cycle = 1)::int AS created,
                        (cycle > 1)::int AS reopened, 0 AS resolved, NULL::int AS rs,
                        NULL::int AS rb, NULL::int AS ls, NULL::int AS lb, NULL::int AS rating
                   FROM {schema}.report_cycles
                 UNION ALL
                 SELECT date_trunc('hour', first_response_at, 'UTC'), channel, responder_id,
                        0, 0, 0, response_seconds, response_business_seconds, NULL, NULL, NULL
                   FROM {schema}.report_cycles WHERE first_response_at IS NOT NULL
                 UNION ALL
                 SELECT date_trunc('hour', resolved_at, 'UTC'), channel, assignee_id, 0, 0, 1,
                        NULL, NULL, resolution_seconds, resolution_business_seconds, NULL
                   FROM {schema}.report_cycles WHERE resolved_at IS NOT NULL
                 UNION ALL
                 SELECT date_trunc('hour', rated_at, 'UTC'), channel, assignee_id, 0, 0, 0,
                        NULL, NULL, NULL, NULL, rating
                   FROM {schema}.report_cycles WHERE rating IS NOT NULL";
    let rolled = "ARRAY[count(*) FILTER (WHERE rating = 1), count(*) FILTER (WHERE rating = 2),
                        count(*) FILTER (WHERE rating = 3), count(*) FILTER (WHERE rating = 4),
                        count(*) FILTER (WHERE rating = 5)]::int[],
                  coalesce(array_agg(rs) FILTER (WHERE rs IS NOT NULL), '{}'),
                  coalesce(array_agg(rb) FILTER (WHERE rb IS NOT NULL), '{}'),
                  coalesce(array_agg(ls) FILTER (WHERE ls IS NOT NULL), '{}'),
                  coalesce(array_agg(lb) FILTER (WHERE lb IS NOT NULL), '{}')";
    sqlx::query(schema.sql(&format!(
        "INSERT INTO {{schema}}.report_hours
                (hour, channel, created, reopened, resolved, ratings, response_seconds,
                 response_business_seconds, resolution_seconds, resolution_business_seconds)
         SELECT hour, channel, sum(created), sum(reopened), sum(resolved), {rolled}
           FROM ({facts}) f GROUP BY hour, channel"
    )))
    .execute(pool)
    .await?;
    sqlx::query(schema.sql(&format!(
        "INSERT INTO {{schema}}.report_agent_hours
                (hour, agent_id, ratings, response_seconds, response_business_seconds,
                 resolution_seconds, resolution_business_seconds)
         SELECT hour, agent, {rolled}
           FROM ({facts}) f WHERE agent IS NOT NULL AND created + reopened = 0
          GROUP BY hour, agent"
    )))
    .execute(pool)
    .await?;
    sqlx::query(schema.sql(&format!(
        "INSERT INTO {{schema}}.report_agent_days
                (day, agent_id, ratings, response_seconds, response_business_seconds,
                 resolution_seconds, resolution_business_seconds)
         SELECT date_trunc('day', hour, 'UTC'), agent, {rolled}
           FROM ({facts}) f WHERE agent IS NOT NULL AND created + reopened = 0
          GROUP BY 1, agent"
    )))
    .execute(pool)
    .await?;
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.report_hours AS h (hour, channel, incoming)
         SELECT h, c, 1 + (random() * 600)::int
           FROM generate_series(timestamptz '2025-01-01 00:00:00+00',
                                timestamptz '2025-12-31 23:00:00+00', interval '1 hour') h,
                unnest(ARRAY['chat', 'email', 'manual']) c
         ON CONFLICT (hour, channel) DO UPDATE SET incoming = EXCLUDED.incoming",
    ))
    .execute(pool)
    .await?;
    // The label rollups as the fold keeps them, from the same cycles.
    let mut conn = pool.acquire().await?;
    supportdesk_worker::reports::labels::build(&mut conn, schema).await?;
    drop(conn);
    for table in [
        "report_cycles",
        "report_hours",
        "report_agent_hours",
        "report_agent_days",
        "report_label_hours",
        "report_label_agent_hours",
        "report_label_agent_days",
    ] {
        sqlx::query(schema.sql(&format!("VACUUM ANALYZE {{schema}}.{table}")))
            .execute(pool)
            .await?;
    }
    // Writing the year dirtied about a gigabyte of pages: without a checkpoint now, the
    // checkpointer writes them out during the reads below, and the reads measure that.
    sqlx::query("CHECKPOINT").execute(pool).await?;
    Ok(agents)
}

/// `reads` requests of `path` after 3 to warm up, one at a time; sorted latencies.
async fn timed(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    reads: usize,
) -> anyhow::Result<Vec<Duration>> {
    let mut times = Vec::new();
    for i in 0..reads + 3 {
        let started = Instant::now();
        let response = client.get(url).bearer_auth(token).send().await?;
        let status = response.status();
        let body = response.bytes().await?;
        ensure!(status == 200, "GET {url}: {status} {body:?}");
        if i >= 3 {
            times.push(started.elapsed());
        }
    }
    times.sort();
    Ok(times)
}

/// Replies per second by one writer per workspace, with their events, for `seconds`; with
/// `fold`, a task catches every workspace's reports up beside them. The rate, and with the
/// fold, the events it folded and how many it had left when the writers stopped.
async fn replies_per_second(
    pool: &PgPool,
    workspaces: &[Workspace],
    seconds: u64,
    fold: bool,
    engine: Engine,
) -> anyhow::Result<(f64, u64, i64)> {
    let schemas: Vec<TenantSchema> = workspaces
        .iter()
        .map(|w| TenantSchema::for_workspace(w.id))
        .collect();
    // Each run starts with the reports caught up, so a run with the fold folds its own events.
    for schema in &schemas {
        catch_up(pool, schema).await?;
    }
    // And with the previous run's pages written out, so no run pays for another's checkpoint.
    sqlx::query("CHECKPOINT").execute(pool).await?;
    let done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    for (workspace, schema) in workspaces.iter().zip(&schemas) {
        let (pool, done, stop) = (pool.clone(), done.clone(), stop.clone());
        let (schema, owner) = (schema.clone(), workspace.owner);
        let conversations = workspace.conversations.clone();
        writers.push(tokio::spawn(async move {
            let mut n = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let message = MemberMessage {
                    conversation_id: conversations[n % conversations.len()],
                    kind: MessageKind::Outgoing,
                    body: "Bench reply",
                    attachment_ids: &[],
                    recipients: &Recipients::default(),
                };
                n += 1;
                let mut tx = pool.begin().await?;
                let written = notifications::write_by_member(
                    &mut tx, &schema, &message, owner, DOMAIN, engine,
                )
                .await?
                .context("the reply was written")?;
                messages::record_created(&mut tx, &schema, written, Uuid::now_v7(), engine).await?;
                tx.commit().await?;
                done.fetch_add(1, Ordering::Relaxed);
            }
            anyhow::Ok(())
        }));
    }
    let folded = Arc::new(AtomicU64::new(0));
    let folder = fold.then(|| {
        let (pool, stop, folded, schemas) =
            (pool.clone(), stop.clone(), folded.clone(), schemas.clone());
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let mut read = 0;
                for schema in &schemas {
                    read += catch_up(&pool, schema).await?;
                }
                folded.fetch_add(read, Ordering::Relaxed);
                if read == 0 {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
            anyhow::Ok(())
        })
    });
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let elapsed = started.elapsed();
    for writer in writers {
        writer.await??;
    }
    if let Some(folder) = folder {
        folder.await??;
    }
    let mut behind = 0;
    for schema in &schemas {
        let lag: i64 = sqlx::query_scalar(schema.sql(
            "SELECT (SELECT seq FROM {schema}.event_log_head)
                  - (SELECT seq FROM {schema}.report_cursor)",
        ))
        .fetch_one(pool)
        .await?;
        behind += lag;
    }
    Ok((
        done.load(Ordering::Relaxed) as f64 / elapsed.as_secs_f64(),
        folded.load(Ordering::Relaxed),
        behind,
    ))
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> anyhow::Result<()> {
    let conversations = knob("REPORTS_BENCH_CONVERSATIONS", 1_000_000).max(1000);
    let reads = knob("REPORTS_BENCH_READS", 30).max(5);
    let writers = knob("REPORTS_BENCH_WRITERS", 16).max(1);
    let seconds = knob("REPORTS_BENCH_SECONDS", 20).max(1) as u64;
    let rounds = knob("REPORTS_BENCH_ROUNDS", 3).max(1);
    let started_all = Instant::now();
    let step = |what: &str| eprintln!("[{:>6.1} s] {what}", started_all.elapsed().as_secs_f64());

    step("creating the benchmark database and starting the API");
    let database = TestDatabase::migrated().await;
    let env = test_env(
        &database.url,
        &[("WORKSPACE_CREATES_PER_HOUR", "0"), ("RUST_LOG", "warn")],
    );
    let settings = Settings::load_from(None, Some(env))?;
    let app = Application::build(settings.clone(), "127.0.0.1:0").await?;
    let api = format!("http://{}", app.local_addr()?);
    tokio::spawn(app.run_until(std::future::pending()));
    let client = reqwest::Client::builder().no_proxy().build()?;
    let pool = supportdesk_core::db::pool(
        &settings.database,
        u32::try_from(writers + 4).unwrap_or(u32::MAX),
    );
    let engine = Engine::detect(&pool).await?;
    let mut lines = Vec::new();

    // 1. Reading a year.
    let year = workspace(&client, &api, 0, 0).await?;
    let schema = TenantSchema::for_workspace(year.id);
    let label = post(
        &client,
        format!("{api}/api/labels"),
        Some(&year.token),
        json!({"name": "vip", "color": "#aa0000"}),
    )
    .await?;
    let label: Uuid = label["id"].as_str().context("id")?.parse()?;
    step(&format!("a year of {conversations} conversations"));
    let agents = a_year(&pool, &schema, conversations, label).await?;
    let cycles: i64 = sqlx::query_scalar(schema.sql("SELECT count(*) FROM {schema}.report_cycles"))
        .fetch_one(&pool)
        .await?;

    let range = "from=2025-01-01&to=2025-12-31";
    let agent = agents[7];
    let hold = knob("REPORTS_BENCH_HOLD", 0);
    if hold > 0 {
        step(&format!(
            "holding {} for {hold} s: schema {}, agent {agent}, label {label}",
            database.url,
            schema.name()
        ));
        tokio::time::sleep(Duration::from_secs(hold as u64)).await;
    }
    let variants = [
        format!("volume?{range}"),
        format!("volume?{range}&groupBy=month"),
        format!("first-response-time?{range}"),
        format!("first-response-time?{range}&groupBy=month&businessHours=true"),
        format!("first-response-time?{range}&channel=email"),
        format!("first-response-time?{range}&agentId={agent}"),
        format!("first-response-time?{range}&agentId={agent}&channel=chat"),
        format!("volume?{range}&agentId={agent}"),
        format!("resolution-time?{range}&agentId={agent}"),
        format!("csat?{range}&agentId={agent}"),
        format!("first-response-time?{range}&labelId={label}"),
        format!("first-response-time?{range}&labelId={label}&channel=chat"),
        format!("resolution-time?{range}&groupBy=week"),
        format!("resolution-time?{range}&businessHours=true"),
        format!("resolution-time?{range}&labelId={label}"),
        format!("volume?{range}&labelId={label}"),
        format!("csat?{range}"),
        format!("csat?{range}&labelId={label}"),
        format!("heatmap?{range}"),
        format!("agents?{range}"),
        format!("agents?{range}&businessHours=true"),
        format!("agents?{range}&labelId={label}"),
    ];
    step("baseline: one pass over the year's first responses, straight from PostgreSQL");
    let mut baseline = Vec::new();
    for i in 0..reads + 3 {
        let started = Instant::now();
        let _: i64 = sqlx::query_scalar(schema.sql(
            "SELECT count(*) FROM {schema}.report_cycles
              WHERE first_response_at >= '2025-01-01' AND first_response_at < '2026-01-01'",
        ))
        .fetch_one(&pool)
        .await?;
        if i >= 3 {
            baseline.push(started.elapsed());
        }
    }
    baseline.sort();
    let base_p99 = percentile(&baseline, 0.99);
    lines.push(format!(
        "1. a year of {conversations} conversations ({cycles} cycles); baseline, the year's first responses counted straight from PostgreSQL: p50 {} p99 {}",
        ms(percentile(&baseline, 0.50)),
        ms(base_p99)
    ));
    let mut worst = Duration::ZERO;
    for variant in &variants {
        step(&format!("GET /api/reports/{variant}"));
        let times = timed(
            &client,
            &format!("{api}/api/reports/{variant}"),
            &year.token,
            reads,
        )
        .await?;
        let p99 = percentile(&times, 0.99);
        worst = worst.max(p99);
        lines.push(format!(
            "   GET /api/reports/{}: p50 {} p99 {} ({:.1} x the baseline's p99)",
            variant
                .replace(range, "<year>")
                .replace("?&", "?")
                .trim_end_matches('?'),
            ms(percentile(&times, 0.50)),
            ms(p99),
            p99.as_secs_f64() / base_p99.as_secs_f64().max(1e-9)
        ));
    }
    lines.push(format!(
        "   the slowest report's p99: {} (budget: under 300 ms)",
        ms(worst)
    ));

    // 2. Upkeep.
    step(&format!("{writers} workspaces for the write path"));
    let mut set = Vec::new();
    for n in 0..writers {
        set.push(workspace(&client, &api, n + 1, 4).await?);
    }
    let (mut without, mut with, mut folded, mut behind) = (Vec::new(), Vec::new(), 0, 0);
    for round in 0..rounds {
        step(&format!("write path without the fold: round {round}"));
        without.push(
            replies_per_second(&pool, &set, seconds, false, engine)
                .await?
                .0,
        );
        step(&format!("write path with the fold: round {round}"));
        let (rate, read, lag) = replies_per_second(&pool, &set, seconds, true, engine).await?;
        with.push(rate);
        folded += read;
        behind = behind.max(lag);
    }
    let without = without.iter().sum::<f64>() / without.len() as f64;
    let with = with.iter().sum::<f64>() / with.len() as f64;
    lines.push(format!(
        "2. replies/s with their events, {writers} writers over {writers} workspaces: without the fold {without:.0}, with it {with:.0}: {:.1} % of the throughput kept (budget: at least 90 %); the fold read {:.0} events/s and was at most {behind} events behind when the writers stopped",
        100.0 * with / without,
        folded as f64 / (rounds as u64 * seconds) as f64
    ));

    step("done");
    println!(
        "reports benchmark ({} cores)",
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    );
    for line in lines {
        println!("{line}");
    }
    Ok(())
}
