//! The worker process as Kubernetes runs it: probes on its health port, exit 0 on SIGTERM, and
//! the settings it needs (and does not) to start in Production.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::process::KillOnDrop;
use supportdesk_test_support::{EMAIL_TOKEN_SECRET, JWT_SECRET, free_port, redis_url};

use crate::harness::{signal, wait_exit};

/// The worker binary in Production (no `ASPNETCORE_ENVIRONMENT`) with what a worker is given
/// there: no `JWT_SECRET`, an `EMAIL_TOKEN_SECRET`, no `SMTP_URL`; `extra` adds or overrides
/// (an empty value unsets).
fn command(database_url: &str, port: u16, extra: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_supportdesk-worker"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("ConnectionStrings__DefaultConnection", database_url)
        .env("EMAIL_TOKEN_SECRET", EMAIL_TOKEN_SECRET)
        .env("APP_URL", "http://desk.test")
        .env("REDIS_URL", redis_url())
        .env(
            "REDIS_NAMESPACE",
            format!("sdtest:{}", uuid::Uuid::new_v4().simple()),
        )
        .env(
            "MAIL_DIR",
            std::env::temp_dir().join("supportdesk-test-mail"),
        )
        .env("STORAGE_URL", supportdesk_test_support::temp_storage_url())
        .env("WORKER_HEALTH_PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (name, value) in extra {
        match *value {
            "" => command.env_remove(name),
            value => command.env(name, value),
        };
    }
    command
}

fn worker(database_url: &str, port: u16, extra: &[(&str, &str)]) -> KillOnDrop {
    command(database_url, port, extra)
        .spawn()
        .map(KillOnDrop)
        .unwrap()
}

/// Starts a worker that must refuse to start; its exit code and stderr.
fn refused(database_url: &str, extra: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut child = command(database_url, free_port(), extra)
        .stderr(Stdio::piped())
        .spawn()
        .map(KillOnDrop)
        .unwrap();
    let code = wait_exit(&mut child, Duration::from_secs(20));
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        pipe.read_to_string(&mut stderr).unwrap();
    }
    (code, stderr)
}

/// The first answer of `/healthz` within 20 s, as (status, body).
async fn probe(port: u16) -> (u16, String) {
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(response) = client
            .get(format!("http://127.0.0.1:{port}/healthz"))
            .send()
            .await
        {
            let status = response.status().as_u16();
            return (status, response.text().await.unwrap());
        }
        assert!(Instant::now() < deadline, "the worker never answered");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_worker_is_healthy_with_its_dependencies_and_exits_zero_on_sigterm() {
    let db = TestDatabase::migrated().await;
    let port = free_port();
    let mut child = worker(&db.url, port, &[("MAIL_TRANSPORT", "file")]);
    assert_eq!(probe(port).await, (200, "Healthy".to_owned()));
    let metrics = reqwest::get(format!("http://127.0.0.1:{port}/metrics"))
        .await
        .unwrap();
    assert_eq!(metrics.status(), 200);
    signal(&child, "-TERM");
    assert_eq!(wait_exit(&mut child, Duration::from_secs(30)), Some(0));
}

#[tokio::test]
async fn the_worker_is_unhealthy_without_redis() {
    let db = TestDatabase::migrated().await;
    let port = free_port();
    let mut child = worker(
        &db.url,
        port,
        &[
            ("MAIL_TRANSPORT", "file"),
            ("REDIS_URL", "redis://127.0.0.1:1"),
        ],
    );
    assert_eq!(probe(port).await, (503, "Unhealthy".to_owned()));
    signal(&child, "-TERM");
    assert_eq!(wait_exit(&mut child, Duration::from_secs(30)), Some(0));
}

#[tokio::test]
async fn the_worker_runs_without_the_jwt_secret_and_never_falls_back_to_it() {
    let db = TestDatabase::migrated().await;
    // No JWT_SECRET in its environment at all: healthy.
    let port = free_port();
    let mut child = worker(&db.url, port, &[("MAIL_TRANSPORT", "file")]);
    assert_eq!(probe(port).await, (200, "Healthy".to_owned()));
    signal(&child, "-TERM");
    assert_eq!(wait_exit(&mut child, Duration::from_secs(30)), Some(0));

    // The JWT secret does not stand in for the email-token secret, as it may in the API.
    let (code, stderr) = refused(
        &db.url,
        &[
            ("MAIL_TRANSPORT", "file"),
            ("JWT_SECRET", JWT_SECRET),
            ("EMAIL_TOKEN_SECRET", ""),
        ],
    );
    assert!(code.is_some_and(|c| c != 0), "{code:?}: {stderr}");
    assert!(
        stderr.contains("EMAIL_TOKEN_SECRET is required"),
        "{stderr}"
    );
}

#[tokio::test]
async fn in_production_the_worker_needs_smtp_or_the_file_transport_asked_for() {
    let db = TestDatabase::migrated().await;
    // Neither SMTP_URL nor MAIL_TRANSPORT: refuses to write live links to files unasked.
    let (code, stderr) = refused(&db.url, &[]);
    assert!(code.is_some_and(|c| c != 0), "{code:?}: {stderr}");
    assert!(
        stderr.contains("SMTP_URL") && stderr.contains("MAIL_TRANSPORT=file"),
        "{stderr}"
    );

    // Asked for: starts, and writes .eml files.
    let port = free_port();
    let mut child = worker(&db.url, port, &[("MAIL_TRANSPORT", "file")]);
    assert_eq!(probe(port).await, (200, "Healthy".to_owned()));
    signal(&child, "-TERM");
    assert_eq!(wait_exit(&mut child, Duration::from_secs(30)), Some(0));
}
