//! The worker process as Kubernetes runs it: probes on its health port, exit 0 on SIGTERM.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::process::KillOnDrop;
use supportdesk_test_support::{JWT_SECRET, free_port, redis_url};

use crate::harness::{signal, wait_exit};

fn worker(database_url: &str, port: u16, redis: &str) -> KillOnDrop {
    Command::new(env!("CARGO_BIN_EXE_supportdesk-worker"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("ConnectionStrings__DefaultConnection", database_url)
        .env("JWT_SECRET", JWT_SECRET)
        .env("APP_URL", "http://desk.test")
        .env("REDIS_URL", redis)
        .env(
            "REDIS_NAMESPACE",
            format!("sdtest:{}", uuid::Uuid::new_v4().simple()),
        )
        .env(
            "MAIL_DIR",
            std::env::temp_dir().join("supportdesk-test-mail"),
        )
        .env("WORKER_HEALTH_PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(KillOnDrop)
        .unwrap()
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
    let mut child = worker(&db.url, port, &redis_url());
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
    let mut child = worker(&db.url, port, "redis://127.0.0.1:1");
    assert_eq!(probe(port).await, (503, "Unhealthy".to_owned()));
    signal(&child, "-TERM");
    assert_eq!(wait_exit(&mut child, Duration::from_secs(30)), Some(0));
}
