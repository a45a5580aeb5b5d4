//! A whole stack per test: the API and the worker over a fresh database, a private Redis
//! namespace (or a Redis server of the test's own) and an SMTP sink.

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sqlx::PgPool;
use supportdesk_core::config::{Component, Settings};
use supportdesk_test_support::api::{RunningApi, spawn_api};
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::process::KillOnDrop;
use supportdesk_test_support::smtp_sink::SmtpSink;
use supportdesk_test_support::{free_port, http_client, test_env};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use uuid::Uuid;

pub const PASSWORD: &str = "Corr3ctHorse";

pub struct Stack {
    pub api: String,
    pub client: reqwest::Client,
    pub db: PgPool,
    pub sink: SmtpSink,
    pub env: HashMap<String, String>,
    _api: RunningApi,
    worker: Option<(oneshot::Sender<()>, JoinHandle<anyhow::Result<()>>)>,
    _database: TestDatabase,
}

impl Drop for Stack {
    fn drop(&mut self) {
        if let Some((stop, _)) = self.worker.take() {
            let _ = stop.send(());
        }
    }
}

/// The API only; start the worker with [`Stack::start_worker`] or as a process.
pub async fn stack_without_worker(overrides: &[(&str, &str)]) -> Stack {
    let database = TestDatabase::migrated().await;
    let sink = SmtpSink::start().await;
    let smtp_url = sink.url();
    // No spare schemas unless a test asks: making them is the busiest thing a worker does, and
    // only the spare tests look at them.
    let mut all: Vec<(&str, &str)> = vec![
        ("SMTP_URL", &smtp_url),
        ("JOB_BACKOFF_BASE_MS", "200"),
        ("SPARE_SCHEMAS", "0"),
    ];
    all.extend_from_slice(overrides);
    let env = test_env(&database.url, &all);
    let settings = Settings::load_from(None, Some(env.clone())).expect("settings");
    let api = spawn_api(settings).await;
    Stack {
        api: api.address.clone(),
        client: http_client(),
        db: database.pool().await,
        sink,
        env,
        _api: api,
        worker: None,
        _database: database,
    }
}

/// The API and an in-process worker.
pub async fn stack(overrides: &[(&str, &str)]) -> Stack {
    let mut stack = stack_without_worker(overrides).await;
    stack.start_worker().await;
    stack
}

impl Stack {
    /// The worker's environment: the stack's, without `JWT_SECRET`, which a worker never has.
    pub fn worker_env(&self) -> HashMap<String, String> {
        let mut env = self.env.clone();
        env.remove("JWT_SECRET");
        env
    }

    pub async fn start_worker(&mut self) {
        let env = self.worker_env();
        let settings =
            Settings::load_for(Component::Worker, None, Some(env.clone())).expect("settings");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let (stop, stopped) = oneshot::channel::<()>();
        let handle = tokio::spawn(supportdesk_worker::run(settings, listener, async move {
            let _ = stopped.await;
        }));
        self.worker = Some((stop, handle));
    }

    /// What a failed journey needs to be explained: whether the in-process worker still runs
    /// (and how it ended if not), and every outbox row (outcome, attempts, last error).
    pub async fn explain(&mut self) -> String {
        let worker = match self.worker.take() {
            None => "not started".to_owned(),
            Some((stop, handle)) if !handle.is_finished() => {
                self.worker = Some((stop, handle));
                "running".to_owned()
            }
            Some((_, handle)) => format!("ended: {:?}", handle.await),
        };
        let outbox = self.outbox().await;
        let mut explained = format!(
            "--- the worker: {worker}\n--- the outbox ({} rows)\n",
            outbox.len()
        );
        for (id, outcome, attempts, last_error) in outbox {
            explained.push_str(&format!(
                "{id} outcome {outcome:?} after {attempts} attempts, last error {last_error:?}\n"
            ));
        }
        explained
    }

    /// The worker binary with this stack's environment; `WORKER_HEALTH_PORT` is free.
    pub fn worker_process(&self, extra: &[(&str, &str)]) -> KillOnDrop {
        let mut command = Command::new(env!("CARGO_BIN_EXE_supportdesk-worker"));
        command
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .envs(self.worker_env())
            .env("WORKER_HEALTH_PORT", free_port().to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (k, v) in extra {
            command.env(k, v);
        }
        KillOnDrop(command.spawn().expect("start the worker"))
    }

    /// `METHOD path` with an optional bearer token and JSON body; the response's JSON.
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut request = self.client.request(method, format!("{}{path}", self.api));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("request");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or_default())
    }

    /// A new account's workspace `slug` (named the same), selected: its id and workspace
    /// token.
    pub async fn workspace(&self, slug: &str) -> (Uuid, String) {
        let (user_token, _) = self.register(&unique_email()).await;
        let (status, created) = self
            .call(
                reqwest::Method::POST,
                "/workspaces",
                Some(&user_token),
                Some(json!({"name": slug, "slug": slug})),
            )
            .await;
        assert_eq!(status, 201, "{created}");
        let id: Uuid = created["id"].as_str().expect("id").parse().expect("uuid");
        let (status, selected) = self
            .call(
                reqwest::Method::POST,
                &format!("/workspaces/{id}/select"),
                Some(&user_token),
                None,
            )
            .await;
        assert_eq!(status, 200, "{selected}");
        (id, selected["token"].as_str().expect("token").to_owned())
    }

    pub async fn register(&self, email: &str) -> (String, Uuid) {
        let response = self
            .client
            .post(format!("{}/auth/register", self.api))
            .json(&json!({"email": email, "password": PASSWORD, "fullName": "Ann <Smith>"}))
            .send()
            .await
            .expect("register");
        assert_eq!(response.status(), 201);
        let body: Value = response.json().await.expect("json");
        (
            body["token"].as_str().expect("token").to_owned(),
            body["user"]["id"]
                .as_str()
                .expect("id")
                .parse()
                .expect("uuid"),
        )
    }

    /// (outcome, attempts, last_error) of every outbox row, oldest first.
    pub async fn outbox(&self) -> Vec<(Uuid, Option<String>, i32, Option<String>)> {
        sqlx::query_as(
            "SELECT id, outcome, attempts, last_error FROM public.outbox ORDER BY created_at",
        )
        .fetch_all(&self.db)
        .await
        .expect("outbox")
    }

    /// Waits until `check` holds for the outbox rows, or panics after `timeout`.
    pub async fn wait_outbox(
        &self,
        timeout: Duration,
        what: &str,
        check: impl Fn(&[(Uuid, Option<String>, i32, Option<String>)]) -> bool,
    ) -> Vec<(Uuid, Option<String>, i32, Option<String>)> {
        let deadline = Instant::now() + timeout;
        loop {
            let rows = self.outbox().await;
            if check(&rows) {
                return rows;
            }
            assert!(
                Instant::now() < deadline,
                "{what} within {timeout:?}: {rows:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

pub fn unique_email() -> String {
    format!("user-{}@example.com", Uuid::new_v4().simple())
}

pub fn signal(child: &Child, which: &str) {
    let status = Command::new("kill")
        .args([which, &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
}

/// Waits for a child process to exit, or panics after `timeout`.
pub fn wait_exit(child: &mut Child, timeout: Duration) -> Option<i32> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status.code();
        }
        assert!(
            Instant::now() < deadline,
            "the process did not exit within {timeout:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
