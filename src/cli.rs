//! The `supportdesk` command line: one binary for the API and the operator's commands.

use std::path::PathBuf;

use anyhow::bail;
use clap::{Args, Parser, Subcommand};
use uuid::Uuid;

use crate::config::Settings;
use crate::startup::{Application, shutdown_signal};
use crate::{db, migrate, outbox, telemetry};

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
    /// Inspect and revive background work (emails).
    #[command(subcommand)]
    Jobs(JobsCommand),
}

#[derive(Debug, Subcommand)]
pub enum JobsCommand {
    /// List undelivered work: pending and dead, or with --dead only dead.
    List {
        /// Only work that was given up on.
        #[arg(long)]
        dead: bool,
        /// At most this many rows.
        #[arg(long, default_value_t = 100)]
        limit: i64,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Send dead work through delivery again, with a fresh set of attempts.
    Retry(RetryArgs),
}

#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct RetryArgs {
    /// The id of one dead job (from `jobs list --dead`).
    id: Option<Uuid>,
    /// Every dead job.
    #[arg(long)]
    all_dead: bool,
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
        Command::Jobs(command) => {
            let pool = db::pool(&settings.database, 2);
            jobs(&pool, command).await?;
        }
    }
    Ok(())
}

async fn jobs(pool: &sqlx::PgPool, command: JobsCommand) -> anyhow::Result<()> {
    match command {
        JobsCommand::List { dead, limit, json } => {
            let rows = outbox::list(pool, dead, limit).await?;
            if json {
                println!("{}", serde_json::to_string(&rows)?);
                return Ok(());
            }
            println!(
                "{:<36}  {:<18}  {:<8}  {:>8}  {:<20}  last error",
                "id", "kind", "state", "attempts", "created"
            );
            for row in rows {
                println!(
                    "{:<36}  {:<18}  {:<8}  {:>8}  {:<20}  {}",
                    row.id,
                    row.kind,
                    row.outcome.as_deref().unwrap_or("pending"),
                    row.attempts,
                    row.created_at
                        .format(&time::format_description::well_known::Rfc3339)?,
                    row.last_error.as_deref().unwrap_or("")
                );
            }
        }
        JobsCommand::Retry(RetryArgs { id, all_dead }) => {
            let revived = match (id, all_dead) {
                (Some(id), _) => {
                    if !outbox::revive(pool, id).await? {
                        bail!("no dead job with id {id}");
                    }
                    1
                }
                (None, _) => outbox::revive_all_dead(pool).await?,
            };
            println!("revived {revived} job(s); the worker delivers them shortly");
        }
    }
    Ok(())
}
