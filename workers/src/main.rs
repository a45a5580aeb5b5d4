//! `supportdesk-worker`: delivers emails from the outbox through the job queues, with
//! `/healthz` and `/metrics` on `WORKER_HEALTH_PORT` (default 5001) for Kubernetes probes.

use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;
use supportdesk_core::config::{Component, Settings};
use supportdesk_core::shutdown::shutdown_signal;
use supportdesk_core::telemetry;

#[derive(Debug, Parser)]
#[command(
    name = "supportdesk-worker",
    version,
    about = "Support Desk background worker"
)]
struct Cli {
    /// A TOML file of settings, read before the environment (which wins).
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run(Cli::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    // The worker's own settings: no `JWT_SECRET` (it never signs a token), in Production no
    // silent fallback to `.eml` files (they would hold live sign-in links), and its section.
    let settings = Settings::load_for(Component::Worker, cli.config.as_deref(), None)?;
    let health_port = settings
        .worker
        .as_ref()
        .context("the worker's settings")?
        .health_port;
    telemetry::init_logging(settings.environment);
    telemetry::spawn_metrics_upkeep();
    let listener = tokio::net::TcpListener::bind(("0.0.0.0", health_port))
        .await
        .with_context(|| format!("binding the health port {health_port}"))?;
    tracing::info!(address = %listener.local_addr()?, "health endpoint listening");
    supportdesk_worker::run(settings, listener, shutdown_signal()).await
}
