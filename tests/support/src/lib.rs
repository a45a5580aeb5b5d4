//! Test harness pieces shared by the API and the worker tests. Every piece is a real
//! component: PostgreSQL databases, Redis servers, an SMTP server that speaks the protocol and
//! an S3-compatible object store that checks signatures.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test and benchmark harness: a failure here is a failed run, with its message"
)]

pub mod api;
pub mod citus;
pub mod database;
pub mod dovecot;
pub mod files;
pub mod pgbouncer;
pub mod process;
pub mod redis_server;
pub mod s3_server;
pub mod smtp_sink;
pub mod web;

use std::collections::HashMap;

pub const JWT_SECRET: &str = "integration-test-secret-0123456789abcdef";
/// Keys emailed tokens; the API and the worker must share it (the worker has no JWT secret).
pub const EMAIL_TOKEN_SECRET: &str = "integration-test-email-token-secret-0123456789";

pub fn redis_url() -> String {
    std::env::var("TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// A local store of its own under the temporary directory (`file://...`).
pub fn temp_storage_url() -> String {
    let dir = std::env::temp_dir()
        .join("supportdesk-test-storage")
        .join(uuid::Uuid::new_v4().simple().to_string());
    format!("file://{}", dir.display())
}

/// An HTTP client for talking to servers on loopback (never through a proxy).
pub fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("http client")
}

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The environment a test process runs with (database, secrets, a private Redis namespace);
/// `overrides` win.
pub fn test_env(database_url: &str, overrides: &[(&str, &str)]) -> HashMap<String, String> {
    let mut env: HashMap<String, String> = [
        (
            "ConnectionStrings__DefaultConnection",
            database_url.to_owned(),
        ),
        ("JWT_SECRET", JWT_SECRET.to_owned()),
        ("EMAIL_TOKEN_SECRET", EMAIL_TOKEN_SECRET.to_owned()),
        // Several API processes share this host in tests: each gets a free metrics port.
        ("METRICS_BIND", "127.0.0.1:0".to_owned()),
        ("ASPNETCORE_ENVIRONMENT", "Development".to_owned()),
        ("APP_URL", "http://desk.test".to_owned()),
        ("WIDGET_URL", "http://widget.test".to_owned()),
        ("REDIS_URL", redis_url()),
        (
            "REDIS_NAMESPACE",
            format!("sdtest:{}", uuid::Uuid::new_v4().simple()),
        ),
        // Each stack's files in a directory of its own (an S3 server when a test asks).
        ("STORAGE_URL", temp_storage_url()),
        (
            "MAIL_DIR",
            std::env::temp_dir()
                .join("supportdesk-test-mail")
                .display()
                .to_string(),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    for (k, v) in overrides {
        env.insert((*k).to_owned(), (*v).to_owned());
    }
    env
}
