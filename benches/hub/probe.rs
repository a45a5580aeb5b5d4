//! What the machine did while the round trips were measured, sampled by OS threads of their
//! own (outside the load generator's runtime) every 10 ms:
//!
//! - the oversleep of a 1 ms sleep: how long a thread that wakes waits for a core;
//! - a `SELECT 1` and a one-row `INSERT` commit (`synchronous_commit` as the server has it) on a
//!   connection of its own to the benchmark's database: PostgreSQL's answer time and its
//!   commit (WAL flush) time on this machine;
//! - a Redis `PING`;
//! - the CPU time of the API, the load generator, PostgreSQL and everything else, from
//!   `/proc`.
//!
//! A stall of the round trips that the probes share points at the resource they share; one
//! they do not see is in the API or the generator themselves.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use sqlx::Connection;

const EVERY: Duration = Duration::from_millis(10);
/// A probe stops by itself after this long, whatever happens to the run.
const AT_MOST: Duration = Duration::from_secs(600);

/// One probe's samples: (seconds since the start, latency).
type Samples = Vec<(f64, Duration)>;

pub struct Probe {
    stop: Arc<AtomicBool>,
    started: Instant,
    threads: Vec<(&'static str, JoinHandle<Samples>)>,
    wal: JoinHandle<Vec<(f64, i64)>>,
    cpu_before: CpuTimes,
    server: u32,
}

/// Clock ticks of CPU time: the API, this process, PostgreSQL's processes, the whole machine
/// (all of /proc/stat's busy time), and the machine's total (busy and idle).
#[derive(Default, Clone, Copy)]
struct CpuTimes {
    api: u64,
    generator: u64,
    postgres: u64,
    busy: u64,
    total: u64,
    /// Microseconds during which some task waited for a core, and for I/O (/proc/pressure).
    cpu_pressure: u64,
    io_pressure: u64,
    /// Sectors the machine's disks wrote.
    written: u64,
}

fn pressure(resource: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/pressure/{resource}"))
        .ok()
        .and_then(|text| {
            let some = text.lines().find(|l| l.starts_with("some"))?;
            some.rsplit_once("total=")?.1.trim().parse().ok()
        })
        .unwrap_or(0)
}

/// Sectors written to whole disks (not their partitions): vd*, sd*, nvme*n*.
fn sectors_written() -> u64 {
    std::fs::read_to_string("/proc/diskstats")
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let name = *fields.get(2)?;
            let whole = (name.starts_with("vd") || name.starts_with("sd"))
                && !name.ends_with(|c: char| c.is_ascii_digit())
                || name.starts_with("nvme") && !name.contains('p');
            if whole {
                fields.get(9)?.parse::<u64>().ok()
            } else {
                None
            }
        })
        .sum()
}

fn ticks_of(pid: &str) -> Option<(String, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (head, rest) = stat.rsplit_once(')')?;
    let name = head.split_once('(')?.1.to_owned();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the name.
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some((name, ticks))
}

fn cpu_times(server: u32) -> CpuTimes {
    let mut times = CpuTimes::default();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let pid = entry.file_name().to_string_lossy().into_owned();
            if !pid.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            let Some((name, ticks)) = ticks_of(&pid) else {
                continue;
            };
            if pid == server.to_string() {
                times.api = ticks;
            } else if pid == std::process::id().to_string() {
                times.generator = ticks;
            } else if name.starts_with("postgres") {
                times.postgres += ticks;
            }
        }
    }
    times.cpu_pressure = pressure("cpu");
    times.io_pressure = pressure("io");
    times.written = sectors_written();
    if let Some(line) = std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|s| s.lines().next().map(str::to_owned))
    {
        let values: Vec<u64> = line
            .split_whitespace()
            .skip(1)
            .filter_map(|v| v.parse().ok())
            .collect();
        // user nice system idle iowait irq softirq steal
        times.total = values.iter().take(8).sum();
        times.busy =
            times.total - values.get(3).copied().unwrap_or(0) - values.get(4).copied().unwrap_or(0);
    }
    times
}

fn sampler(
    stop: Arc<AtomicBool>,
    started: Instant,
    mut sample: impl FnMut() -> Option<Duration>,
) -> Samples {
    let mut samples = Vec::new();
    while !stop.load(Ordering::Relaxed) && started.elapsed() < AT_MOST {
        if let Some(took) = sample() {
            samples.push((started.elapsed().as_secs_f64(), took));
        }
        std::thread::sleep(EVERY);
    }
    samples
}

/// A thread with a runtime of its own that times `sql` on a connection of its own.
fn postgres_sampler(
    stop: Arc<AtomicBool>,
    started: Instant,
    url: String,
    sql: &'static str,
) -> JoinHandle<Samples> {
    on_a_thread_of_its_own(async move {
        let Ok(mut conn) = sqlx::PgConnection::connect(&url).await else {
            return Vec::new();
        };
        // Commits wait for the WAL flush, whatever the database's default.
        let _ = sqlx::query("SET synchronous_commit = on")
            .execute(&mut conn)
            .await;
        let mut samples = Vec::new();
        while !stop.load(Ordering::Relaxed) && started.elapsed() < AT_MOST {
            let begun = Instant::now();
            if sqlx::query(sql).execute(&mut conn).await.is_ok() {
                samples.push((started.elapsed().as_secs_f64(), begun.elapsed()));
            }
            tokio::time::sleep(EVERY).await;
        }
        samples
    })
}

/// A thread with a runtime of its own that reads the cluster's WAL position (every database's
/// writes, the benchmark's and anyone else's on the same server) every 100 ms.
fn wal_sampler(
    stop: Arc<AtomicBool>,
    started: Instant,
    url: String,
) -> JoinHandle<Vec<(f64, i64)>> {
    on_a_thread_of_its_own(async move {
        let Ok(mut conn) = sqlx::PgConnection::connect(&url).await else {
            return Vec::new();
        };
        let mut samples = Vec::new();
        while !stop.load(Ordering::Relaxed) && started.elapsed() < AT_MOST {
            let position: Result<i64, _> =
                sqlx::query_scalar("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint")
                    .fetch_one(&mut conn)
                    .await;
            if let Ok(position) = position {
                samples.push((started.elapsed().as_secs_f64(), position));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        samples
    })
}

/// A thread with a runtime of its own that times a Redis `PING`.
fn redis_sampler(stop: Arc<AtomicBool>, started: Instant, url: String) -> JoinHandle<Samples> {
    on_a_thread_of_its_own(async move {
        let Ok(client) = redis::Client::open(url) else {
            return Vec::new();
        };
        let Ok(mut conn) = client.get_multiplexed_async_connection().await else {
            return Vec::new();
        };
        let mut samples = Vec::new();
        while !stop.load(Ordering::Relaxed) && started.elapsed() < AT_MOST {
            let begun = Instant::now();
            if redis::cmd("PING")
                .query_async::<String>(&mut conn)
                .await
                .is_ok()
            {
                samples.push((started.elapsed().as_secs_f64(), begun.elapsed()));
            }
            tokio::time::sleep(EVERY).await;
        }
        samples
    })
}

impl Probe {
    pub async fn start(database_url: &str, redis_url: &str, server: u32) -> anyhow::Result<Self> {
        let mut setup = sqlx::PgConnection::connect(database_url).await?;
        sqlx::query("CREATE TABLE IF NOT EXISTS public.bench_probe (at timestamptz NOT NULL)")
            .execute(&mut setup)
            .await?;
        setup.close().await?;
        let stop = Arc::new(AtomicBool::new(false));
        let started = Instant::now();
        let mut threads = Vec::new();
        let flag = stop.clone();
        threads.push((
            "a thread's wake-up (1 ms sleep's oversleep)",
            std::thread::spawn(move || {
                sampler(flag, started, || {
                    let begun = Instant::now();
                    std::thread::sleep(Duration::from_millis(1));
                    Some(begun.elapsed().saturating_sub(Duration::from_millis(1)))
                })
            }),
        ));
        threads.push((
            "PostgreSQL SELECT 1",
            postgres_sampler(stop.clone(), started, database_url.to_owned(), "SELECT 1"),
        ));
        threads.push((
            "PostgreSQL one-row INSERT, committed",
            postgres_sampler(
                stop.clone(),
                started,
                database_url.to_owned(),
                "INSERT INTO public.bench_probe VALUES (now())",
            ),
        ));
        threads.push((
            "Redis PING",
            redis_sampler(stop.clone(), started, redis_url.to_owned()),
        ));
        let wal = wal_sampler(stop.clone(), started, database_url.to_owned());
        Ok(Self {
            stop,
            started,
            threads,
            wal,
            cpu_before: cpu_times(server),
            server,
        })
    }

    /// Stops the probes; what they saw, as lines of a report, and the seconds (since the
    /// probe started) at which each saw its samples over `slow`.
    pub fn stop(self, slow: Duration) -> String {
        self.stop.store(true, Ordering::Relaxed);
        let cpu = cpu_times(self.server);
        let seconds = self.started.elapsed().as_secs_f64();
        let mut out = String::new();
        for (name, thread) in self.threads {
            let mut samples = thread.join().unwrap_or_default();
            let slow_at: Vec<String> = samples
                .iter()
                .filter(|(_, took)| *took > slow)
                .map(|(at, took)| format!("{at:.1}s:{:.0}ms", took.as_secs_f64() * 1000.0))
                .collect();
            samples.sort_by_key(|(_, took)| *took);
            let took: Vec<Duration> = samples.iter().map(|(_, took)| *took).collect();
            out.push_str(&format!(
                "  {name}: {} samples, p50 {} / p99 {} / max {}{}\n",
                took.len(),
                super::ms(super::percentile(&took, 0.5)),
                super::ms(super::percentile(&took, 0.99)),
                super::ms(took.last().copied().unwrap_or_default()),
                if slow_at.is_empty() {
                    String::new()
                } else {
                    format!("; over {} at {}", super::ms(slow), slow_at.join(" "))
                }
            ));
        }
        let wal = self.wal.join().unwrap_or_default();
        if let (Some(first), Some(last)) = (wal.first(), wal.last()) {
            // The busiest second: the most WAL between samples 1 s apart.
            let busiest = wal
                .iter()
                .zip(wal.iter().skip(10))
                .map(|(a, b)| (a.0, b.1 - a.1))
                .max_by_key(|(_, bytes)| *bytes)
                .unwrap_or((0.0, 0));
            let mib = |bytes: i64| bytes as f64 / 1024.0 / 1024.0;
            out.push_str(&format!(
                "  PostgreSQL WAL, all databases of the server: {:.1} MiB/s; busiest second {:.1} MiB from {:.1}s\n",
                mib(last.1 - first.1) / (last.0 - first.0).max(0.1),
                mib(busiest.1),
                busiest.0,
            ));
        }
        let before = self.cpu_before;
        let cores_of = |ticks: u64| ticks as f64 / 100.0 / seconds;
        let total = cpu.total.saturating_sub(before.total).max(1) as f64;
        out.push_str(&format!(
            "  CPU, in cores busy over {seconds:.0} s: API {:.2}, load generator {:.2}, PostgreSQL {:.2}, the machine in all {:.2} of {:.0}\n",
            cores_of(cpu.api.saturating_sub(before.api)),
            cores_of(cpu.generator.saturating_sub(before.generator)),
            cores_of(cpu.postgres.saturating_sub(before.postgres)),
            cpu.busy.saturating_sub(before.busy) as f64 / total * super::cores() as f64,
            super::cores() as f64,
        ));
        out.push_str(&format!(
            "  pressure (share of the time some task waited): for a core {:.0} %, for I/O {:.0} %; the disks wrote {:.1} MiB/s\n",
            cpu.cpu_pressure.saturating_sub(before.cpu_pressure) as f64 / 1e4 / seconds,
            cpu.io_pressure.saturating_sub(before.io_pressure) as f64 / 1e4 / seconds,
            cpu.written.saturating_sub(before.written) as f64 * 512.0 / 1024.0 / 1024.0 / seconds,
        ));
        out
    }
}

/// Runs `work` on an OS thread with a runtime of its own, so what it measures is not
/// delayed by the load generator's runtime.
fn on_a_thread_of_its_own<T: Send + 'static>(
    work: impl std::future::Future<Output = T> + Send + 'static,
) -> JoinHandle<T> {
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
            .block_on(work)
    })
}
