//! Pieces the benchmarks share (`#[path]`-included by each bench target, so unused items
//! are expected in some of them).
#![allow(dead_code)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::ensure;
use serde_json::Value;
use sqlx::PgPool;
use supportdesk_core::tenancy::migrations::{
    MigrateAllReport, Selection, TenantMigrations, migrate_all_with,
};
use uuid::Uuid;

/// A benchmark knob: the environment variable `name` as a number, else `default`.
pub fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Provisions `count` workspaces owned by `owner` (`create_workspace`, as an operator's
/// `tenants create`: no ownership limit), `concurrency` at a time; each one's time, sorted.
pub async fn provision(
    pool: &PgPool,
    owner: Uuid,
    count: usize,
    concurrency: usize,
    tag: &str,
) -> anyhow::Result<Vec<Duration>> {
    use futures::{StreamExt, TryStreamExt};
    let mut times: Vec<Duration> = futures::stream::iter(0..count)
        .map(|i| async move {
            let started = Instant::now();
            supportdesk::workspaces::provision::create_workspace(
                pool,
                &format!("{tag} {i}"),
                None,
                owner,
                None,
            )
            .await
            .map_err(|e| anyhow::anyhow!("provisioning: {e}"))?;
            Ok::<_, anyhow::Error>(started.elapsed())
        })
        .buffer_unordered(concurrency.max(1))
        .try_collect()
        .await?;
    times.sort();
    Ok(times)
}

pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// `tenants migrate` with one migration more than this binary has (a column added to a
/// tenant table), across every workspace, `concurrency` at a time.
pub async fn apply_one_new_migration(
    pool: &PgPool,
    concurrency: usize,
) -> anyhow::Result<(Duration, MigrateAllReport)> {
    let next = TenantMigrations::embedded().latest_version() + 1;
    let with_new = TenantMigrations::embedded().with(
        &format!("V{next}__bench_add_column"),
        "ALTER TABLE agent_profiles ADD COLUMN bench_flag boolean NOT NULL DEFAULT false;",
    )?;
    let started = Instant::now();
    let report = migrate_all_with(
        pool,
        &Selection::default(),
        concurrency,
        Arc::new(|_| {}),
        &with_new,
    )
    .await?;
    let elapsed = started.elapsed();
    anyhow::ensure!(report.failed.is_empty(), "{:?}", report.failed);
    Ok((elapsed, report))
}

/// POST `body` as JSON with `token`; the JSON answer of a 2xx.
pub async fn post_json(
    client: &reqwest::Client,
    url: String,
    token: &str,
    body: Value,
) -> anyhow::Result<Value> {
    let response = client
        .post(&url)
        .bearer_auth(token)
        .json(&body)
        .send()
        .await?;
    let status = response.status();
    let text = response.text().await?;
    ensure!(status.is_success(), "{url}: {status} {text}");
    Ok(serde_json::from_str(&text)?)
}

/// Users straight into the control plane (registering through the API would spend an argon2
/// hash each), all with the same password hash; (id, email) in order.
pub async fn insert_users(
    pool: &PgPool,
    prefix: &str,
    count: usize,
    hash: &str,
) -> anyhow::Result<Vec<(Uuid, String)>> {
    Ok(sqlx::query_as(
        "INSERT INTO public.users (id, email, full_name, password_hash, email_verified)
         SELECT gen_random_uuid(), $1 || n || '@bench.test', 'Bench ' || $1 || n, $2, true
           FROM generate_series(1, $3) n
          ORDER BY n
      RETURNING id, email",
    )
    .bind(prefix)
    .bind(hash)
    .bind(count as i64)
    .fetch_all(pool)
    .await?)
}

/// The API's settings for a benchmark over `database_url`: the benchmark migrates (not the
/// API at startup), workspaces are made without the hourly limit, logs say only warnings; then
/// `extra`, which may override any of them.
pub fn bench_env(
    database_url: &str,
    extra: &[(&str, &str)],
) -> std::collections::HashMap<String, String> {
    let mut overrides = vec![
        ("RUN_MIGRATIONS_ON_STARTUP", "false"),
        ("WORKSPACE_CREATES_PER_HOUR", "0"),
        ("RUST_LOG", "warn"),
    ];
    overrides.extend_from_slice(extra);
    supportdesk_test_support::test_env(database_url, &overrides)
}

/// The keys the API signs its tokens with, from its settings: the benchmark issues user
/// tokens as sign-in would.
pub fn jwt_keys(
    settings: &supportdesk_core::config::Settings,
) -> anyhow::Result<supportdesk::credentials::jwt::JwtKeys> {
    use anyhow::Context;
    Ok(supportdesk::credentials::jwt::JwtKeys::new(
        settings
            .application
            .jwt_secret
            .as_ref()
            .context("JWT_SECRET")?,
    ))
}

/// The release API (`supportdesk`) as deployed: `migrate` over `env`'s database, then `serve`
/// on a free port until the returned child is dropped; and its base URL, once healthy.
pub async fn serve_api(
    client: &reqwest::Client,
    env: &std::collections::HashMap<String, String>,
) -> anyhow::Result<(supportdesk_test_support::process::KillOnDrop, String)> {
    serve_api_binary(
        client,
        env,
        std::path::Path::new(env!("CARGO_BIN_EXE_supportdesk")),
    )
    .await
}

/// [`serve_api`] with another build of the API: `binary` (a variant a benchmark compares
/// the product's build with).
pub async fn serve_api_binary(
    client: &reqwest::Client,
    env: &std::collections::HashMap<String, String>,
    binary: &std::path::Path,
) -> anyhow::Result<(supportdesk_test_support::process::KillOnDrop, String)> {
    use std::process::{Command, Stdio};
    let migrate = Command::new(binary)
        .arg("migrate")
        .env_clear()
        .envs(env)
        .output()?;
    ensure!(migrate.status.success(), "supportdesk migrate failed");
    let port = supportdesk_test_support::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let server = supportdesk_test_support::process::KillOnDrop(
        Command::new(binary)
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .env_clear()
            .envs(env)
            .stdout(Stdio::null())
            // `BENCH_API_LOG=1`: the API's log on this terminal, to see why a request failed.
            .stderr(if std::env::var_os("BENCH_API_LOG").is_some() {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .spawn()?,
    );
    for _ in 0..100 {
        if client
            .get(format!("{base}/healthz"))
            .send()
            .await
            .is_ok_and(|r| r.status() == 200)
        {
            return Ok((server, base));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    anyhow::bail!("the API did not become healthy")
}

/// A workspace made through the API by `user_token` and selected: (its id, the workspace
/// token).
pub async fn workspace_via_api(
    client: &reqwest::Client,
    base: &str,
    user_token: &str,
    name: &str,
) -> anyhow::Result<(Uuid, String)> {
    let created = post_json(
        client,
        format!("{base}/workspaces"),
        user_token,
        serde_json::json!({ "name": name }),
    )
    .await?;
    let id: Uuid = created["id"]
        .as_str()
        .ok_or_else(|| anyhow::anyhow!("no id in {created}"))?
        .parse()?;
    let token = select_workspace(client, base, user_token, id).await?;
    Ok((id, token))
}

/// A workspace token for `id`, selected by `user_token` as the dashboard does: a benchmark
/// that outlasts a token's lifetime (provisioning thousands of workspaces) takes a new one.
pub async fn select_workspace(
    client: &reqwest::Client,
    base: &str,
    user_token: &str,
    id: Uuid,
) -> anyhow::Result<String> {
    let selected = post_json(
        client,
        format!("{base}/workspaces/{id}/select"),
        user_token,
        serde_json::json!({}),
    )
    .await?;
    let token = selected["token"]
        .as_str()
        .ok_or_else(|| anyhow::anyhow!("no token in {selected}"))?
        .to_owned();
    Ok(token)
}

/// `count` workspaces made straight in the database (a row and a schema at the latest tenant
/// version each, slugs `{prefix}-{n}`), four at a time; `seed`, a tenant statement naming
/// `{schema}`, runs in each one's transaction. Progress every `every` workspaces.
pub async fn bare_workspaces(
    pool: &PgPool,
    count: usize,
    prefix: &'static str,
    seed: Option<&'static str>,
    every: u64,
) -> anyhow::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    use supportdesk_core::tenancy::TenantSchema;
    use supportdesk_core::tenancy::migrations::provision;
    let made = Arc::new(AtomicU64::new(0));
    let mut makers = Vec::new();
    for m in 0..4 {
        let (pool, made) = (pool.clone(), made.clone());
        makers.push(tokio::spawn(async move {
            for n in (m..count).step_by(4) {
                let id = Uuid::now_v7();
                let schema = TenantSchema::for_workspace(id);
                let mut tx = pool.begin().await?;
                sqlx::query(
                    "INSERT INTO public.workspaces (id, name, slug, schema_name)
                     VALUES ($1, $2, $2, $3)",
                )
                .bind(id)
                .bind(format!("{prefix}-{n}"))
                .bind(schema.name())
                .execute(&mut *tx)
                .await?;
                provision(&mut tx, &schema).await?;
                if let Some(seed) = seed {
                    sqlx::query(schema.sql(seed)).execute(&mut *tx).await?;
                }
                tx.commit().await?;
                let done = made.fetch_add(1, Ordering::Relaxed) + 1;
                if done % every == 0 {
                    eprintln!("  {done} of {count}");
                }
            }
            anyhow::Ok(())
        }));
    }
    for maker in makers {
        maker.await??;
    }
    Ok(())
}
