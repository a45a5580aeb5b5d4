//! Attachments through the API, each figure beside the store's own in the same run:
//!
//! 1. Uploads: `ATTACH_BENCH_FILES` (40) files of `ATTACH_BENCH_FILE_MB` (5) MB through
//!    `POST /api/conversations/{id}/attachments`, from 1 client and then from
//!    `ATTACH_BENCH_CLIENTS` (4) at once, in MB/s; the baseline is `object_store`'s `put` of
//!    the same payloads straight to the same store (opened as the API opens it), at the same
//!    concurrency. Goal: the API keeps at least 0.8 of the store's throughput. A third pass
//!    for the analysis: the same `put` after the payload was written to an unnamed temporary
//!    file and read back (the disk work of the API's spool, without HTTP).
//! 2. Downloads: those files through their signed `/files/...` links (whole body read),
//!    against the store's `get` of the same objects (whole body read), likewise.
//! 3. Memory: the API's resident set (`VmRSS` of `/proc/{pid}/status`, sampled every
//!    `ATTACH_BENCH_SAMPLE_MS` (5) ms) at idle and its peak during `ATTACH_BENCH_BIG` (20)
//!    uploads of 25 MiB (an agent's largest file) at once, the request bodies streamed in
//!    64 KiB chunks. Goal: the peak under 100 MiB above idle.
//!
//! Each measure is taken `ATTACH_BENCH_ROUNDS` (5) times, the API and the baselines taking
//! turns going first; a figure is all the rounds' bytes over their time (the goal is judged on
//! it), beside the median and range of the rounds' own ratios. The memory phase runs
//! first, on a fresh API process (so no earlier phase's allocations hide its peak). Objects
//! are deleted from the store (untimed) once a pass no longer needs them, so a run holds
//! a few hundred MB on disk at a time.
//!
//! On a local directory both sides sync each file before it counts (the store `storage::open`
//! makes does, as the API's), so its figures are those of durable writes, not of the page
//! cache.
//!
//! Run for the local directory store and, when an `s3s-fs` binary is found (`S3S_FS`, or
//! where `.ci/services.sh`'s `ensure_s3s_fs` installs it), for an S3 store served by it on
//! loopback (SigV4-signed requests, a temporary directory as its root); without it the S3
//! part is skipped with a message. `ATTACH_BENCH_STORES=local|s3|local,s3` picks.
//!
//! `cargo bench --bench attachments` (or `BENCH_ONLY=attachments bash .ci/bench`).

mod common;

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use common::{bench_env, jwt_keys, knob, post_json, workspace_via_api};
use futures::StreamExt;
use object_store::ObjectStoreExt;
use object_store::path::Path as ObjectPath;
use rand::RngExt;
use reqwest::multipart::{Form, Part};
use serde_json::json;
use supportdesk::attachments::record::Attachment;
use supportdesk_core::config::{Settings, StorageLocation};
use supportdesk_core::storage::{self, Store, Variant, attachment_path};
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::free_port;
use supportdesk_test_support::process::KillOnDrop;
use uuid::Uuid;

/// The chunks a streamed request body is sent in.
const CHUNK: usize = 64 * 1024;
/// An agent's largest file.
const BIG: usize = 25 * 1024 * 1024;
const S3_BUCKET: &str = "bench-files";
const S3_ACCESS_KEY: &str = "supportdesk-bench";
const S3_SECRET_KEY: &str = "supportdesk-bench-secret-0123456789";

fn main() -> anyhow::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run())
}

/// Payloads that sniff as plain data (no program's magic bytes): a fixed header, then random
/// bytes. Leaked, so request bodies and store puts borrow them without copying.
fn payload(size: usize) -> &'static [u8] {
    let mut bytes = vec![0u8; size];
    rand::rng().fill(&mut bytes[..]);
    let header = b"SUPPORTDESK-BENCH-DATA\n";
    let n = header.len().min(size);
    bytes[..n].copy_from_slice(&header[..n]);
    Box::leak(bytes.into_boxed_slice())
}

/// The API's resident set in KiB.
fn vm_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Samples a process's resident set on a thread of its own until stopped.
struct RssSampler {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Vec<u64>>,
}

impl RssSampler {
    fn start(pid: u32, every: Duration) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut samples = Vec::new();
            while !flag.load(Ordering::Relaxed) {
                if let Some(kib) = vm_rss_kib(pid) {
                    samples.push(kib);
                }
                std::thread::sleep(every);
            }
            samples
        });
        Self { stop, thread }
    }

    /// The samples taken, in KiB.
    fn finish(self) -> anyhow::Result<Vec<u64>> {
        self.stop.store(true, Ordering::Relaxed);
        let samples = self
            .thread
            .join()
            .map_err(|_| anyhow::anyhow!("the sampler thread panicked"))?;
        ensure!(!samples.is_empty(), "no VmRSS sample was read");
        Ok(samples)
    }
}

/// The median resident set over `over`, in KiB.
async fn idle_rss(pid: u32, every: Duration, over: Duration) -> anyhow::Result<u64> {
    let sampler = RssSampler::start(pid, every);
    tokio::time::sleep(over).await;
    let mut samples = sampler.finish()?;
    samples.sort_unstable();
    Ok(samples[samples.len() / 2])
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// An S3 store served by `s3s-fs` on loopback, for the run.
struct S3sFs {
    _process: KillOnDrop,
    root: PathBuf,
    endpoint: String,
}

impl S3sFs {
    /// The binary, or why there is none.
    fn binary() -> Result<PathBuf, String> {
        let path = match std::env::var("S3S_FS") {
            Ok(p) if !p.is_empty() => PathBuf::from(p),
            _ => {
                let home = std::env::var("HOME").unwrap_or_default();
                PathBuf::from(home).join(".cache/supportdesk-tools/s3s-fs-0.14.1/bin/s3s-fs")
            }
        };
        if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "no s3s-fs binary at {} (set S3S_FS, or run `ensure_s3s_fs` from .ci/services.sh)",
                path.display()
            ))
        }
    }

    async fn start(binary: &std::path::Path) -> anyhow::Result<Self> {
        let root =
            std::env::temp_dir().join(format!("supportdesk-bench-s3-{}", Uuid::new_v4().simple()));
        // s3s-fs keeps a bucket as a directory under its root.
        std::fs::create_dir_all(root.join(S3_BUCKET))?;
        let port = free_port();
        let process = KillOnDrop(
            Command::new(binary)
                .args(["--host", "127.0.0.1", "--port", &port.to_string()])
                .args(["--access-key", S3_ACCESS_KEY, "--secret-key", S3_SECRET_KEY])
                .arg(&root)
                .env("RUST_LOG", "warn")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .with_context(|| format!("starting {}", binary.display()))?,
        );
        let mut up = false;
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                up = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ensure!(up, "s3s-fs did not listen on port {port}");
        Ok(Self {
            _process: process,
            root,
            endpoint: format!("http://127.0.0.1:{port}"),
        })
    }

    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("STORAGE_URL", format!("s3://{S3_BUCKET}")),
            ("S3_ENDPOINT", self.endpoint.clone()),
            ("S3_REGION", "us-east-1".to_owned()),
            ("S3_ALLOW_HTTP", "true".to_owned()),
            ("AWS_ACCESS_KEY_ID", S3_ACCESS_KEY.to_owned()),
            ("AWS_SECRET_ACCESS_KEY", S3_SECRET_KEY.to_owned()),
        ]
    }
}

impl Drop for S3sFs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The release API as a child process, with its store opened beside it.
struct Api {
    process: KillOnDrop,
    base: String,
    store: Store,
    directory: Option<PathBuf>,
}

impl Api {
    fn pid(&self) -> u32 {
        self.process.id()
    }
}

impl Drop for Api {
    fn drop(&mut self) {
        if let Some(dir) = &self.directory {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

async fn start_api(client: &reqwest::Client, env: &HashMap<String, String>) -> anyhow::Result<Api> {
    let settings = Settings::load_from(None, Some(env.clone()))?;
    let store = storage::open(&settings.storage)?;
    let directory = match &settings.storage.location {
        StorageLocation::Directory(dir) => Some(dir.clone()),
        StorageLocation::S3(_) => None,
    };
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let process = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_supportdesk"))
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .env_clear()
            .envs(env)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?,
    );
    for _ in 0..100 {
        if client
            .get(format!("{base}/healthz"))
            .send()
            .await
            .is_ok_and(|r| r.status() == 200)
        {
            return Ok(Api {
                process,
                base,
                store,
                directory,
            });
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!("the API did not become healthy")
}

/// What every transfer needs.
struct Target {
    client: reqwest::Client,
    base: String,
    store: Store,
    token: String,
    workspace: Uuid,
    conversation: Uuid,
}

/// An upload through the API, its body streamed in [`CHUNK`]s.
async fn upload(target: &Target, body: &'static [u8], name: &str) -> anyhow::Result<Attachment> {
    let stream = futures::stream::iter(body.chunks(CHUNK).map(Ok::<_, std::io::Error>));
    let part = Part::stream_with_length(reqwest::Body::wrap_stream(stream), body.len() as u64)
        .file_name(name.to_owned())
        .mime_str("application/octet-stream")?;
    let url = format!(
        "{}/api/conversations/{}/attachments",
        target.base, target.conversation
    );
    let response = target
        .client
        .post(&url)
        .bearer_auth(&target.token)
        .multipart(Form::new().part("file", part))
        .send()
        .await?;
    let status = response.status();
    let text = response.text().await?;
    ensure!(status == 201, "POST {url}: {status} {text}");
    let attachment: Attachment = serde_json::from_str(&text)?;
    ensure!(attachment.size == body.len() as i64, "stored size differs");
    Ok(attachment)
}

/// A download through a signed link; the bytes read.
async fn download(target: &Target, link: &str) -> anyhow::Result<u64> {
    let response = target
        .client
        .get(format!("{}{link}", target.base))
        .send()
        .await?;
    ensure!(
        response.status() == 200,
        "GET {link}: {}",
        response.status()
    );
    let mut body = response.bytes_stream();
    let mut read = 0u64;
    while let Some(chunk) = body.next().await {
        read += chunk?.len() as u64;
    }
    Ok(read)
}

/// The store's own get of an object; the bytes read.
async fn raw_get(store: &Store, path: &ObjectPath) -> anyhow::Result<u64> {
    let mut body = store.get(path).await?.into_stream();
    let mut read = 0u64;
    while let Some(chunk) = body.next().await {
        read += chunk?.len() as u64;
    }
    Ok(read)
}

/// Deletes objects a pass no longer needs (untimed).
async fn forget(store: &Store, paths: impl IntoIterator<Item = ObjectPath>) -> anyhow::Result<()> {
    for path in paths {
        store.delete(&path).await?;
    }
    Ok(())
}

fn raw_path(round: usize, clients: usize, job: usize) -> ObjectPath {
    ObjectPath::from(format!("bench/raw/{round}/{clients}/{job}"))
}

fn stored_paths(target: &Target, files: &[Attachment]) -> Vec<ObjectPath> {
    files
        .iter()
        .map(|f| attachment_path(target.workspace, f.id, Variant::Original))
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    ApiUpload,
    RawPut,
    SpoolPut,
    ApiDownload,
    RawGet,
}

/// One pass: `jobs` transfers by `clients` clients taking the next job as they finish one.
/// The time, the bytes moved and the uploads' attachments (in job order).
async fn pass(
    target: &Arc<Target>,
    op: Op,
    jobs: usize,
    clients: usize,
    payloads: &Arc<Vec<&'static [u8]>>,
    files: &Arc<Vec<Attachment>>,
    round: usize,
) -> anyhow::Result<(Duration, u64, Vec<Attachment>)> {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (target, next, payloads, files) = (
            target.clone(),
            next.clone(),
            payloads.clone(),
            files.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let mut moved = 0u64;
            let mut uploaded = Vec::new();
            loop {
                let job = next.fetch_add(1, Ordering::Relaxed);
                if job >= jobs {
                    break;
                }
                let body = payloads[job % payloads.len()];
                match op {
                    Op::ApiUpload => {
                        let attachment = upload(&target, body, &format!("file-{job}.dat")).await?;
                        moved += body.len() as u64;
                        uploaded.push((job, attachment));
                    }
                    Op::RawPut => {
                        let path = raw_path(round, clients, job);
                        target.store.put(&path, body.into()).await?;
                        moved += body.len() as u64;
                    }
                    Op::SpoolPut => {
                        let path = raw_path(round, clients, job);
                        let spooled = tokio::task::spawn_blocking(move || {
                            let mut file = tempfile::tempfile()?;
                            file.write_all(body)?;
                            file.seek(SeekFrom::Start(0))?;
                            let mut back = Vec::with_capacity(body.len());
                            file.read_to_end(&mut back)?;
                            std::io::Result::Ok(back)
                        })
                        .await??;
                        target.store.put(&path, spooled.into()).await?;
                        moved += body.len() as u64;
                    }
                    Op::ApiDownload => {
                        let file = &files[job % files.len()];
                        let link = file.url.as_deref().context("an attachment without url")?;
                        let read = download(&target, link).await?;
                        ensure!(
                            read == file.size as u64,
                            "downloaded {read} of {}",
                            file.size
                        );
                        moved += read;
                    }
                    Op::RawGet => {
                        let file = &files[job % files.len()];
                        let path = attachment_path(target.workspace, file.id, Variant::Original);
                        let read = raw_get(&target.store, &path).await?;
                        ensure!(read == file.size as u64, "read {read} of {}", file.size);
                        moved += read;
                    }
                }
            }
            anyhow::Ok((moved, uploaded))
        }));
    }
    let mut moved = 0u64;
    let mut uploaded = Vec::new();
    for task in tasks {
        let (m, u) = task.await??;
        moved += m;
        uploaded.extend(u);
    }
    let elapsed = started.elapsed();
    uploaded.sort_by_key(|(job, _)| *job);
    Ok((
        elapsed,
        moved,
        uploaded.into_iter().map(|(_, a)| a).collect(),
    ))
}

/// Throughput of the API and of the store over the rounds, and each round's ratio.
struct Compared {
    api_mb_s: f64,
    raw_mb_s: f64,
    /// Uploads: the store's put after the API's disk work alone (the payload written to an
    /// unnamed temporary file and read back), no HTTP.
    spooled_mb_s: Option<f64>,
    ratios: Vec<f64>,
}

impl Compared {
    fn ratio(&self) -> f64 {
        self.api_mb_s / self.raw_mb_s
    }

    /// The rounds' ratios: median and range.
    fn spread(&self) -> String {
        let mut sorted = self.ratios.clone();
        sorted.sort_by(f64::total_cmp);
        let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
        format!("median {:.2}, {min:.2}-{max:.2}", sorted[sorted.len() / 2])
    }
}

fn mb_s(bytes: u64, time: Duration) -> f64 {
    bytes as f64 / 1e6 / time.as_secs_f64()
}

/// The upload and download comparisons of one store at `clients` clients, and the files of
/// the last upload pass.
async fn compare(
    step: &impl Fn(&str),
    target: &Arc<Target>,
    payloads: &Arc<Vec<&'static [u8]>>,
    files: usize,
    clients: usize,
    rounds: usize,
) -> anyhow::Result<(Compared, Compared)> {
    let none = Arc::new(Vec::new());
    let (mut api, mut raw) = ((Duration::ZERO, 0u64), (Duration::ZERO, 0u64));
    let mut spooled = (Duration::ZERO, 0u64);
    let mut ratios = Vec::new();
    let mut stored = Vec::new();
    for round in 0..rounds {
        step(&format!(
            "  uploads, {clients} client(s), round {}: {files} files",
            round + 1
        ));
        // Each goes first in turn.
        let mut order = [Op::RawPut, Op::SpoolPut, Op::ApiUpload];
        order.rotate_left(round % 3);
        let (mut a, mut r) = ((Duration::ZERO, 0), (Duration::ZERO, 0));
        for op in order {
            let (time, bytes, uploaded) =
                pass(target, op, files, clients, payloads, &none, round).await?;
            match op {
                Op::ApiUpload => {
                    a = (time, bytes);
                    forget(&target.store, stored_paths(target, &stored)).await?;
                    stored = uploaded;
                }
                Op::SpoolPut => spooled = (spooled.0 + time, spooled.1 + bytes),
                _ => r = (time, bytes),
            }
            if op != Op::ApiUpload {
                let paths = (0..files).map(|job| raw_path(round, clients, job));
                forget(&target.store, paths).await?;
            }
        }
        ratios.push(mb_s(a.1, a.0) / mb_s(r.1, r.0));
        api = (api.0 + a.0, api.1 + a.1);
        raw = (raw.0 + r.0, raw.1 + r.1);
    }
    let uploads = Compared {
        api_mb_s: mb_s(api.1, api.0),
        raw_mb_s: mb_s(raw.1, raw.0),
        spooled_mb_s: Some(mb_s(spooled.1, spooled.0)),
        ratios,
    };

    let stored = Arc::new(stored);
    let (mut api, mut raw) = ((Duration::ZERO, 0u64), (Duration::ZERO, 0u64));
    let mut ratios = Vec::new();
    for round in 0..rounds {
        step(&format!(
            "  downloads, {clients} client(s), round {}: {files} files",
            round + 1
        ));
        let mut order = [Op::RawGet, Op::ApiDownload];
        if round % 2 == 1 {
            order.reverse();
        }
        let (mut a, mut r) = ((Duration::ZERO, 0), (Duration::ZERO, 0));
        for op in order {
            let (time, bytes, _) =
                pass(target, op, files, clients, payloads, &stored, round).await?;
            if op == Op::ApiDownload {
                a = (time, bytes);
            } else {
                r = (time, bytes);
            }
        }
        ratios.push(mb_s(a.1, a.0) / mb_s(r.1, r.0));
        api = (api.0 + a.0, api.1 + a.1);
        raw = (raw.0 + r.0, raw.1 + r.1);
    }
    let downloads = Compared {
        api_mb_s: mb_s(api.1, api.0),
        raw_mb_s: mb_s(raw.1, raw.0),
        spooled_mb_s: None,
        ratios,
    };
    forget(&target.store, stored_paths(target, &stored)).await?;
    Ok((uploads, downloads))
}

/// The API's memory around `count` concurrent uploads of 25 MiB, in KiB: idle, peak, and a
/// second after.
async fn memory(
    target: &Arc<Target>,
    pid: u32,
    count: usize,
    every: Duration,
) -> anyhow::Result<(u64, u64, u64, Duration)> {
    let idle = idle_rss(pid, every, Duration::from_secs(1)).await?;
    let big = payload(BIG);
    let sampler = RssSampler::start(pid, every);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..count {
        let target = target.clone();
        tasks.push(tokio::spawn(async move {
            upload(&target, big, &format!("big-{i}.dat")).await
        }));
    }
    let mut stored = Vec::new();
    for task in tasks {
        stored.push(task.await??);
    }
    let elapsed = started.elapsed();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let peak = sampler.finish()?.into_iter().max().unwrap_or(0);
    let after = idle_rss(pid, every, Duration::from_secs(1)).await?;
    forget(&target.store, stored_paths(target, &stored)).await?;
    Ok((idle, peak, after, elapsed))
}

async fn run() -> anyhow::Result<()> {
    let files = knob("ATTACH_BENCH_FILES", 40).max(1);
    let file_mb = knob("ATTACH_BENCH_FILE_MB", 5).max(1);
    let clients = knob("ATTACH_BENCH_CLIENTS", 4).max(1);
    let big = knob("ATTACH_BENCH_BIG", 20).max(1);
    let rounds = knob("ATTACH_BENCH_ROUNDS", 5).max(1);
    let every = Duration::from_millis(knob("ATTACH_BENCH_SAMPLE_MS", 5).max(1) as u64);
    let stores = std::env::var("ATTACH_BENCH_STORES").unwrap_or_else(|_| "local,s3".to_owned());
    let started_all = Instant::now();
    let step = |what: &str| eprintln!("[{:>6.1} s] {what}", started_all.elapsed().as_secs_f64());
    let client = reqwest::Client::builder().no_proxy().build()?;

    step("creating the benchmark database and migrating it (release build)");
    let database = TestDatabase::empty().await;
    let base_env = bench_env(
        &database.url,
        &[
            // Room for every run's files; the quota is still checked on every upload.
            ("STORAGE_WORKSPACE_QUOTA_BYTES", "1000000000000"),
        ],
    );
    let settings = Settings::load_from(None, Some(base_env.clone()))?;
    let migrate = Command::new(env!("CARGO_BIN_EXE_supportdesk"))
        .arg("migrate")
        .env_clear()
        .envs(&base_env)
        .output()?;
    ensure!(
        migrate.status.success(),
        "supportdesk migrate failed: {}",
        String::from_utf8_lossy(&migrate.stderr)
    );
    let pool = database.pool().await;
    let jwt = jwt_keys(&settings)?;
    let owner = common::insert_users(&pool, "attachments-owner-", 1, "unused").await?;
    let owner = owner.first().context("an owner")?.0;

    let file_bytes = file_mb * 1_000_000;
    step(&format!("payloads: 4 of {file_mb} MB, one of 25 MiB"));
    let payloads: Arc<Vec<&'static [u8]>> = Arc::new((0..4).map(|_| payload(file_bytes)).collect());

    let mut workspace: Option<(Uuid, String, Uuid)> = None;
    let mut lines = Vec::new();
    let mut table = vec![
        "| store | measure | API | store alone | API / store (rounds: median, range) | goal | holds |".to_owned(),
        "|---|---|---|---|---|---|---|".to_owned(),
    ];
    for store in ["local", "s3"] {
        if !stores.split(',').any(|s| s.trim() == store) {
            continue;
        }
        let mut env = base_env.clone();
        let s3 = if store == "s3" {
            match S3sFs::binary() {
                Ok(binary) => {
                    step(&format!("starting s3s-fs ({})", binary.display()));
                    let s3 = S3sFs::start(&binary).await?;
                    for (k, v) in s3.env() {
                        env.insert(k.to_owned(), v);
                    }
                    Some(s3)
                }
                Err(why) => {
                    step(&format!("S3 store skipped: {why}"));
                    lines.push(format!("S3 store: skipped, {why}"));
                    continue;
                }
            }
        } else {
            None
        };
        let label = match &s3 {
            Some(s3) => format!("S3 (s3s-fs at {})", s3.endpoint),
            None => "local directory".to_owned(),
        };
        step(&format!("{label}: starting the API"));
        let api = start_api(&client, &env).await?;

        let (workspace_id, token, conversation) = match &workspace {
            Some(w) => w.clone(),
            None => {
                step("a workspace and a conversation through the API");
                let user_token = jwt.issue_user(owner, 0)?.token;
                let (id, token) =
                    workspace_via_api(&client, &api.base, &user_token, "Attachments").await?;
                let conversation = post_json(
                    &client,
                    format!("{}/api/conversations", api.base),
                    &token,
                    json!({"contact": {"email": "files@bench.test"}, "body": "Hello"}),
                )
                .await?;
                let conversation: Uuid = conversation["id"].as_str().context("id")?.parse()?;
                let w = (id, token, conversation);
                workspace = Some(w.clone());
                w
            }
        };
        let target = Arc::new(Target {
            client: client.clone(),
            base: api.base.clone(),
            store: api.store.clone(),
            token,
            workspace: workspace_id,
            conversation,
        });

        // A first upload and download: the pools' connections and first-use allocations are
        // part of idle.
        step(&format!("{label}: warm-up"));
        let warm = upload(&target, payloads[0], "warm-up.dat").await?;
        download(&target, warm.url.as_deref().context("url")?).await?;

        step(&format!(
            "{label}: memory, {big} uploads of 25 MiB at once (VmRSS every {} ms)",
            every.as_millis()
        ));
        let (idle, peak, after, took) = memory(&target, api.pid(), big, every).await?;
        let above = mib(peak.saturating_sub(idle));
        table.push(format!(
            "| {store} | API memory, {big} x 25 MiB uploads at once ({:.0} MB/s) | idle {:.1} MiB, peak {:.1} MiB, {:.1} MiB a second after | | peak - idle = {above:.1} MiB | < 100 MiB | {} |",
            (big * BIG) as f64 / 1e6 / took.as_secs_f64(),
            mib(idle),
            mib(peak),
            mib(after),
            if above < 100.0 { "yes" } else { "**no**" },
        ));

        for c in [1, clients] {
            step(&format!(
                "{label}: {files} files of {file_mb} MB, {c} client(s)"
            ));
            let (up, down) = compare(&step, &target, &payloads, files, c, rounds).await?;
            for (what, compared) in [("upload", up), ("download", down)] {
                table.push(format!(
                    "| {store} | {what}, {files} x {file_mb} MB, {c} client(s) | {:.0} MB/s | {:.0} MB/s | {:.2} ({}) | >= 0.8 | {} |",
                    compared.api_mb_s,
                    compared.raw_mb_s,
                    compared.ratio(),
                    compared.spread(),
                    if compared.ratio() >= 0.8 { "yes" } else { "**no**" },
                ));
                if let Some(spooled) = compared.spooled_mb_s {
                    table.push(format!(
                        "| {store} | ... against the store's put after a spool (the file written to a temporary file and read back: the API's disk work, no HTTP) | {:.0} MB/s | {:.0} MB/s | {:.2} | | |",
                        compared.api_mb_s,
                        spooled,
                        compared.api_mb_s / spooled,
                    ));
                }
            }
        }
        drop(api);
        drop(s3);
    }

    eprintln!();
    eprintln!(
        "machine: {} cores, load average {}",
        std::thread::available_parallelism().map_or(0, usize::from),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split(' ')
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    eprintln!(
        "{rounds} round(s) per measure; MB = 10^6 bytes; a figure is all rounds' bytes over their time (the goal is judged on it), in brackets the rounds' own ratios"
    );
    for line in table.iter().chain(&lines) {
        println!("{line}");
    }
    step("done");
    Ok(())
}
