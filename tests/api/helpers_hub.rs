//! A raw chat hub client for the protocol tests: negotiate over HTTP, then the SignalR JSON
//! protocol by hand over a WebSocket, so a test sees exactly the records the server sends.
//! (The official client is exercised by the Node tests in `tests/hub/`.)

use std::collections::VecDeque;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use reqwest::Response;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};

use crate::helpers::TestApp;

pub const RS: char = '\u{1e}';
/// How long a test waits for a record it expects.
const WAIT: Duration = Duration::from_secs(10);

pub struct HubClient {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    records: VecDeque<Value>,
    pub closed: bool,
}

/// `http://127.0.0.1:port` -> `ws://127.0.0.1:port/hubs/chat?id=<token>`.
pub fn socket_url(address: &str, token: &str) -> String {
    format!(
        "{}/hubs/chat?id={token}",
        address.replacen("http://", "ws://", 1)
    )
}

impl TestApp {
    /// `POST /hubs/chat/negotiate?negotiateVersion=1` with `token` (if any).
    pub async fn negotiate(&self, token: Option<&str>) -> Response {
        negotiate_at(&self.client, &self.address, token, "negotiateVersion=1").await
    }

    /// A connection token for `token`'s holder.
    pub async fn connection_token(&self, token: &str) -> String {
        connection_token_at(&self.client, &self.address, token).await
    }

    /// Negotiated, connected and past the handshake.
    pub async fn hub(&self, token: &str) -> HubClient {
        hub_at(&self.client, &self.address, token).await
    }
}

pub async fn negotiate_at(
    client: &reqwest::Client,
    address: &str,
    token: Option<&str>,
    query: &str,
) -> Response {
    let mut request = client.post(format!("{address}/hubs/chat/negotiate?{query}"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.expect("negotiate")
}

pub async fn connection_token_at(client: &reqwest::Client, address: &str, token: &str) -> String {
    let response = negotiate_at(client, address, Some(token), "negotiateVersion=1").await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    body["connectionToken"]
        .as_str()
        .expect("connectionToken")
        .to_owned()
}

/// A client of the API at `address` (any replica).
pub async fn hub_at(client: &reqwest::Client, address: &str, token: &str) -> HubClient {
    let connection = connection_token_at(client, address, token).await;
    let mut hub = HubClient::connect(&socket_url(address, &connection))
        .await
        .expect("upgrade");
    hub.send_text(&format!("{{\"protocol\":\"json\",\"version\":1}}{RS}"))
        .await;
    assert_eq!(hub.next().await, json!({}), "handshake answered");
    hub
}

impl HubClient {
    pub async fn connect(url: &str) -> Result<Self, tokio_tungstenite::tungstenite::Error> {
        let (ws, _) = connect_async(url).await?;
        Ok(Self::from_stream(ws))
    }

    pub fn from_stream(ws: WebSocketStream<MaybeTlsStream<TcpStream>>) -> Self {
        Self {
            ws,
            records: VecDeque::new(),
            closed: false,
        }
    }

    pub async fn send_text(&mut self, text: &str) {
        self.ws
            .send(Message::Text(text.into()))
            .await
            .expect("send");
    }

    /// Sends `text`, whether or not the server still listens.
    pub async fn try_send_text(&mut self, text: &str) -> bool {
        self.ws.send(Message::Text(text.into())).await.is_ok()
    }

    /// Sends `records`, each with its separator, in one frame.
    pub async fn send_records(&mut self, records: &[Value]) {
        let frame: String = records.iter().map(|r| format!("{r}{RS}")).collect();
        self.send_text(&frame).await;
    }

    /// Calls `target` with an invocation id; its Completion.
    pub async fn invoke(&mut self, id: &str, target: &str, arguments: Value) -> Value {
        self.send_records(&[
            json!({"type": 1, "invocationId": id, "target": target, "arguments": arguments}),
        ])
        .await;
        loop {
            let record = self.next().await;
            if record["type"] == 3 && record["invocationId"] == id {
                return record;
            }
            assert!(
                record["type"] == 6 || record["type"] == 1,
                "while waiting for the completion of {id}: {record}"
            );
        }
    }

    /// The next record that is not an event or a ping (a Completion, a Close).
    pub async fn reply(&mut self) -> Value {
        loop {
            let record = self.next().await;
            if record["type"] != 1 && record["type"] != 6 {
                return record;
            }
        }
    }

    /// The next record (pings included), waiting up to 10 s.
    pub async fn next(&mut self) -> Value {
        self.next_within(WAIT)
            .await
            .unwrap_or_else(|| panic!("no record within {WAIT:?}"))
    }

    /// The next record within `wait`, or `None` (also when the socket closed).
    pub async fn next_within(&mut self, wait: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(record) = self.records.pop_front() {
                return Some(record);
            }
            if self.closed {
                return None;
            }
            // A client that says nothing for 30 s is dropped: ping while waiting, as the
            // official clients do.
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return None;
            }
            let until = deadline.min(now + Duration::from_secs(10));
            let Ok(frame) = tokio::time::timeout_at(until, self.ws.next()).await else {
                if until < deadline {
                    let ping = format!("{{\"type\":6}}{RS}");
                    self.closed |= self.ws.send(Message::Text(ping.into())).await.is_err();
                }
                continue;
            };
            match frame {
                Some(Ok(Message::Text(text))) => {
                    let text = text.as_str();
                    assert!(text.ends_with(RS), "a frame holds whole records: {text:?}");
                    for record in text.trim_end_matches(RS).split(RS) {
                        self.records
                            .push_back(serde_json::from_str(record).expect("a JSON record"));
                    }
                }
                Some(Ok(Message::Binary(_))) => panic!("the json protocol sends text frames"),
                Some(Ok(Message::Close(_)) | Err(_)) | None => self.closed = true,
                Some(Ok(_)) => {}
            }
        }
    }

    /// The next event (an Invocation from the server), skipping pings; `(target, argument)`.
    pub async fn event(&mut self) -> (String, Value) {
        loop {
            let record = self.next().await;
            if record["type"] == 6 {
                continue;
            }
            assert_eq!(record["type"], 1, "an event: {record}");
            assert!(
                record.get("invocationId").is_none(),
                "events expect no answer"
            );
            return (
                record["target"].as_str().expect("target").to_owned(),
                record["arguments"][0].clone(),
            );
        }
    }

    /// The next event named `target`, skipping others.
    pub async fn event_named(&mut self, target: &str) -> Value {
        loop {
            let (name, argument) = self.event().await;
            if name == target {
                return argument;
            }
        }
    }

    /// Asserts no event arrives within `wait` (pings are fine).
    pub async fn no_event_within(&mut self, wait: Duration) {
        let deadline = tokio::time::Instant::now() + wait;
        while let Some(record) = self
            .next_within(deadline.saturating_duration_since(tokio::time::Instant::now()))
            .await
        {
            assert_eq!(record["type"], 6, "no event expected, got {record}");
        }
    }

    /// Every record until the socket closes or `wait` ends, sending nothing meanwhile (not
    /// even pings).
    pub async fn listen_silently(&mut self, wait: Duration) -> Vec<(Duration, Value)> {
        let started = tokio::time::Instant::now();
        let deadline = started + wait;
        let mut heard = Vec::new();
        while let Ok(Some(Ok(frame))) = tokio::time::timeout_at(deadline, self.ws.next()).await {
            if let Message::Text(text) = frame {
                for record in text.as_str().trim_end_matches(RS).split(RS) {
                    heard.push((
                        started.elapsed(),
                        serde_json::from_str(record).expect("JSON"),
                    ));
                }
            }
        }
        heard
    }

    /// Reads and forgets whatever arrives within `wait` (a connection's own presence, say).
    pub async fn drain(&mut self, wait: Duration) {
        let deadline = tokio::time::Instant::now() + wait;
        while self
            .next_within(deadline.saturating_duration_since(tokio::time::Instant::now()))
            .await
            .is_some()
        {}
    }

    /// The server's Close message, skipping what comes before it; then the socket ends.
    pub async fn close_message(&mut self) -> Value {
        loop {
            let record = self.next().await;
            if record["type"] == 7 {
                return record;
            }
        }
    }
}

/// Runs a hub client program of `tests/hub` (`program script`, with `config` as JSON in
/// `HUB_TEST_CONFIG`) and asserts it printed "all passed" and exited 0 within `limit`,
/// showing what it printed otherwise. `what` names it in the failure.
pub async fn run_client_script(
    program: &std::ffi::OsStr,
    script: &str,
    config: &Value,
    limit: Duration,
    what: &str,
) {
    let run = tokio::process::Command::new(program)
        .arg(script)
        .current_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hub"))
        .env("HUB_TEST_CONFIG", config.to_string())
        .env("PYTHONUNBUFFERED", "1")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(limit, run)
        .await
        .unwrap_or_else(|_| panic!("{what} finished within {limit:?}"))
        .unwrap_or_else(|e| panic!("{what} runs: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("all passed"),
        "{what} failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
}
