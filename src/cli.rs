//! The `supportdesk` command line: one binary for the API and the operator's commands.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::config::Settings;
use crate::startup::{Application, shutdown_signal};
use crate::{migrate, telemetry};

#[derive(Debug, Parser)]
#[command(
    name = "supportdesk",
    version,
    about = "Support Desk: multi-tenant customer support"
)]
pub struct Cli {
    /// A TOML file of settings, read before the environment (which wins).
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the HTTP API.
    Serve {
        /// Address to listen on.
        #[arg(long, default_value = "0.0.0.0:5000", value_name = "HOST:PORT")]
        bind: String,
    },
    /// Apply pending control-plane migrations (safe to run repeatedly and concurrently).
    Migrate {
        /// Print a JSON report instead of text.
        #[arg(long)]
        json: bool,
    },
}

pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let settings = Settings::load(cli.config.as_deref())?;
    telemetry::init_logging(settings.environment);
    match cli.command {
        Command::Serve { bind } => {
            let app = Application::build(settings, &bind).await?;
            tracing::info!(address = %app.local_addr()?, "listening");
            app.run_until(shutdown_signal()).await?;
            tracing::info!("stopped");
        }
        Command::Migrate { json } => {
            let report = migrate::control_plane(&settings.database).await?;
            if json {
                println!("{}", serde_json::to_string(&report)?);
            } else if report.applied.is_empty() {
                println!("control plane: up to date");
            } else {
                for applied in &report.applied {
                    println!("control plane: applied {applied}");
                }
            }
        }
    }
    Ok(())
}
