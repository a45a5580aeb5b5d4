//! The `supportdesk` command line: one binary for the API and the operator's commands.

mod jobs;
mod mail;
mod tenants;

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use supportdesk_core::config::Settings;
use supportdesk_core::shutdown::shutdown_signal;
use supportdesk_core::tenancy::migrations::{Selection, migrate_all};
use supportdesk_core::{db, telemetry};

use crate::migrate;
use crate::startup::Application;

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
    /// Apply pending migrations: the control plane, then every workspace schema (safe to run
    /// repeatedly and concurrently; exits non-zero if any workspace failed).
    Migrate {
        /// Workspaces migrated at once.
        #[arg(long, default_value_t = 4)]
        concurrency: usize,
        /// Print a JSON report instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Operate on workspaces (tenants).
    #[command(subcommand)]
    Tenants(tenants::TenantsCommand),
    /// Inspect and revive background work (emails, workspace deletion).
    #[command(subcommand)]
    Jobs(jobs::JobsCommand),
    /// The email channel: mail handed over by the MTA.
    #[command(subcommand)]
    Mail(mail::MailCommand),
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
        Command::Migrate { concurrency, json } => {
            let report = migrate::control_plane(&settings.database).await?;
            if !json {
                if report.applied.is_empty() {
                    println!("control plane: up to date");
                }
                for applied in &report.applied {
                    println!("control plane: applied {applied}");
                }
            }
            let pool = db::pool(&settings.database, concurrency as u32 + 1);
            let tenants = migrate_all(
                &pool,
                &Selection::default(),
                concurrency,
                tenants::progress_reporter(json),
            )
            .await?;
            if json {
                println!(
                    "{}",
                    serde_json::json!({ "controlPlane": report, "tenants": tenants })
                );
            } else {
                tenants::print_migrate_report(&tenants);
            }
            tenants::fail_if_any_failed(&tenants)?;
        }
        Command::Tenants(command) => tenants::run(&settings, command).await?,
        Command::Jobs(command) => {
            let pool = db::pool(&settings.database, 2);
            jobs::run(&pool, command).await?;
        }
        Command::Mail(command) => {
            // Boxed: receiving holds a whole message's futures, far larger than the others.
            let code = Box::pin(mail::run(settings, command)).await?;
            if code != 0 {
                std::process::exit(code);
            }
        }
    }
    Ok(())
}
