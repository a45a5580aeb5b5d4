//! Chat hub benchmark: the release API serving WebSocket connections from a load generator in
//! this process (tokio-tungstenite), speaking the SignalR protocols as the official clients do
//! (negotiate, handshake, pings every 10 s), JSON and MessagePack side by side: each phase runs
//! once per protocol with the same knobs.
//!
//! 1. `HUB_BENCH_IDLE` (10 000) idle agent connections over 10 workspaces: the server's
//!    resident memory per connection (budget 40 KiB).
//! 2. Fan-out: a reply posted over REST in a workspace with `HUB_BENCH_FANOUT` (1 000) open
//!    connections, 20 times; the time from the POST to each connection's `MessageCreated`
//!    (budget: p99 < 100 ms).
//! 3. `SendMessage` round trips at `HUB_BENCH_RATE` (200) calls/s for `HUB_BENCH_SECONDS` (20)
//!    while `HUB_BENCH_OPEN` (5 000) connections are open over `HUB_BENCH_WORKSPACES` (100)
//!    workspaces, each call fanned out to its workspace's connections (budget: p99 < 20 ms).
//!
//! `HUB_BENCH_PROTOCOLS` (`json,messagepack`) chooses the protocols, in that order.
//!
//! The server's limits hold as they do in production: each connection is opened by an agent
//! of its workspace who holds at most `MAX_CONNECTIONS_PER_AGENT` (20) at once and negotiates at
//! most 60 times in the whole run (the quota is 60 a minute), so the benchmark gives each
//! workspace as many agents as that takes. A workspace's connections stay within
//! `HUB_MAX_CONNECTIONS_PER_WORKSPACE`, which the benchmark raises for its server, as an operator
//! would, only when the knobs ask for more than its default. Between phases the benchmark waits
//! until the server has closed the previous phase's connections and announced their agents
//! offline, so no phase measures the one before it being torn down.
//!
//! Each call is timed twice: as the calling task saw it (the budget's measure, as before) and
//! on the wire, from the call's frame handed to the socket to the completion's frame read from
//! it, which leaves out the generator's own task scheduling. `HUB_BENCH_CLIENT_THREADS` sets
//! the generator's worker threads (default: one a core). `HUB_BENCH_PROBE=1` samples, during
//! the measured calls, what the round trips wait on (hub/probe.rs): a thread's wake-up,
//! PostgreSQL's answer and commit, Redis, CPU and I/O pressure.
//!
//! Needs PostgreSQL and Redis as the tests do (`TEST_DATABASE_URL`, `TEST_REDIS_URL`). Run it
//! with `BENCH_ONLY=hub bash .ci/bench` or `cargo bench --bench hub`. Reports go to
//! `$CARGO_TARGET_TMPDIR/bench-hub/`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test and benchmark harness: a failure here is a failed run, with its message"
)]

#[path = "common/mod.rs"]
mod common;
#[path = "hub/probe.rs"]
mod probe;

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use common::{
    bench_env, insert_users, jwt_keys, knob, ms, percentile, post_json, workspace_via_api,
};
use futures::{SinkExt, StreamExt};
use probe::Probe;
use rmpv::{Value as Pack, ValueRef};
use serde_json::{Value, json};
use supportdesk::chat::negotiate::MAX_CONNECTIONS_PER_AGENT;
use supportdesk::hub::protocol::msgpack;
use supportdesk::workspaces::provision::add_profile;
use supportdesk_core::config::Settings;
use supportdesk_core::role::Role;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::process::KillOnDrop;
use supportdesk_test_support::{free_port, redis_url};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::connect_async;
use tokio_tungstenite::tungstenite::Message;

const RS: char = '\u{1e}';
/// Calls at the measured rate before the measured ones.
const WARM_UP_SECONDS: usize = 10;
/// Negotiations one credential may start a minute (`NEGOTIATIONS_PER_CREDENTIAL` in
/// src/chat/negotiate.rs): the benchmark keeps each agent's whole run within it.
const NEGOTIATIONS_PER_AGENT: usize = 60;
/// `HUB_MAX_CONNECTIONS_PER_WORKSPACE`'s default.
const DEFAULT_WORKSPACE_CAP: usize = 2_000;
/// How long after an agent's last connection closes the server announces them offline
/// (`presence::GRACE` and its sweep's margin), with a second to spare.
const PRESENCE_SETTLES: Duration = Duration::from_millis(11_250);

/// The hub protocols the benchmark speaks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Protocol {
    Json,
    MessagePack,
}

impl Protocol {
    fn name(self) -> &'static str {
        match self {
            Self::Json => "JSON",
            Self::MessagePack => "MessagePack",
        }
    }

    fn handshake(self) -> Message {
        let name = match self {
            Self::Json => "json",
            Self::MessagePack => "messagepack",
        };
        Message::Text(format!("{{\"protocol\":\"{name}\",\"version\":1}}{RS}").into())
    }

    fn ping(self) -> Message {
        match self {
            Self::Json => Message::Text(format!("{{\"type\":6}}{RS}").into()),
            Self::MessagePack => Message::Binary(msgpack::record(vec![6.into()]).into()),
        }
    }

    /// An invocation of `target` with string arguments.
    fn invocation(self, id: &str, target: &str, arguments: &[&str]) -> Message {
        match self {
            Self::Json => {
                let record = json!({"type": 1, "invocationId": id, "target": target, "arguments": arguments});
                Message::Text(format!("{record}{RS}").into())
            }
            Self::MessagePack => Message::Binary(
                msgpack::record(vec![
                    1.into(),
                    Pack::Map(vec![]),
                    id.into(),
                    target.into(),
                    Pack::Array(arguments.iter().map(|a| (*a).into()).collect()),
                ])
                .into(),
            ),
        }
    }
}

/// Takes the complete MessagePack records off the front of `buffer` (a record may span
/// frames); their bodies.
fn unpack(buffer: &mut Vec<u8>) -> Vec<Vec<u8>> {
    let mut records = Vec::new();
    let mut rest: &[u8] = buffer;
    while let Ok(Some((record, after))) = msgpack::split(rest) {
        records.push(record.to_vec());
        rest = after;
    }
    let used = buffer.len() - rest.len();
    buffer.drain(..used);
    records
}

fn string<'a>(value: &'a ValueRef<'_>) -> Option<&'a str> {
    match value {
        ValueRef::String(s) => s.as_str(),
        _ => None,
    }
}

fn field<'a, 'b>(value: &'a ValueRef<'b>, key: &str) -> Option<&'a ValueRef<'b>> {
    match value {
        ValueRef::Map(entries) => entries
            .iter()
            .find(|(k, _)| string(k) == Some(key))
            .map(|(_, v)| v),
        _ => None,
    }
}

/// How a call completed.
enum Answer {
    Result,
    Void,
    Error(String),
}

/// What a run of calls at a fixed rate measured.
struct Calls {
    /// As the calling task saw them: from before it queued the call to after it was woken
    /// with the completion.
    round_trips: Vec<Duration>,
    /// On the wire: from the call's frame handed to the socket to the completion's frame
    /// read from it (the generator's own task scheduling left out).
    on_wire: Vec<Duration>,
    errors: Vec<String>,
    achieved: f64,
}

/// `SendMessage` at `rate` calls a second for `seconds`, from the first connection of each
/// workspace in turn (`open` holds them first, one per workspace); every call's round trip.
async fn send_at_rate(
    open: &Arc<Vec<Conn>>,
    conversations: &[String],
    rate: usize,
    seconds: usize,
) -> anyhow::Result<Calls> {
    let workspaces = conversations.len();
    let total = rate * seconds;
    let interval = Duration::from_secs_f64(1.0 / rate as f64);
    let begun = tokio::time::Instant::now();
    let mut calls = Vec::with_capacity(total);
    for i in 0..total {
        tokio::time::sleep_until(begun + interval * i as u32).await;
        // The first connection of each workspace sends, in turn.
        let sender = i % workspaces;
        let open = open.clone();
        let conversation = conversations[sender].clone();
        calls.push(tokio::spawn(async move {
            let started = Instant::now();
            let answer = open[sender]
                .invoke("SendMessage", &[&conversation, "Round trip"])
                .await;
            match answer {
                Ok((Answer::Result, wire)) => Ok((started.elapsed(), wire)),
                Ok((Answer::Void, _)) => Err("completed without a result".to_owned()),
                Ok((Answer::Error(error), _)) => Err(error),
                Err(err) => Err(err.to_string()),
            }
        }));
    }
    let mut round_trips = Vec::new();
    let mut on_wire = Vec::new();
    let mut errors = Vec::new();
    // When the slow calls were sent (seconds into the run), to tell a stall from a spread.
    let mut slow_at: Vec<String> = Vec::new();
    for (i, call) in calls.into_iter().enumerate() {
        match call.await? {
            Ok((elapsed, wire)) => {
                if elapsed > Duration::from_millis(50) {
                    slow_at.push(format!(
                        "{:.2}s:{:.0}/{:.0}ms",
                        (interval * i as u32).as_secs_f64(),
                        elapsed.as_secs_f64() * 1000.0,
                        wire.as_secs_f64() * 1000.0
                    ));
                }
                round_trips.push(elapsed);
                on_wire.push(wire);
            }
            Err(err) => errors.push(err),
        }
    }
    if !slow_at.is_empty() {
        eprintln!(
            "calls over 50 ms, sent at (s into the run): task/wire round trip {}",
            slow_at.join(" ")
        );
    }
    let achieved = total as f64 / begun.elapsed().as_secs_f64();
    round_trips.sort();
    on_wire.sort();
    Ok(Calls {
        round_trips,
        on_wire,
        errors,
        achieved,
    })
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

struct Knobs {
    idle: usize,
    fanout: usize,
    open: usize,
    workspaces: usize,
    rate: usize,
    seconds: usize,
    protocols: Vec<Protocol>,
    probe: bool,
}

fn main() -> anyhow::Result<()> {
    let protocols = std::env::var("HUB_BENCH_PROTOCOLS")
        .unwrap_or_else(|_| "json,messagepack".into())
        .split(',')
        .map(|name| match name.trim().to_ascii_lowercase().as_str() {
            "json" => Ok(Protocol::Json),
            "messagepack" | "msgpack" => Ok(Protocol::MessagePack),
            other => bail!("HUB_BENCH_PROTOCOLS: unknown protocol {other:?}"),
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let knobs = Knobs {
        idle: knob("HUB_BENCH_IDLE", 10_000).max(10),
        fanout: knob("HUB_BENCH_FANOUT", 1_000).max(1),
        open: knob("HUB_BENCH_OPEN", 5_000).max(1),
        workspaces: knob("HUB_BENCH_WORKSPACES", 100).max(10),
        rate: knob("HUB_BENCH_RATE", 200).max(1),
        seconds: knob("HUB_BENCH_SECONDS", 20).max(3),
        protocols,
        probe: knob("HUB_BENCH_PROBE", 0) == 1,
    };
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(knob("HUB_BENCH_CLIENT_THREADS", cores()).max(1))
        .thread_name("bench-client")
        .enable_all()
        .build()?
        .block_on(run(knobs))
}

/// A `MessageCreated` a connection heard: the message id and when.
type Heard = (String, Instant);

/// Calls awaiting their completion, and when the frame that held it was read.
type Pending = Arc<Mutex<HashMap<String, oneshot::Sender<(Answer, Instant)>>>>;

/// A frame for the writer, and where to say when it was handed to the socket.
type Outgoing = (Message, Option<oneshot::Sender<Instant>>);

/// One client connection: calls go through `writer`; its reader answers completions and
/// reports `MessageCreated` events.
struct Conn {
    protocol: Protocol,
    writer: mpsc::UnboundedSender<Outgoing>,
    pending: Pending,
    next_id: AtomicU64,
    tasks: [tokio::task::JoinHandle<()>; 2],
}

impl Drop for Conn {
    fn drop(&mut self) {
        let _ = self.writer.send((Message::Close(None), None));
        self.tasks[1].abort();
    }
}

/// Reads a JSON connection's records: completions answer their calls, `MessageCreated`
/// events are reported. Only what the benchmark measures is parsed in full.
fn read_json(text: &str, at: Instant, answers: &Pending, heard: &mpsc::UnboundedSender<Heard>) {
    for record in text.split(RS).filter(|r| !r.is_empty()) {
        if record.starts_with("{\"type\":3") {
            let value: Value = serde_json::from_str(record).unwrap_or_default();
            let id = value["invocationId"].as_str().unwrap_or_default();
            let answer = if value.get("result").is_some() {
                Answer::Result
            } else if let Some(error) = value.get("error") {
                Answer::Error(error.to_string())
            } else {
                Answer::Void
            };
            if let Some(waiting) = answers.lock().unwrap().remove(id) {
                let _ = waiting.send((answer, at));
            }
        } else if record.contains("\"target\":\"MessageCreated\"") {
            // The message id is the first "id" of the record's message: found without
            // parsing, so the generator stays light beside the server.
            let id = record
                .split_once("\"message\":{\"id\":\"")
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(id, _)| id.to_owned())
                .unwrap_or_default();
            let _ = heard.send((id, at));
        }
    }
}

/// Reads one MessagePack record (borrowed, not copied into a tree of its own).
fn read_packed(body: &[u8], at: Instant, answers: &Pending, heard: &mpsc::UnboundedSender<Heard>) {
    let Ok(ValueRef::Array(items)) = rmpv::decode::read_value_ref(&mut &body[..]) else {
        return;
    };
    match items.first().and_then(ValueRef::as_u64) {
        // [3, headers, invocationId, kind, result?]
        Some(3) => {
            let id = items.get(2).and_then(string).unwrap_or_default();
            let answer = match items.get(3).and_then(ValueRef::as_u64) {
                Some(3) => Answer::Result,
                Some(2) => Answer::Void,
                _ => Answer::Error(format!("{:?}", items.get(4))),
            };
            if let Some(waiting) = answers.lock().unwrap().remove(id) {
                let _ = waiting.send((answer, at));
            }
        }
        // [1, headers, nil, target, [payload]]
        Some(1) if items.get(3).and_then(string) == Some("MessageCreated") => {
            let id = items
                .get(4)
                .and_then(|arguments| match arguments {
                    ValueRef::Array(arguments) => arguments.first(),
                    _ => None,
                })
                .and_then(|payload| field(payload, "message"))
                .and_then(|message| field(message, "id"))
                .and_then(string)
                .unwrap_or_default()
                .to_owned();
            let _ = heard.send((id, at));
        }
        _ => {}
    }
}

impl Conn {
    async fn open(
        client: &reqwest::Client,
        base: &str,
        token: &str,
        protocol: Protocol,
        heard: mpsc::UnboundedSender<Heard>,
    ) -> anyhow::Result<Self> {
        let negotiated = post_json(
            client,
            format!("{base}/hubs/chat/negotiate?negotiateVersion=1"),
            token,
            json!({}),
        )
        .await?;
        let id = negotiated["connectionToken"].as_str().context("token")?;
        let url = format!("{}/hubs/chat?id={id}", base.replacen("http", "ws", 1));
        let (ws, _) = connect_async(url).await?;
        let (mut sink, mut stream) = ws.split();
        sink.send(protocol.handshake()).await?;
        // The answer `{}` is text in JSON, a binary frame in MessagePack.
        match (protocol, stream.next().await) {
            (Protocol::Json, Some(Ok(Message::Text(text)))) if text.as_str().starts_with("{}") => {}
            (Protocol::MessagePack, Some(Ok(Message::Binary(bytes))))
                if bytes.starts_with(b"{}\x1e") => {}
            (_, other) => bail!("{} handshake: {other:?}", protocol.name()),
        }
        let (writer, mut outgoing) = mpsc::unbounded_channel::<Outgoing>();
        let write = tokio::spawn(async move {
            // Clients ping every 10 s from a random start, as clients that connected at
            // different times would.
            let every = Duration::from_secs(10);
            let first = tokio::time::Instant::now() + every.mul_f64(rand::random::<f64>());
            let mut ping = tokio::time::interval_at(first, every);
            loop {
                let (message, written) = tokio::select! {
                    message = outgoing.recv() => match message {
                        Some(message) => message,
                        None => return,
                    },
                    _ = ping.tick() => (protocol.ping(), None),
                };
                if let Some(written) = written {
                    let _ = written.send(Instant::now());
                }
                let closing = matches!(message, Message::Close(_));
                if sink.send(message).await.is_err() || closing {
                    return;
                }
            }
        });
        let pending: Pending = Arc::default();
        let answers = pending.clone();
        let read = tokio::spawn(async move {
            let mut buffer = Vec::new();
            while let Some(Ok(frame)) = stream.next().await {
                let at = Instant::now();
                match frame {
                    Message::Text(text) => read_json(text.as_str(), at, &answers, &heard),
                    Message::Binary(bytes) => {
                        buffer.extend_from_slice(&bytes);
                        for body in unpack(&mut buffer) {
                            read_packed(&body, at, &answers, &heard);
                        }
                    }
                    _ => {}
                }
            }
        });
        Ok(Self {
            protocol,
            writer,
            pending,
            next_id: AtomicU64::new(0),
            tasks: [write, read],
        })
    }

    /// Invokes `target` with string arguments; how it completed, and the round trip on the
    /// wire: from the frame handed to the socket to the completion's frame read from it.
    async fn invoke(&self, target: &str, arguments: &[&str]) -> anyhow::Result<(Answer, Duration)> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed).to_string();
        let (answer, answered) = oneshot::channel();
        let (written, was_written) = oneshot::channel();
        self.pending.lock().unwrap().insert(id.clone(), answer);
        self.writer
            .send((
                self.protocol.invocation(&id, target, arguments),
                Some(written),
            ))
            .ok()
            .context("connection closed")?;
        let (answer, read_at) = tokio::time::timeout(Duration::from_secs(10), answered).await??;
        let written_at = was_written.await?;
        Ok((answer, read_at.saturating_duration_since(written_at)))
    }
}

/// Opens a connection with each of `tokens` (one a connection), 64 at a time.
async fn open_many(
    client: &reqwest::Client,
    base: &str,
    tokens: &[&str],
    protocol: Protocol,
    heard: &mpsc::UnboundedSender<Heard>,
) -> anyhow::Result<Vec<Conn>> {
    futures::stream::iter(tokens)
        .map(|token| {
            let heard = heard.clone();
            async move { Conn::open(client, base, token, protocol, heard).await }
        })
        .buffered(64)
        .collect::<Vec<anyhow::Result<Conn>>>()
        .await
        .into_iter()
        .collect()
}

/// Who opens each connection of the run: per workspace, how often each of its agents
/// negotiated. A phase's connections in a workspace go to agents not already holding one of
/// that phase, at most [`MAX_CONNECTIONS_PER_AGENT`] each, least used first, so that no agent
/// negotiates more than [`NEGOTIATIONS_PER_AGENT`] times in the whole run; agents are added
/// as needed.
#[derive(Default)]
struct Roster {
    uses: Vec<Vec<usize>>,
    in_phase: Vec<HashSet<usize>>,
}

/// A connection's workspace and agent (indices).
type Seat = (usize, usize);

impl Roster {
    fn new(workspaces: usize) -> Self {
        Self {
            uses: vec![Vec::new(); workspaces],
            in_phase: vec![HashSet::new(); workspaces],
        }
    }

    /// The next phase: its connections are opened after the last phase's are closed.
    fn next_phase(&mut self) {
        self.in_phase.iter_mut().for_each(HashSet::clear);
    }

    /// Agents for `count` connections in `workspace`.
    fn seat(&mut self, workspace: usize, count: usize) -> Vec<usize> {
        if count == 0 {
            return Vec::new();
        }
        let agents = count.div_ceil(MAX_CONNECTIONS_PER_AGENT);
        let share = count.div_ceil(agents);
        let (uses, in_phase) = (&mut self.uses[workspace], &mut self.in_phase[workspace]);
        let mut chosen: Vec<usize> = (0..uses.len())
            .filter(|a| !in_phase.contains(a) && uses[*a] + share <= NEGOTIATIONS_PER_AGENT)
            .collect();
        chosen.sort_by_key(|a| uses[*a]);
        chosen.truncate(agents);
        while chosen.len() < agents {
            uses.push(0);
            chosen.push(uses.len() - 1);
        }
        in_phase.extend(&chosen);
        (0..count)
            .map(|i| {
                let agent = chosen[i % agents];
                uses[agent] += 1;
                agent
            })
            .collect()
    }

    /// `count` connections spread over the first `workspaces` in turn (connection `i` in
    /// workspace `i % workspaces`).
    fn spread(&mut self, count: usize, workspaces: usize) -> Vec<Seat> {
        let seated: Vec<Vec<usize>> = (0..workspaces)
            .map(|w| self.seat(w, (count + workspaces - 1 - w) / workspaces))
            .collect();
        (0..count)
            .map(|i| (i % workspaces, seated[i % workspaces][i / workspaces]))
            .collect()
    }
}

/// Every phase's seats, per protocol, decided before the agents are made.
struct Plan {
    /// Phase 1 (and 2's audience in workspace 0).
    idle: Vec<Vec<Seat>>,
    /// Phase 2's connections beyond workspace 0's idle ones.
    extra: Vec<Vec<Seat>>,
    /// Phase 3.
    open: Vec<Vec<Seat>>,
    /// Agents per workspace.
    agents: Vec<usize>,
}

impl Plan {
    fn new(knobs: &Knobs) -> Self {
        let mut roster = Roster::new(knobs.workspaces);
        let (mut idle, mut extra, mut open) = (Vec::new(), Vec::new(), Vec::new());
        let in_first = knobs.idle.div_ceil(10);
        for _ in &knobs.protocols {
            roster.next_phase();
            idle.push(roster.spread(knobs.idle, 10));
            let more = knobs.fanout.saturating_sub(in_first);
            extra.push(roster.seat(0, more).into_iter().map(|a| (0, a)).collect());
        }
        for _ in &knobs.protocols {
            roster.next_phase();
            open.push(roster.spread(knobs.open, knobs.workspaces));
        }
        Self {
            idle,
            extra,
            open,
            agents: roster.uses.iter().map(Vec::len).collect(),
        }
    }

    /// The most connections any workspace holds at once.
    fn per_workspace(knobs: &Knobs) -> usize {
        knobs
            .idle
            .div_ceil(10)
            .max(knobs.fanout)
            .max(knobs.open.div_ceil(knobs.workspaces))
    }
}

fn rss_kib(pid: u32) -> anyhow::Result<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .context("VmRSS")?;
    Ok(line.split_whitespace().nth(1).context("value")?.parse()?)
}

/// Waits until the server holds no hub connection (its `hub_open_connections` gauge), then
/// until it has announced their agents offline, so the next phase measures only itself.
async fn settle(client: &reqwest::Client, metrics: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let text = client.get(metrics).send().await?.text().await?;
        let open: f64 = text
            .lines()
            .filter(|l| l.starts_with("hub_open_connections"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum();
        if open == 0.0 {
            break;
        }
        ensure!(
            Instant::now() < deadline,
            "{open} hub connections still open a minute after the benchmark closed them"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(PRESENCE_SETTLES).await;
    Ok(())
}

/// p50 / p99 / max of sorted durations.
fn spread(sorted: &[Duration]) -> String {
    format!(
        "p50 {} / p99 {} / max {}",
        ms(percentile(sorted, 0.5)),
        ms(percentile(sorted, 0.99)),
        ms(sorted.last().copied().unwrap_or_default()),
    )
}

/// One protocol's figures, side by side with the others' in the report.
#[derive(Default)]
struct Figures {
    memory: String,
    fanout: String,
    round_trip: String,
    warm_up: String,
    on_wire: String,
    holds: [bool; 3],
}

fn holds(all: &[Figures], target: usize) -> &'static str {
    if all.iter().all(|f| f.holds[target]) {
        "yes"
    } else {
        "**no**"
    }
}

#[expect(
    clippy::too_many_lines,
    reason = "the benchmark's phases in order, as the report lists them"
)]
async fn run(knobs: Knobs) -> anyhow::Result<()> {
    let started_all = Instant::now();
    let step = |what: &str| eprintln!("[{:>6.1} s] {what}", started_all.elapsed().as_secs_f64());
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-hub");
    std::fs::create_dir_all(&out)?;
    let client = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(64)
        .build()?;

    step("creating the benchmark database");
    let database = TestDatabase::empty().await;
    let metrics_port = free_port();
    let metrics_bind = format!("127.0.0.1:{metrics_port}");
    // The operator's setting for workspaces this large; the default otherwise.
    let per_workspace = Plan::per_workspace(&knobs);
    let workspace_cap = per_workspace.max(DEFAULT_WORKSPACE_CAP).to_string();
    let mut overrides = vec![
        ("ASPNETCORE_ENVIRONMENT", "Production"),
        ("METRICS_BIND", metrics_bind.as_str()),
    ];
    if per_workspace > DEFAULT_WORKSPACE_CAP {
        overrides.push(("HUB_MAX_CONNECTIONS_PER_WORKSPACE", workspace_cap.as_str()));
    }
    let env = bench_env(&database.url, &overrides);
    let settings = Settings::load_from(None, Some(env.clone()))?;
    let migrate = Command::new(env!("CARGO_BIN_EXE_supportdesk"))
        .arg("migrate")
        .env_clear()
        .envs(&env)
        .current_dir(&out)
        .output()?;
    ensure!(migrate.status.success(), "supportdesk migrate failed");

    step("starting the API (release build)");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let metrics = format!("http://{metrics_bind}/metrics");
    let server = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_supportdesk"))
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .env_clear()
            .envs(&env)
            .current_dir(&out)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(out.join("server.log"))?)
            .spawn()?,
    );
    let pid = server.id();
    let mut healthy = false;
    for _ in 0..100 {
        if client
            .get(format!("{base}/healthz"))
            .send()
            .await
            .is_ok_and(|r| r.status() == 200)
        {
            healthy = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    ensure!(healthy, "the API did not become healthy");

    step(&format!(
        "{} workspaces, a conversation in each",
        knobs.workspaces
    ));
    let pool = database.pool().await;
    let owners = insert_users(&pool, "hub-owner-", knobs.workspaces, "unused").await?;
    let jwt = jwt_keys(&settings)?;
    let mut owner_tokens = Vec::new();
    let mut workspace_ids = Vec::new();
    let mut conversations = Vec::new();
    for (i, (user_id, _)) in owners.iter().enumerate() {
        let user_token = jwt.issue_user(*user_id, 0)?.token;
        let (workspace, token) =
            workspace_via_api(&client, &base, &user_token, &format!("Hub {i}")).await?;
        let conversation = post_json(
            &client,
            format!("{base}/api/conversations"),
            &token,
            json!({"contact": {"email": format!("c{i}@bench.test")}, "body": "Hello"}),
        )
        .await?;
        conversations.push(conversation["id"].as_str().context("id")?.to_owned());
        workspace_ids.push(workspace);
        owner_tokens.push(token);
    }

    // The agents who open the connections, as members with their profiles.
    let plan = Plan::new(&knobs);
    let total: usize = plan.agents.iter().sum();
    step(&format!(
        "{total} agents (each at most {MAX_CONNECTIONS_PER_AGENT} connections at once, {NEGOTIATIONS_PER_AGENT} negotiations in the run); at most {per_workspace} connections in a workspace (cap {workspace_cap})"
    ));
    let users = insert_users(&pool, "hub-agent-", total, "unused").await?;
    let mut users = users.into_iter();
    let mut agent_tokens: Vec<Vec<String>> = Vec::new();
    for (workspace, count) in workspace_ids.iter().zip(&plan.agents) {
        let mut tx = pool.begin().await?;
        let schema = TenantSchema::for_workspace(*workspace);
        let mut tokens = Vec::new();
        for (user_id, _) in users.by_ref().take(*count) {
            sqlx::query(
                "INSERT INTO public.memberships (workspace_id, user_id, role) VALUES ($1, $2, 'agent')",
            )
            .bind(workspace)
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
            add_profile(&mut tx, &schema, user_id)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            tokens.push(
                jwt.issue_workspace(user_id, *workspace, Role::Agent, 0)?
                    .token,
            );
        }
        tx.commit().await?;
        agent_tokens.push(tokens);
    }
    let tokens_of = |seats: &[Seat]| -> Vec<&str> {
        seats
            .iter()
            .map(|(w, a)| agent_tokens[*w][*a].as_str())
            .collect()
    };

    let mut figures: Vec<Figures> = Vec::new();
    let (heard, mut hearing) = mpsc::unbounded_channel::<Heard>();
    let in_first = knobs.idle.div_ceil(10);
    let audience = in_first.max(knobs.fanout);
    for (p, &protocol) in knobs.protocols.iter().enumerate() {
        let mut these = Figures::default();
        // 1. Idle connections: memory.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let before = rss_kib(pid)?;
        step(&format!(
            "{}: opening {} idle connections over 10 workspaces",
            protocol.name(),
            knobs.idle
        ));
        let opened = Instant::now();
        let idle = open_many(&client, &base, &tokens_of(&plan.idle[p]), protocol, &heard).await?;
        let open_rate = knobs.idle as f64 / opened.elapsed().as_secs_f64();
        tokio::time::sleep(Duration::from_secs(5)).await;
        let after = rss_kib(pid)?;
        let per = (after - before) / knobs.idle as f64;
        these.memory = format!(
            "{per:.1} KiB ({:.0} -> {:.0} MiB; opened at {open_rate:.0}/s)",
            before / 1024.0,
            after / 1024.0,
        );
        these.holds[0] = per < 40.0;
        while hearing.try_recv().is_ok() {}

        // 2. Fan-out to the connections of one workspace. Workspace 0 holds every 10th idle
        // connection; more are opened there until it has `fanout`.
        let extra = open_many(&client, &base, &tokens_of(&plan.extra[p]), protocol, &heard).await?;
        step(&format!(
            "{}: fan-out: 20 replies to {audience} connections of one workspace",
            protocol.name()
        ));
        tokio::time::sleep(Duration::from_secs(1)).await;
        while hearing.try_recv().is_ok() {}
        let mut latencies = Vec::new();
        for round in 0..20 {
            let sent = Instant::now();
            let reply = post_json(
                &client,
                format!("{base}/api/conversations/{}/messages", conversations[0]),
                &owner_tokens[0],
                json!({"body": format!("Fan-out {round}")}),
            )
            .await?;
            let id = reply["id"].as_str().context("id")?.to_owned();
            let deadline = Instant::now() + Duration::from_secs(10);
            let mut got = 0;
            while got < audience && Instant::now() < deadline {
                match tokio::time::timeout(Duration::from_secs(10), hearing.recv()).await {
                    Ok(Some((heard_id, at))) if heard_id == id => {
                        latencies.push(at.duration_since(sent));
                        got += 1;
                    }
                    Ok(Some(_)) => {}
                    _ => break,
                }
            }
            ensure!(
                got == audience,
                "{}: round {round}: {got} of {audience} heard the reply",
                protocol.name()
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        latencies.sort();
        let p99 = percentile(&latencies, 0.99);
        these.fanout = format!(
            "p50 {} / p99 {} / max {}",
            ms(percentile(&latencies, 0.5)),
            ms(p99),
            ms(*latencies.last().unwrap_or(&Duration::ZERO)),
        );
        these.holds[1] = p99 < Duration::from_millis(100);
        drop(extra);
        drop(idle);
        step("waiting for the server to close them and announce their agents offline");
        settle(&client, &metrics).await?;
        while hearing.try_recv().is_ok() {}
        figures.push(these);
    }

    // 3. SendMessage round trips at a fixed rate while `open` connections are open.
    let drain = tokio::spawn(async move {
        let mut count = 0u64;
        while hearing.recv().await.is_some() {
            count += 1;
        }
        count
    });
    let mut sent_before = 0;
    let mut probes = String::new();
    for (p, &protocol) in knobs.protocols.iter().enumerate() {
        step(&format!(
            "{}: {} connections over {} workspaces; SendMessage at {}/s for {} s",
            protocol.name(),
            knobs.open,
            knobs.workspaces,
            knobs.rate,
            knobs.seconds
        ));
        let open =
            Arc::new(open_many(&client, &base, &tokens_of(&plan.open[p]), protocol, &heard).await?);
        // The first seconds prepare each statement on each pooled connection for each of the
        // workspaces (and load their catalog entries): warm up, then measure the steady
        // state.
        let warm = send_at_rate(&open, &conversations, knobs.rate, WARM_UP_SECONDS).await?;
        let probe = if knobs.probe {
            Some(Probe::start(&database.url, &redis_url(), pid).await?)
        } else {
            None
        };
        let calls = send_at_rate(&open, &conversations, knobs.rate, knobs.seconds).await?;
        if let Some(probe) = probe {
            let seen = probe.stop(Duration::from_millis(20));
            eprintln!(
                "{}: what the probes saw during the measured calls:\n{seen}",
                protocol.name()
            );
            probes.push_str(&format!("{} (measured calls):\n{seen}", protocol.name()));
        }
        let (round_trips, errors, achieved) = (calls.round_trips, calls.errors, calls.achieved);
        let p99 = percentile(&round_trips, 0.99);
        drop(open);
        let sent = scrape(&client, &metrics, "hub_messages_out_total").await? as u64;
        let these = &mut figures[p];
        these.round_trip = format!(
            "p50 {} / p99 {} / max {}; {} errors; {achieved:.0}/s achieved; {} records sent",
            ms(percentile(&round_trips, 0.5)),
            ms(p99),
            ms(*round_trips.last().unwrap_or(&Duration::ZERO)),
            errors.len(),
            sent - sent_before,
        );
        sent_before = sent;
        these.on_wire = spread(&calls.on_wire);
        these.warm_up = format!(
            "p50 {} / p99 {} / max {}; {} errors",
            ms(percentile(&warm.round_trips, 0.5)),
            ms(percentile(&warm.round_trips, 0.99)),
            ms(*warm.round_trips.last().unwrap_or(&Duration::ZERO)),
            warm.errors.len(),
        );
        these.holds[2] = p99 < Duration::from_millis(20) && errors.is_empty();
        if let Some(first) = errors.first() {
            eprintln!("{}: first error: {first}", protocol.name());
        }
        step("waiting for the server to close them and announce their agents offline");
        settle(&client, &metrics).await?;
    }
    drop(heard);
    let _ = tokio::time::timeout(Duration::from_secs(10), drain).await;
    drop(server);

    let mut report = String::new();
    let names: Vec<&str> = knobs.protocols.iter().map(|p| p.name()).collect();
    writeln!(
        report,
        "| target | budget | {} | holds |",
        names.join(" | ")
    )?;
    writeln!(report, "|---|---|{}---|", "---|".repeat(names.len()))?;
    let row = |report: &mut String,
               target: String,
               budget: &str,
               cell: &dyn Fn(&Figures) -> &str,
               verdict: &str|
     -> std::fmt::Result {
        let cells: Vec<&str> = figures.iter().map(cell).collect();
        writeln!(
            report,
            "| {target} | {budget} | {} | {verdict} |",
            cells.join(" | ")
        )
    };
    row(
        &mut report,
        format!(
            "1. {} idle connections: API resident memory per connection",
            knobs.idle
        ),
        "< 40 KiB",
        &|f| &f.memory,
        holds(&figures, 0),
    )?;
    row(
        &mut report,
        format!(
            "2. a reply fanned out to {audience} connections of one workspace, 20 times (POST to delivery)"
        ),
        "p99 < 100 ms",
        &|f| &f.fanout,
        holds(&figures, 1),
    )?;
    row(
        &mut report,
        format!(
            "3. SendMessage round trip at {}/s with {} connections open, after a {WARM_UP_SECONDS} s warm-up",
            knobs.rate, knobs.open
        ),
        "p99 < 20 ms, 0 errors",
        &|f| &f.round_trip,
        holds(&figures, 2),
    )?;
    row(
        &mut report,
        "3. ... the same calls on the wire: from the call's frame handed to the socket to the completion's frame read".to_owned(),
        "",
        &|f| &f.on_wire,
        "",
    )?;
    row(
        &mut report,
        format!("3. ... its warm-up: the first {WARM_UP_SECONDS} s of calls (not the measure)"),
        "",
        &|f| &f.warm_up,
        "",
    )?;

    let machine = format!(
        "hub benchmark: {} cores, load average at the end {}, {total} agents, {:.0} s in all; the second protocol's memory is measured after the first's connections closed (the allocator keeps what they freed)",
        cores(),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split(' ')
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
        started_all.elapsed().as_secs_f64()
    );
    let text = if probes.is_empty() {
        format!("{machine}\n{report}")
    } else {
        format!("{machine}\n{report}\nProbes (HUB_BENCH_PROBE=1):\n{probes}")
    };
    std::fs::write(out.join("results.md"), &text)?;
    println!("\n{text}\nreports in {}", out.display());
    Ok(())
}

/// The sum of a metric's series on the server's `/metrics`.
async fn scrape(client: &reqwest::Client, metrics: &str, name: &str) -> anyhow::Result<f64> {
    let text = client.get(metrics).send().await?.text().await?;
    Ok(text
        .lines()
        .filter(|l| l.starts_with(name))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum())
}
