//! Delivery benchmark: how long from signup to the SMTP server, and how many emails a second
//! one worker process delivers, beside the baseline of raw lettre sends to the same sink.
//!
//! Needs PostgreSQL and Redis as the tests do (`TEST_DATABASE_URL`, `TEST_REDIS_URL`).
//! Run: `cargo bench -p supportdesk-worker --bench delivery` (`BENCH_EMAILS=N` to resize).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test and benchmark harness: a failure here is a failed run, with its message"
)]

use std::time::{Duration, Instant};

use futures::StreamExt;
use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use serde_json::json;
use supportdesk::startup::Application;
use supportdesk_core::config::{Component, Settings};
use supportdesk_core::email_tokens::EmailTokenKey;
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::smtp_sink::SmtpSink;
use supportdesk_test_support::test_env;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> anyhow::Result<()> {
    let emails: usize = std::env::var("BENCH_EMAILS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let concurrency: usize = std::env::var("WORKER_CONCURRENCY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let database = TestDatabase::migrated().await;
    let sink = SmtpSink::start().await;
    let smtp_url = sink.url();
    let concurrency_text = concurrency.to_string();
    let env = test_env(
        &database.url,
        &[
            ("SMTP_URL", &smtp_url),
            ("WORKER_CONCURRENCY", &concurrency_text),
        ],
    );
    let settings = Settings::load_from(None, Some(env.clone()))?;
    let app = Application::build(settings.clone(), "127.0.0.1:0").await?;
    let api = format!("http://{}", app.local_addr()?);
    tokio::spawn(app.run_until(std::future::pending()));
    // The worker as deployed: its own settings, without the JWT secret.
    let mut worker_env = env.clone();
    worker_env.remove("JWT_SECRET");
    let worker_settings = Settings::load_for(Component::Worker, None, Some(worker_env))?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    tokio::spawn(supportdesk_worker::run(
        worker_settings,
        listener,
        std::future::pending(),
    ));
    let client = reqwest::Client::builder().no_proxy().build()?;

    // 1. Latency: one signup at a time, until its email reaches the SMTP server.
    let mut from_request = Vec::new();
    let mut from_commit = Vec::new();
    for i in 0..25 {
        let started = Instant::now();
        let response = client
            .post(format!("{api}/auth/register"))
            .json(&json!({"email": format!("latency-{i}@example.com"), "password": "Corr3ctHorse", "fullName": "Bench"}))
            .send()
            .await?;
        anyhow::ensure!(response.status() == 201, "register: {}", response.status());
        let committed = Instant::now();
        sink.wait_for(i + 1, Duration::from_secs(30)).await;
        from_request.push(started.elapsed());
        from_commit.push(committed.elapsed());
    }
    from_request.sort();
    from_commit.sort();

    // 2. Worker throughput: a backlog of verification emails, drained by the worker.
    let db = sqlx::PgPool::connect_with(database.settings.connect_options()).await?;
    let users: Vec<(uuid::Uuid, String)> = sqlx::query_as(
        "INSERT INTO public.users (id, email, full_name, password_hash)
         SELECT gen_random_uuid(), 'bulk-' || n || '@example.com', 'Bulk ' || n, 'x'
           FROM generate_series(1, $1) n
      RETURNING id, email",
    )
    .bind(emails as i64)
    .fetch_all(&db)
    .await?;
    let key = EmailTokenKey::derive(&settings.email.token_secret);
    let already = sink.received().len();
    let mut tx = db.begin().await?;
    for (id, email) in &users {
        supportdesk::auth::verification::issue(&mut tx, &key, *id, email).await?;
    }
    let started = Instant::now();
    tx.commit().await?;
    sink.wait_for(already + emails, Duration::from_secs(600))
        .await;
    let worker_elapsed = started.elapsed();

    // 3. Baseline: the same number of messages sent straight to the sink with lettre, with the
    // same concurrency and no queue, database or rendering.
    let smtp = AsyncSmtpTransport::<Tokio1Executor>::from_url(&smtp_url)?.build();
    let from: Mailbox = "Bench <bench@localhost>".parse()?;
    let already = sink.received().len();
    let started = Instant::now();
    futures::stream::iter(0..emails)
        .map(|i| {
            let smtp = smtp.clone();
            let message = Message::builder()
                .from(from.clone())
                .to(format!("raw-{i}@example.com").parse().expect("address"))
                .subject("raw")
                .body(String::from("raw"))
                .expect("message");
            async move { smtp.send(message).await }
        })
        .buffer_unordered(concurrency * 2)
        .for_each(|sent| async move {
            sent.expect("raw send");
        })
        .await;
    sink.wait_for(already + emails, Duration::from_secs(600))
        .await;
    let raw_elapsed = started.elapsed();
    drop(db);

    let worker_rate = emails as f64 / worker_elapsed.as_secs_f64();
    let raw_rate = emails as f64 / raw_elapsed.as_secs_f64();
    println!("delivery benchmark ({emails} emails, worker concurrency {concurrency} per queue)");
    println!("| measure | value |");
    println!("|---|---|");
    println!(
        "| signup request -> SMTP, p50 / p95 / max | {} / {} / {} |",
        ms(percentile(&from_request, 0.5)),
        ms(percentile(&from_request, 0.95)),
        ms(*from_request.last().unwrap_or(&Duration::ZERO))
    );
    println!(
        "| signup committed -> SMTP, p50 / p95 / max | {} / {} / {} |",
        ms(percentile(&from_commit, 0.5)),
        ms(percentile(&from_commit, 0.95)),
        ms(*from_commit.last().unwrap_or(&Duration::ZERO))
    );
    println!("| worker: outbox -> relay -> queue -> render -> SMTP | {worker_rate:.0} emails/s |");
    println!("| baseline: raw lettre sends to the same sink | {raw_rate:.0} emails/s |");
    println!("| worker / baseline | {:.2} |", worker_rate / raw_rate);
    Ok(())
}
