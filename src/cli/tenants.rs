//! `supportdesk tenants`: provisioning and migrating workspaces from the command line.

use std::sync::Arc;

use anyhow::{Context, bail};
use clap::Subcommand;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use sqlx::PgPool;
use supportdesk_core::config::Settings;
use supportdesk_core::db;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::citus::{self, NodeAddress};
use supportdesk_core::tenancy::deletion::delete_workspace;
use supportdesk_core::tenancy::migrations::{MigrateAllReport, Progress, Selection, migrate_all};
use uuid::Uuid;

use crate::authz::Role;
use crate::credentials::password::{Password, PasswordHasher};
use crate::email_address::EmailAddress;
use crate::memberships::MembershipCache;
use crate::startup::connect_redis;
use crate::workspaces::provision::{add_profile, create_workspace};
use crate::workspaces::slug::Slug;

#[derive(Debug, Subcommand)]
pub enum TenantsCommand {
    /// Create a workspace owned by an existing user.
    Create {
        /// The workspace's display name.
        #[arg(long)]
        name: String,
        /// Lower-case [a-z0-9-]{3,48}; derived from the name when absent.
        #[arg(long)]
        slug: Option<String>,
        /// The owner's account email.
        #[arg(long)]
        owner_email: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List workspaces with their schema version, member count and (on Citus) node.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Bring workspace schemas to the latest tenant migration.
    Migrate {
        /// Workspaces migrated at once.
        #[arg(long, default_value_t = 4)]
        concurrency: usize,
        /// Only this workspace.
        #[arg(long, value_name = "SLUG")]
        only: Option<String>,
        /// Print a JSON report instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Move a workspace to another Citus worker node while it keeps serving.
    Move {
        /// The workspace's slug.
        slug: String,
        /// The node as Citus registered it (`citus_add_node`), HOST:PORT.
        #[arg(long, value_name = "HOST:PORT")]
        to: NodeAddress,
    },
    /// Spread workspaces evenly over the Citus worker nodes (after adding one), and wait.
    Rebalance,
    /// Distribute the workspaces still on the Citus coordinator (made before schema-based
    /// sharding was turned on) to the worker nodes, one at a time.
    Distribute,
    /// Delete a workspace and all its data, now.
    Drop {
        /// The workspace's slug.
        slug: String,
        /// Confirm: this cannot be undone.
        #[arg(long)]
        yes: bool,
    },
    /// Add someone to a workspace (or change their role and reactivate them).
    AddMember {
        /// The workspace's slug.
        #[arg(long)]
        slug: String,
        /// The member's account email.
        #[arg(long)]
        email: String,
        /// `admin` (Owner) or `agent`.
        #[arg(long, value_parser = ["admin", "agent"])]
        role: String,
        /// Create the account if there is none (its email counts as verified).
        #[arg(long, requires = "password")]
        create_user: bool,
        /// Password for a created account.
        #[arg(long)]
        password: Option<String>,
    },
}

pub async fn run(settings: &Settings, command: TenantsCommand) -> anyhow::Result<()> {
    let connections = match &command {
        TenantsCommand::Migrate { concurrency, .. } => *concurrency as u32 + 1,
        _ => 2,
    };
    let pool = db::pool(&settings.database, connections);
    match command {
        TenantsCommand::Create {
            name,
            slug,
            owner_email,
            json,
        } => {
            let slug = slug
                .map(|s| Slug::parse(&s))
                .transpose()
                .map_err(|e| anyhow::anyhow!("--slug {e}"))?;
            let owner = user_by_email(&pool, &owner_email)
                .await?
                .with_context(|| format!("no account with email {owner_email}"))?;
            let workspace = create_workspace(&pool, name.trim(), slug, owner, None)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            if json {
                println!(
                    "{}",
                    serde_json::json!({"id": workspace.id, "name": workspace.name, "slug": workspace.slug.as_str()})
                );
            } else {
                println!("created workspace {} ({})", workspace.slug, workspace.id);
            }
        }
        TenantsCommand::List { json } => list(&pool, json).await?,
        TenantsCommand::Migrate {
            concurrency,
            only,
            json,
        } => {
            let report = migrate_all(
                &pool,
                &Selection { only },
                concurrency,
                progress_reporter(json),
            )
            .await?;
            if json {
                println!("{}", serde_json::to_string(&report)?);
            } else {
                print_migrate_report(&report);
            }
            fail_if_any_failed(&report)?;
        }
        TenantsCommand::Move { slug, to } => {
            let schema = sqlx::query_scalar!(
                "SELECT schema_name FROM public.workspaces WHERE slug = $1 AND status = 'active'",
                slug,
            )
            .fetch_optional(&pool)
            .await?
            .with_context(|| format!("no active workspace {slug}"))?;
            let schema = TenantSchema::parse(&schema).map_err(|e| anyhow::anyhow!(e))?;
            let from = citus::placements(&pool).await?.remove(schema.name());
            let Some(from) = from else {
                bail!(
                    "{slug} is not a distributed schema: is this a Citus coordinator with schema-based sharding?"
                );
            };
            if from == to {
                println!("{slug} is on {to} already");
            } else {
                citus::move_schema(&pool, &schema, &to).await?;
                println!("moved {slug} from {from} to {to}");
            }
        }
        TenantsCommand::Rebalance => {
            citus::rebalance(&pool).await?;
            let mut counts: std::collections::BTreeMap<String, usize> = citus::workers(&pool)
                .await?
                .into_iter()
                .map(|node| (node.to_string(), 0))
                .collect();
            for node in citus::placements(&pool).await?.into_values() {
                *counts.entry(node.to_string()).or_default() += 1;
            }
            for (node, count) in counts {
                println!("{node}: {count} workspace schema(s)");
            }
        }
        TenantsCommand::Distribute => {
            if !citus::is_citus(&pool).await? {
                bail!("this database is not a Citus coordinator");
            }
            let placed = citus::placements(&pool).await?;
            let schemas: Vec<String> = sqlx::query_scalar(
                "SELECT schema_name FROM public.workspaces WHERE status = 'active' ORDER BY created_at",
            )
            .fetch_all(&pool)
            .await?;
            let mut moved = 0;
            for name in schemas.iter().filter(|s| !placed.contains_key(s.as_str())) {
                let schema = TenantSchema::parse(name).map_err(|e| anyhow::anyhow!(e))?;
                citus::distribute(&pool, &schema).await?;
                moved += 1;
            }
            println!(
                "distributed {moved} workspace schema(s); {} already were",
                schemas.len() - moved
            );
        }
        TenantsCommand::Drop { slug, yes } => {
            if !yes {
                bail!("dropping {slug} deletes all its data; add --yes to confirm");
            }
            let id = sqlx::query_scalar!(
                "UPDATE public.workspaces SET status = 'deleting' WHERE slug = $1 RETURNING id",
                slug,
            )
            .fetch_optional(&pool)
            .await?
            .with_context(|| format!("no workspace {slug}"))?;
            memberships(settings)?.workspace_changed(id).await;
            let store = supportdesk_core::storage::open(&settings.storage)?;
            delete_workspace(&pool, &*store, settings.storage.delete_batch, id).await?;
            println!("dropped workspace {slug}");
        }
        TenantsCommand::AddMember {
            slug,
            email,
            role,
            create_user,
            password,
        } => {
            let role: Role = role.parse().map_err(|e: String| anyhow::anyhow!(e))?;
            let email = EmailAddress::parse(&email).map_err(|e| anyhow::anyhow!("--email {e}"))?;
            let workspace = sqlx::query!(
                "SELECT id, schema_name FROM public.workspaces WHERE slug = $1 AND status = 'active'",
                slug,
            )
            .fetch_optional(&pool)
            .await?
            .with_context(|| format!("no active workspace {slug}"))?;
            let workspace_id = workspace.id;
            let user_id = match user_by_email(&pool, email.as_str()).await? {
                Some(id) => id,
                None if create_user => {
                    let password = Password::parse(password.unwrap_or_default())
                        .map_err(|e| anyhow::anyhow!("--password {}", e.join(", ")))?;
                    let hash = PasswordHasher::new(1)?
                        .hash(&password)
                        .await
                        .map_err(|e| anyhow::anyhow!("{e}"))?;
                    sqlx::query_scalar!(
                        "INSERT INTO public.users (id, email, full_name, password_hash, email_verified)
                         VALUES ($1, $2, split_part($2, '@', 1), $3, true) RETURNING id",
                        Uuid::now_v7(),
                        email.as_str(),
                        hash,
                    )
                    .fetch_one(&pool)
                    .await?
                }
                None => bail!("no account with email {email}; add --create-user --password P"),
            };
            let schema =
                TenantSchema::parse(&workspace.schema_name).map_err(|e| anyhow::anyhow!(e))?;
            let mut tx = db::begin(&pool, None).await?;
            sqlx::query!(
                "INSERT INTO public.memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)
                 ON CONFLICT (workspace_id, user_id)
                 DO UPDATE SET role = EXCLUDED.role, status = 'active', updated_at = now()",
                workspace_id,
                user_id,
                role.as_str(),
            )
            .execute(&mut *tx)
            .await?;
            add_profile(&mut tx, &schema, user_id)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            tx.commit().await?;
            memberships(settings)?.changed(user_id, workspace_id).await;
            println!("{email} is now {} of {slug}", role.as_str());
        }
    }
    Ok(())
}

fn memberships(settings: &Settings) -> anyhow::Result<MembershipCache> {
    Ok(MembershipCache::new(
        connect_redis(settings)?,
        &settings.redis.namespace,
        settings.redis.timeout(),
    ))
}

async fn user_by_email(pool: &PgPool, email: &str) -> anyhow::Result<Option<Uuid>> {
    let email = EmailAddress::parse(email).map_err(|e| anyhow::anyhow!("email {e}"))?;
    Ok(sqlx::query_scalar!(
        "SELECT id FROM public.users WHERE email = $1",
        email.as_str()
    )
    .fetch_optional(pool)
    .await?)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TenantRow {
    id: Uuid,
    slug: String,
    name: String,
    status: String,
    schema_version: i32,
    members: i64,
    /// The Citus node holding the workspace's schema (`HOST:PORT`); null off Citus.
    node: Option<String>,
}

async fn list(pool: &PgPool, json: bool) -> anyhow::Result<()> {
    let mut placements = citus::placements(pool).await?;
    let rows: Vec<TenantRow> = sqlx::query!(
        r#"SELECT w.id, w.slug, w.name, w.status, w.schema_version, w.schema_name,
                  (SELECT count(*) FROM public.memberships m
                    WHERE m.workspace_id = w.id AND m.status = 'active') AS "members!"
             FROM public.workspaces w ORDER BY w.created_at"#,
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| TenantRow {
        node: placements.remove(&r.schema_name).map(|n| n.to_string()),
        id: r.id,
        slug: r.slug,
        name: r.name,
        status: r.status,
        schema_version: r.schema_version,
        members: r.members,
    })
    .collect();
    if json {
        println!("{}", serde_json::to_string(&rows)?);
        return Ok(());
    }
    println!(
        "{:<36}  {:<24}  {:<9}  {:>7}  {:>7}  {:<21}  name",
        "id", "slug", "status", "version", "members", "node"
    );
    for row in rows {
        println!(
            "{:<36}  {:<24}  {:<9}  {:>7}  {:>7}  {:<21}  {}",
            row.id,
            row.slug,
            row.status,
            row.schema_version,
            row.members,
            row.node.as_deref().unwrap_or("-"),
            row.name
        );
    }
    Ok(())
}

/// A progress bar on stderr (hidden when stderr is not a terminal, or with --json).
pub fn progress_reporter(json: bool) -> Arc<dyn Fn(Progress) + Send + Sync> {
    let bar = if json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} tenants {pos}/{len} [{bar:30}] {per_sec} eta {eta} {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    Arc::new(move |event| match event {
        Progress::Started { behind } => bar.set_length(behind as u64),
        Progress::Finished { slug, ok } => {
            if !ok {
                bar.println(format!("failed: {slug}"));
            }
            bar.inc(1);
            if bar.position() >= bar.length().unwrap_or(0) {
                bar.finish_and_clear();
            }
        }
    })
}

pub fn print_migrate_report(report: &MigrateAllReport) {
    println!(
        "tenants: {} total, {} already at version {}, {} migrated, {} failed",
        report.tenants,
        report.already_current,
        report.latest_version,
        report.migrated,
        report.failed.len()
    );
    for failure in &report.failed {
        println!("  {}: {}", failure.slug, failure.error);
    }
}

pub fn fail_if_any_failed(report: &MigrateAllReport) -> anyhow::Result<()> {
    if report.failed.is_empty() {
        Ok(())
    } else {
        bail!(
            "{} workspace(s) failed to migrate; re-run to resume",
            report.failed.len()
        )
    }
}
