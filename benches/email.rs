//! The email channel's IMAP intake, against Dovecot on this machine (as the tests run it):
//!
//! 1. Backlog: `EMAIL_BENCH_BACKLOG` (1 000) messages waiting in the mailbox when it is
//!    connected; the time until every one is a conversation's message (goal: within 60 s).
//!    Beside it, the same number posted one at a time to `POST /inbound/email` (the same
//!    receiving, without IMAP), into a second workspace of the same run.
//! 2. Arrival: `EMAIL_BENCH_LIVE` (100) messages delivered one by one into the mailbox the API
//!    watches with IDLE; for each, from its delivery (moved into the Maildir's `new/`, as a
//!    local delivery agent does) to its `message.created` in `GET /api/events` (polled every
//!    5 ms): p50, p99, max (goal: p99 under 2 s).
//!
//! The API runs in this process (release build), PostgreSQL and Redis as for the tests.
//! `cargo bench --bench email` (or `BENCH_ONLY=email bash .ci/bench`).

mod common;

use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use common::{knob, ms, percentile, post_json, select_workspace};
use serde_json::{Value, json};
use supportdesk_core::config::Settings;
use supportdesk_test_support::api::spawn_api;
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::dovecot::Dovecot;
use supportdesk_test_support::test_env;

const SECRET: &str = "inbound-secret-0123456789abcdef0123";
const USER: &str = "support@bench.test";
const PASSWORD: &str = "bench-password-0123";

fn mail(n: usize) -> Vec<u8> {
    format!(
        "From: Customer {n} <customer{n}@example.com>\r\nTo: {USER}\r\nSubject: Question {n}\r\n\
         Message-ID: <bench-{n}-{}@example.com>\r\nDate: Tue, 24 Nov 2026 10:00:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         Hello, this is message {n}. The printer prints stripes since Monday.\r\n\r\n\
         On Mon, 23 Nov 2026, Support wrote:\r\n> How can we help?\r\n",
        uuid::Uuid::new_v4().simple()
    )
    .into_bytes()
}

fn main() -> anyhow::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run())
}

/// A workspace made through the API; its token.
async fn workspace(client: &reqwest::Client, api: &str, slug: &str) -> anyhow::Result<String> {
    let email = format!("{slug}@bench.example.com");
    let registered: Value = client
        .post(format!("{api}/auth/register"))
        .json(&json!({"email": email, "password": "Corr3ctHorse", "fullName": "Bench Owner"}))
        .send()
        .await?
        .json()
        .await?;
    let user = registered["token"].as_str().context("token")?.to_owned();
    let created = post_json(
        client,
        format!("{api}/workspaces"),
        &user,
        json!({"name": slug, "slug": slug}),
    )
    .await?;
    let id = created["id"].as_str().context("id")?.parse()?;
    select_workspace(client, api, &user, id).await
}

/// `message.created` events of the workspace after `after`, and the newest seq.
async fn messages_after(
    client: &reqwest::Client,
    api: &str,
    token: &str,
    after: i64,
) -> anyhow::Result<(usize, i64)> {
    let mut after = after;
    let mut count = 0;
    loop {
        let page: Value = client
            .get(format!("{api}/api/events?after={after}&limit=1000"))
            .bearer_auth(token)
            .send()
            .await?
            .json()
            .await?;
        let events = page["events"].as_array().context("events")?;
        count += events
            .iter()
            .filter(|e| e["type"] == "message.created")
            .count();
        let next = page["nextAfter"].as_i64().context("nextAfter")?;
        if events.len() < 1000 {
            return Ok((count, next));
        }
        after = next;
    }
}

async fn run() -> anyhow::Result<()> {
    let backlog = knob("EMAIL_BENCH_BACKLOG", 1000);
    let live = knob("EMAIL_BENCH_LIVE", 100);
    let database = TestDatabase::migrated().await;
    let settings = Settings::load_from(
        None,
        Some(test_env(&database.url, &[("INBOUND_EMAIL_SECRET", SECRET)])),
    )?;
    let api_server = spawn_api(settings).await;
    let api = api_server.address.clone();
    let client = reqwest::Client::builder().no_proxy().build()?;
    let cores = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    println!("machine: {cores} cores; {backlog} waiting messages, {live} arriving one by one");

    // 1a. The baseline: the same messages over HTTP, one at a time.
    let posted = workspace(&client, &api, "bench-http").await?;
    let settings: Value = client
        .get(format!("{api}/api/settings/email"))
        .bearer_auth(&posted)
        .send()
        .await?
        .json()
        .await?;
    let to = settings["inboundAddress"]
        .as_str()
        .context("address")?
        .to_owned();
    let started = Instant::now();
    for n in 0..backlog {
        let response = client
            .post(format!("{api}/inbound/email"))
            .bearer_auth(SECRET)
            .header("Content-Type", "message/rfc822")
            .header("X-Original-To", &to)
            .body(mail(n))
            .send()
            .await?;
        ensure!(response.status().is_success(), "{}", response.text().await?);
    }
    let http = started.elapsed();

    // 1b. The backlog through IMAP.
    let server = Dovecot::start(USER, PASSWORD);
    for n in 0..backlog {
        server.deliver(&mail(n));
    }
    let token = workspace(&client, &api, "bench-imap").await?;
    let started = Instant::now();
    client
        .put(format!("{api}/api/settings/email"))
        .bearer_auth(&token)
        .json(
            &json!({"imap": {"host": "127.0.0.1", "port": server.port, "tls": false,
                                "user": USER, "password": PASSWORD}}),
        )
        .send()
        .await?
        .error_for_status()?;
    let mut seq = 0;
    let mut taken = 0;
    while taken < backlog {
        ensure!(
            started.elapsed() < Duration::from_secs(600),
            "{taken} of {backlog} after 10 minutes"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
        let (count, next) = messages_after(&client, &api, &token, seq).await?;
        taken += count;
        seq = next;
    }
    let imap = started.elapsed();

    // 2. Arrival to inbox event, one message at a time, IDLE.
    let mut latencies = Vec::with_capacity(live);
    for n in 0..live {
        let raw = mail(backlog + n);
        let delivered = Instant::now();
        server.deliver(&raw);
        loop {
            let (count, next) = messages_after(&client, &api, &token, seq).await?;
            if count > 0 {
                seq = next;
                latencies.push(delivered.elapsed());
                break;
            }
            ensure!(
                delivered.elapsed() < Duration::from_secs(60),
                "message {n} never arrived"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    latencies.sort();

    println!("| measure | result | baseline (same run) | goal | holds |");
    println!("|---|---|---|---|---|");
    println!(
        "| {backlog} messages waiting in the mailbox, all in the inbox | {:.1} s ({:.0} messages/s) | POST /inbound/email one at a time: {:.1} s ({:.0}/s); IMAP / HTTP = {:.2} | < 60 s | {} |",
        imap.as_secs_f64(),
        backlog as f64 / imap.as_secs_f64(),
        http.as_secs_f64(),
        backlog as f64 / http.as_secs_f64(),
        imap.as_secs_f64() / http.as_secs_f64(),
        if imap < Duration::from_secs(60) {
            "yes"
        } else {
            "**no**"
        }
    );
    let p99 = percentile(&latencies, 0.99);
    println!(
        "| delivery into the watched mailbox to `message.created`, {live} messages | p50 {} / p99 {} / max {} | | p99 < 2 s | {} |",
        ms(percentile(&latencies, 0.50)),
        ms(p99),
        ms(*latencies.last().unwrap_or(&Duration::ZERO)),
        if p99 < Duration::from_secs(2) {
            "yes"
        } else {
            "**no**"
        }
    );
    Ok(())
}
