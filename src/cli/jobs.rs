//! `supportdesk jobs`: inspect and revive background work.

use anyhow::bail;
use clap::{Args, Subcommand};
use uuid::Uuid;

use supportdesk_core::outbox;

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

pub async fn run(pool: &sqlx::PgPool, command: JobsCommand) -> anyhow::Result<()> {
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
