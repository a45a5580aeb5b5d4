//! `supportdesk-worker`: background work (email delivery, the outbox relay) and a small
//! health/metrics server for Kubernetes probes on `WORKER_HEALTH_PORT` (default 5001).

mod health;
mod settings;

use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;
use supportdesk::config::Settings;
use supportdesk::startup::{connect_redis, shutdown_signal};
use supportdesk::{db, telemetry};

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
    let settings = Settings::load(cli.config.as_deref())?;
    let worker = settings::WorkerSettings::from_env()?;
    telemetry::init_logging(settings.environment);

    let probes = health::Probes {
        db: db::pool(&settings.database, 4),
        redis: connect_redis(&settings)?,
    };
    let listener = tokio::net::TcpListener::bind(("0.0.0.0", worker.health_port))
        .await
        .with_context(|| format!("binding the health port {}", worker.health_port))?;
    tracing::info!(address = %listener.local_addr()?, "worker health endpoint listening");
    supportdesk::startup::launch(listener, health::router(probes), shutdown_signal()).await?;
    tracing::info!("worker stopped");
    Ok(())
}
