//! Webhooks end to end: the API records events, the worker delivers them to receivers started
//! here, and the Python reference library for Standard Webhooks (`standardwebhooks` from PyPI)
//! verifies every signature, during a secret rotation too. Retries (a 500, a 429 with
//! `Retry-After`), a 410 that disables the endpoint and emails the Owner, five days of
//! failures, hand-made retries and test events, the address guard (a name resolving to
//! loopback, a redirect), and a worker killed mid-delivery.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use reqwest::Method;
use serde_json::{Value, json};

use crate::email_replies::owner_of;
use crate::harness::{Stack, stack, stack_without_worker};

const LOCAL: [(&str, &str); 2] = [
    ("WEBHOOK_ALLOW_HTTP", "true"),
    ("WEBHOOK_ALLOWED_PRIVATE_RANGES", "127.0.0.0/8"),
];

/// One request a receiver took.
#[derive(Debug, Clone)]
struct Hit {
    path: String,
    headers: HashMap<String, String>,
    body: String,
    at: Instant,
}

impl Hit {
    fn id(&self) -> &str {
        &self.headers["webhook-id"]
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("a JSON body")
    }
}

/// A receiver on a local port; each path behaves as its name says (`ok`, `flaky`: 500 once,
/// `busy`: 429 once with `Retry-After: 7`, `gone`: 410, `down`: always 500, `redirect`: 302 to
/// `ok`, `slow-first`: the first request waits 4 s, `hang`: never answers in time, `binary`:
/// 200 with a NUL byte in its answer).
#[derive(Clone, Default)]
struct Receiver {
    hits: Arc<Mutex<Vec<Hit>>>,
}

impl Receiver {
    async fn start() -> (Self, u16) {
        let receiver = Self::default();
        let app = axum::Router::new()
            .route("/{name}", axum::routing::post(take))
            .with_state(receiver.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (receiver, port)
    }

    fn hits(&self, path: &str) -> Vec<Hit> {
        self.hits
            .lock()
            .unwrap()
            .iter()
            .filter(|h| h.path == path)
            .cloned()
            .collect()
    }

    async fn wait_for(&self, path: &str, count: usize, within: Duration) -> Vec<Hit> {
        let deadline = Instant::now() + within;
        loop {
            let hits = self.hits(path);
            if hits.len() >= count {
                return hits;
            }
            assert!(
                Instant::now() < deadline,
                "{path}: {} of {count} requests within {within:?}",
                hits.len()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

async fn take(
    State(receiver): State<Receiver>,
    UrlPath(name): UrlPath<String>,
    headers: HeaderMap,
    body: String,
) -> axum::response::Response {
    let seen = receiver.hits(&name).len();
    if name == "hang" {
        receiver
            .hits
            .lock()
            .unwrap()
            .push(hit(&name, &headers, body));
        tokio::time::sleep(Duration::from_secs(60)).await;
        return (StatusCode::OK, "too late").into_response();
    }
    if name == "slow-first" && seen == 0 {
        receiver
            .hits
            .lock()
            .unwrap()
            .push(hit(&name, &headers, body));
        tokio::time::sleep(Duration::from_secs(4)).await;
        return (StatusCode::OK, "late").into_response();
    }
    receiver
        .hits
        .lock()
        .unwrap()
        .push(hit(&name, &headers, body));
    match (name.as_str(), seen) {
        ("flaky", 0) | ("down", _) => (StatusCode::INTERNAL_SERVER_ERROR, "boom").into_response(),
        ("busy", 0) => (
            StatusCode::TOO_MANY_REQUESTS,
            [("retry-after", "7")],
            "slow down",
        )
            .into_response(),
        ("gone", _) => (StatusCode::GONE, "no such hook").into_response(),
        ("redirect", _) => (StatusCode::FOUND, [("location", "/ok")], "").into_response(),
        ("binary", _) => (StatusCode::OK, "ok\0\u{1}").into_response(),
        _ => (StatusCode::OK, "thanks").into_response(),
    }
}

fn hit(path: &str, headers: &HeaderMap, body: String) -> Hit {
    Hit {
        path: path.to_owned(),
        headers: headers
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
            .collect(),
        body,
        at: Instant::now(),
    }
}

/// The Python virtual environment's interpreter (`HUB_PYTHON`, or where `.ci/test` makes it).
fn python() -> PathBuf {
    let python = std::env::var_os("HUB_PYTHON").map_or_else(
        || {
            let home = std::env::var_os("HOME").expect("HOME is set");
            Path::new(&home).join(".cache/supportdesk-venv/bin/python")
        },
        PathBuf::from,
    );
    assert!(
        python.is_file(),
        "{} is missing: make the virtual environment with tests/hub/requirements.txt \
         (.ci/test does it: ensure_python_venv in .ci/services.sh)",
        python.display()
    );
    python
}

/// Verifies each request under its secret with the reference library; panics with its words
/// when one does not verify.
fn verify_with_reference_library(requests: &[(&str, &Hit)]) {
    let file = std::env::temp_dir().join(format!("webhooks-{}.json", uuid::Uuid::new_v4()));
    let list: Vec<Value> = requests
        .iter()
        .map(|(secret, hit)| json!({"secret": secret, "headers": hit.headers, "body": hit.body}))
        .collect();
    std::fs::write(&file, serde_json::to_vec(&list).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/webhooks/verify.py");
    let output = std::process::Command::new(python())
        .arg(script)
        .arg(&file)
        .output()
        .expect("run the verifier");
    let _ = std::fs::remove_file(&file);
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{printed}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(printed.lines().count(), requests.len(), "{printed}");
}

async fn add_endpoint(stack: &Stack, token: &str, url: &str, types: Value) -> (String, String) {
    let (status, created) = stack
        .call(
            Method::POST,
            "/api/webhooks",
            Some(token),
            Some(json!({"url": url, "eventTypes": types})),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    (
        created["id"].as_str().unwrap().to_owned(),
        created["secret"].as_str().unwrap().to_owned(),
    )
}

/// A conversation opened by an agent for a contact: its id.
async fn conversation(stack: &Stack, token: &str, body: &str) -> String {
    let (status, created) = stack
        .call(
            Method::POST,
            "/api/conversations",
            Some(token),
            Some(json!({"contact": {"email": "carla@example.com"}, "body": body})),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    created["id"].as_str().unwrap().to_owned()
}

async fn reply(stack: &Stack, token: &str, conversation: &str, body: &str) {
    let (status, reply) = stack
        .call(
            Method::POST,
            &format!("/api/conversations/{conversation}/messages"),
            Some(token),
            Some(json!({"body": body})),
        )
        .await;
    assert_eq!(status, 201, "{reply}");
}

async fn deliveries(stack: &Stack, token: &str, endpoint: &str) -> Vec<Value> {
    let (status, page) = stack
        .call(
            Method::GET,
            &format!("/api/webhooks/{endpoint}/deliveries"),
            Some(token),
            None,
        )
        .await;
    assert_eq!(status, 200, "{page}");
    page["deliveries"].as_array().unwrap().clone()
}

async fn webhook(stack: &Stack, token: &str, endpoint: &str) -> Value {
    stack
        .call(
            Method::GET,
            &format!("/api/webhooks/{endpoint}"),
            Some(token),
            None,
        )
        .await
        .1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_arrive_signed_in_order_and_verify_with_the_reference_library() {
    let stack = stack(&LOCAL).await;
    let (receiver, port) = Receiver::start().await;
    let token = owner_of(&stack).await;
    // An endpoint receives what is recorded after it was made.
    let (_, before) = stack
        .call(
            Method::GET,
            "/api/events?after=0&limit=1000",
            Some(&token),
            None,
        )
        .await;
    let after = before["nextAfter"].as_i64().unwrap();
    let (endpoint, secret) = add_endpoint(
        &stack,
        &token,
        &format!("http://127.0.0.1:{port}/ok"),
        json!(["*"]),
    )
    .await;

    let conversation = conversation(&stack, &token, "Opened by phone").await;
    for n in 1..=3 {
        reply(&stack, &token, &conversation, &format!("Reply {n}")).await;
    }
    let (_, events) = stack
        .call(
            Method::GET,
            &format!("/api/events?after={after}"),
            Some(&token),
            None,
        )
        .await;
    let logged: Vec<(String, String)> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_owned(),
                e["type"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(logged.len() >= 5, "{events}");
    let hits = receiver
        .wait_for("ok", logged.len(), Duration::from_secs(15))
        .await;
    // Each event once, in the log's order, with its id as `webhook-id`.
    let delivered: Vec<(String, String)> = hits
        .iter()
        .map(|h| {
            (
                h.id().to_owned(),
                h.json()["type"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(delivered, logged);
    let last = hits.last().unwrap().json();
    assert_eq!(last["type"], "message.created");
    assert_eq!(last["data"]["body"], "Reply 3", "{last}");
    assert!(last["timestamp"].as_str().unwrap().ends_with('Z'));
    let signed: Vec<(&str, &Hit)> = hits.iter().map(|h| (secret.as_str(), h)).collect();
    verify_with_reference_library(&signed);

    // Rotated: while the old secret overlaps, a request verifies under either.
    let (_, rotated) = stack
        .call(
            Method::POST,
            &format!("/api/webhooks/{endpoint}/rotate-secret"),
            Some(&token),
            None,
        )
        .await;
    let new_secret = rotated["secret"].as_str().unwrap().to_owned();
    reply(&stack, &token, &conversation, "After the rotation").await;
    let hits = receiver
        .wait_for("ok", logged.len() + 1, Duration::from_secs(15))
        .await;
    let after = hits.last().unwrap();
    assert_eq!(after.headers["webhook-signature"].split(' ').count(), 2);
    verify_with_reference_library(&[(secret.as_str(), after), (new_secret.as_str(), after)]);

    // A test event, and the log of what was sent.
    let (status, test) = stack
        .call(
            Method::POST,
            &format!("/api/webhooks/{endpoint}/test"),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(status, 202);
    let hits = receiver
        .wait_for("ok", logged.len() + 2, Duration::from_secs(10))
        .await;
    let tested = hits.last().unwrap();
    assert_eq!(tested.json()["type"], "webhook.test");
    assert_eq!(tested.id(), test["eventId"].as_str().unwrap());
    verify_with_reference_library(&[(new_secret.as_str(), tested)]);
    // Logged once each answer is in.
    let deadline = Instant::now() + Duration::from_secs(5);
    let log = loop {
        let log = deliveries(&stack, &token, &endpoint).await;
        if log.len() == logged.len() + 2 && log.iter().all(|d| d["status"] != "pending") {
            break log;
        }
        assert!(Instant::now() < deadline, "{log:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        log.iter()
            .all(|d| d["status"] == "succeeded" && d["responseStatus"] == 200)
    );
    assert_eq!(log[0]["eventType"], "webhook.test");
    assert_eq!(log[0]["responseBody"], "thanks");
    assert_eq!(webhook(&stack, &token, &endpoint).await["state"], "healthy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_with_a_nul_byte_is_logged_once_and_not_sent_again() {
    let stack = stack(&LOCAL).await;
    let (receiver, port) = Receiver::start().await;
    let token = owner_of(&stack).await;
    let (endpoint, _) = add_endpoint(
        &stack,
        &token,
        &format!("http://127.0.0.1:{port}/binary"),
        json!(["message.created"]),
    )
    .await;
    conversation(&stack, &token, "Hello").await;
    receiver
        .wait_for("binary", 1, Duration::from_secs(15))
        .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let log = loop {
        let log = deliveries(&stack, &token, &endpoint).await;
        if log.len() == 1 && log[0]["status"] != "pending" {
            break log;
        }
        assert!(Instant::now() < deadline, "{log:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(log[0]["status"], "succeeded", "{log:?}");
    assert_eq!(log[0]["responseBody"], "ok\u{1}");
    // Past two of the worker's passes (2 s each): delivered once.
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(receiver.hits("binary").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_retried_410_disables_and_five_days_of_failure_gives_up() {
    let stack = stack(&LOCAL).await;
    let (receiver, port) = Receiver::start().await;
    let token = owner_of(&stack).await;
    let url = |path: &str| format!("http://127.0.0.1:{port}/{path}");
    let types = json!(["message.created"]);
    let (flaky, _) = add_endpoint(&stack, &token, &url("flaky"), types.clone()).await;
    let (busy, _) = add_endpoint(&stack, &token, &url("busy"), types.clone()).await;
    let (gone, _) = add_endpoint(&stack, &token, &url("gone"), types.clone()).await;
    let (down, _) = add_endpoint(&stack, &token, &url("down"), types.clone()).await;
    let (redirect, _) = add_endpoint(&stack, &token, &url("redirect"), types.clone()).await;
    let (hang, _) = add_endpoint(&stack, &token, &url("hang"), types).await;
    // `down` has failed every attempt for six days already.
    let (schema,): (String,) = sqlx::query_as(
        "SELECT w.schema_name FROM public.webhook_workspaces h
           JOIN public.workspaces w ON w.id = h.workspace_id",
    )
    .fetch_one(&stack.db)
    .await
    .unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE {schema}.webhook_endpoints SET failing_since = now() - interval '6 days'
          WHERE id = '{down}'"
    )))
    .execute(&stack.db)
    .await
    .unwrap();

    let started = Instant::now();
    conversation(&stack, &token, "Something broke").await;

    // 500, then the retry 5 s later succeeds: the same `webhook-id` both times.
    let flaky_hits = receiver.wait_for("flaky", 2, Duration::from_secs(20)).await;
    assert_eq!(flaky_hits[0].id(), flaky_hits[1].id());
    let waited = flaky_hits[1].at - flaky_hits[0].at;
    assert!(waited >= Duration::from_secs(4), "{waited:?}");
    let log = deliveries(&stack, &token, &flaky).await;
    assert_eq!(
        log.iter()
            .map(|d| (d["attempt"].clone(), d["status"].clone()))
            .collect::<Vec<_>>(),
        [(json!(2), json!("succeeded")), (json!(1), json!("failed"))]
    );
    assert_eq!(log[1]["responseStatus"], 500);
    assert_eq!(log[1]["responseBody"], "boom");
    assert_eq!(webhook(&stack, &token, &flaky).await["state"], "healthy");

    // 429 with Retry-After: 7 is honoured.
    let busy_hits = receiver.wait_for("busy", 2, Duration::from_secs(20)).await;
    let waited = busy_hits[1].at - busy_hits[0].at;
    assert!(waited >= Duration::from_millis(6500), "{waited:?}");

    // 410: disabled at once, and the Owner told by email.
    let hook = webhook(&stack, &token, &gone).await;
    assert_eq!(hook["state"], "disabled", "{hook}");
    assert!(hook["disabledReason"].as_str().unwrap().contains("410"));
    assert_eq!(receiver.hits("gone").len(), 1);
    let told = stack
        .sink
        .wait_for(2, Duration::from_secs(10))
        .await
        .into_iter()
        .filter(|m| m.subject().starts_with("A webhook of"))
        .count();
    assert!(told >= 1);

    // Five days of failure: disabled with the reason.
    let hook = webhook(&stack, &token, &down).await;
    assert_eq!(hook["state"], "disabled", "{hook}");
    assert!(
        hook["disabledReason"].as_str().unwrap().contains("5 days"),
        "{hook}"
    );

    // A redirect is not followed: a failed attempt, retried on the schedule.
    let log = deliveries(&stack, &token, &redirect).await;
    assert_eq!(log[0]["status"], "failed");
    assert_eq!(log[0]["responseStatus"], 302);
    assert!(receiver.hits("ok").is_empty());
    let hook = webhook(&stack, &token, &redirect).await;
    assert_eq!(hook["state"], "failing", "{hook}");

    // A retry by hand sends the 410'd event again, while the endpoint stays disabled.
    let gone_log = deliveries(&stack, &token, &gone).await;
    let (status, _) = stack
        .call(
            Method::POST,
            &format!(
                "/api/webhooks/{gone}/deliveries/{}/retry",
                gone_log[0]["id"].as_str().unwrap()
            ),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(status, 202);
    let again = receiver.wait_for("gone", 2, Duration::from_secs(10)).await;
    assert_eq!(again[0].id(), again[1].id());
    // Logged once the answer is in.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let gone_log = deliveries(&stack, &token, &gone).await;
        if gone_log[0]["attempt"] == 2 && gone_log[0]["status"] == "failed" {
            break;
        }
        assert!(Instant::now() < deadline, "{gone_log:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A receiver that never answers: the attempt gives up after 15 s and is retried later,
    // while every other endpoint above was served meanwhile.
    let deadline = Instant::now() + Duration::from_secs(30);
    let log = loop {
        let log = deliveries(&stack, &token, &hang).await;
        if !log.is_empty() {
            break log;
        }
        assert!(Instant::now() < deadline, "the hanging attempt never ended");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(log[0]["status"], "failed");
    assert!(
        log[0]["error"].as_str().unwrap().contains("within 15 s"),
        "{log:?}"
    );
    let latency = log[0]["latencyMs"].as_i64().unwrap();
    assert!((15_000..17_000).contains(&latency), "{latency}");
    assert_eq!(webhook(&stack, &token, &hang).await["state"], "failing");
    assert!(started.elapsed() < Duration::from_secs(45));
    let _ = busy;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_that_resolves_to_loopback_is_refused_when_connecting() {
    // Plain http is allowed here, private ranges are not.
    let stack = stack(&[("WEBHOOK_ALLOW_HTTP", "true")]).await;
    let (receiver, port) = Receiver::start().await;
    let token = owner_of(&stack).await;
    // Saved (a name is not an address), refused when the worker resolves it.
    let (endpoint, _) = add_endpoint(
        &stack,
        &token,
        &format!("http://localhost:{port}/ok"),
        json!(["*"]),
    )
    .await;
    let (status, _) = stack
        .call(
            Method::POST,
            &format!("/api/webhooks/{endpoint}/test"),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(status, 202);
    let deadline = Instant::now() + Duration::from_secs(10);
    let log = loop {
        let log = deliveries(&stack, &token, &endpoint).await;
        if log.first().is_some_and(|d| d["status"] != "pending") {
            break log;
        }
        assert!(Instant::now() < deadline, "{log:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(log[0]["status"], "failed");
    let error = log[0]["error"].as_str().unwrap();
    assert!(error.contains("address refused"), "{error}");
    assert!(error.contains("loopback"), "{error}");
    assert!(receiver.hits("ok").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_mid_delivery_loses_nothing_and_repeats_only_by_the_same_id() {
    let stack = stack_without_worker(&LOCAL).await;
    let (receiver, port) = Receiver::start().await;
    let token = owner_of(&stack).await;
    add_endpoint(
        &stack,
        &token,
        &format!("http://127.0.0.1:{port}/slow-first"),
        json!(["message.created"]),
    )
    .await;
    let conversation = conversation(&stack, &token, "First").await;
    for n in 1..=4 {
        reply(&stack, &token, &conversation, &format!("Reply {n}")).await;
    }
    let mut first = stack.worker_process(&[]);
    // The first request is in flight (the receiver holds it 4 s): kill the worker.
    receiver
        .wait_for("slow-first", 1, Duration::from_secs(20))
        .await;
    first.kill().unwrap();
    first.wait().unwrap();
    let _second = stack.worker_process(&[]);
    // The new worker takes the endpoint once the dead one's lease lapses (30 s).
    let hits = receiver
        .wait_for("slow-first", 6, Duration::from_secs(60))
        .await;
    let ids: Vec<&str> = hits.iter().map(Hit::id).collect();
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!(unique.len(), 5, "each of the five messages: {ids:?}");
    assert_eq!(
        ids[0], ids[1],
        "only the one in flight comes twice: {ids:?}"
    );
    let bodies: Vec<String> = hits[1..]
        .iter()
        .map(|h| h.json()["data"]["body"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        bodies,
        ["First", "Reply 1", "Reply 2", "Reply 3", "Reply 4"]
    );
}
