//! The `supportdesk-worker` binary as Kubernetes runs it: probes and graceful termination.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const JWT_SECRET: &str = "integration-test-secret-0123456789abcdef";

fn database_url() -> String {
    std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres:postgres@127.0.0.1:5432/postgres".into())
}

fn redis_url() -> String {
    std::env::var("TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn worker(port: u16, redis: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_supportdesk-worker"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("ConnectionStrings__DefaultConnection", database_url())
        .env("JWT_SECRET", JWT_SECRET)
        .env("APP_URL", "http://desk.test")
        .env("REDIS_URL", redis)
        .env("WORKER_HEALTH_PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
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

fn terminate_and_wait(mut child: Child) -> Option<i32> {
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    child.wait().unwrap().code()
}

#[tokio::test]
async fn the_worker_is_healthy_with_its_dependencies_and_exits_zero_on_sigterm() {
    let port = free_port();
    let child = worker(port, &redis_url());
    assert_eq!(probe(port).await, (200, "Healthy".to_owned()));
    assert_eq!(terminate_and_wait(child), Some(0));
}

#[tokio::test]
async fn the_worker_is_unhealthy_without_redis() {
    let port = free_port();
    let child = worker(port, "redis://127.0.0.1:1");
    assert_eq!(probe(port).await, (503, "Unhealthy".to_owned()));
    assert_eq!(terminate_and_wait(child), Some(0));
}
