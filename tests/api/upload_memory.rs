//! Uploads stream: the API binary, watched from outside (its resident memory in
//! `/proc/{pid}/status`), takes a 25 MB file without holding it. The client streams the body
//! too, in 64 KiB chunks, so nothing in this test holds the file whole either.

use std::process::Stdio;
use std::time::Duration;

use axum::body::Bytes;
use reqwest::StatusCode;
use serde_json::{Value, json};
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::free_port;
use supportdesk_test_support::process::KillOnDrop;

use crate::helpers::PASSWORD;
use crate::process::{supportdesk, wait_healthy};

/// Resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_25_mb_upload_streams_through_the_api_without_being_held() {
    let db = TestDatabase::empty().await;
    let migrated = supportdesk(&db.url).arg("migrate").output().unwrap();
    assert!(
        migrated.status.success(),
        "{}",
        String::from_utf8_lossy(&migrated.stderr)
    );
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let api = KillOnDrop(
        supportdesk(&db.url)
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_healthy(&base).await;
    let pid = api.id();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();

    // An owner, a workspace and a conversation; then the API is warm.
    let email = format!("mem-{}@example.org", uuid::Uuid::new_v4().simple());
    let registered: Value = client
        .post(format!("{base}/auth/register"))
        .json(&json!({"email": email, "password": PASSWORD, "fullName": "Mem"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let user = registered["token"].as_str().unwrap().to_owned();
    let workspace: Value = client
        .post(format!("{base}/workspaces"))
        .bearer_auth(&user)
        .json(&json!({"name": "Memory", "slug": "memory"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let selected: Value = client
        .post(format!(
            "{base}/workspaces/{}/select",
            workspace["id"].as_str().unwrap()
        ))
        .bearer_auth(&user)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = selected["token"].as_str().unwrap().to_owned();
    let conversation: Value = client
        .post(format!("{base}/api/conversations"))
        .bearer_auth(&token)
        .json(&json!({"contact": {"email": "c@example.org"}, "body": "Hello"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let path = format!(
        "{base}/api/conversations/{}/attachments",
        conversation["id"].as_str().unwrap()
    );
    let upload = |size: usize| {
        let chunks = futures::stream::iter((0..size.div_ceil(65_536)).map(move |i| {
            let len = 65_536.min(size - i * 65_536);
            Ok::<_, std::io::Error>(Bytes::from(vec![(i % 251) as u8; len]))
        }));
        let part = reqwest::multipart::Part::stream_with_length(
            reqwest::Body::wrap_stream(chunks),
            size as u64,
        )
        .file_name("dump.bin");
        client
            .post(&path)
            .bearer_auth(&token)
            .multipart(reqwest::multipart::Form::new().part("file", part))
            .send()
    };
    let warm = upload(1_000_000).await.unwrap();
    assert_eq!(warm.status(), StatusCode::CREATED);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let idle = rss_kib(pid);

    // The 25 MB upload, memory sampled every 5 ms while it runs.
    let size = 25 * 1000 * 1000;
    let sampled = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let sampler = {
        let sampled = sampled.clone();
        tokio::spawn(async move {
            loop {
                sampled.fetch_max(rss_kib(pid), std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    let response = upload(size).await.unwrap();
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    sampler.abort();
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["size"], size);
    let peak = sampled.load(std::sync::atomic::Ordering::Relaxed);
    let grew_mib = peak.saturating_sub(idle) / 1024;
    eprintln!(
        "API resident memory: idle {} MiB, peak during a 25 MB upload {} MiB (+{grew_mib} MiB)",
        idle / 1024,
        peak / 1024
    );
    // Held whole, the file alone would add 25 MB (and a multipart copy more). One store part
    // (5 MiB) and buffers are what streaming costs.
    assert!(
        grew_mib < 20,
        "the API's memory grew by {grew_mib} MiB during a 25 MB upload"
    );
}
