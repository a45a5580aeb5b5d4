//! The `supportdesk` binary as an operator runs it: configuration errors, migrations,
//! start-up migration across replicas, graceful shutdown, and what reaches the logs.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use sqlx::{Connection, PgConnection};
use uuid::Uuid;

use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::process::KillOnDrop;
use supportdesk_test_support::{free_port, redis_url};

use crate::helpers::{JWT_SECRET, PASSWORD};

/// An empty database: nothing migrated.
/// (version, name) of every control-plane migration in the source tree, in order.
fn control_plane_migrations() -> Vec<(i32, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut migrations: Vec<(i32, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let name = name.trim_end_matches(".sql").to_owned();
            let version = name[1..name.find("__").unwrap()].parse().unwrap();
            (version, name)
        })
        .collect();
    migrations.sort();
    migrations
}

async fn empty_database() -> TestDatabase {
    TestDatabase::empty().await
}

/// The binary with what every API process of the tests needs, over `database_url` and a
/// Redis namespace of its own.
pub fn supportdesk(database_url: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_supportdesk"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("ConnectionStrings__DefaultConnection", database_url)
        .env("JWT_SECRET", JWT_SECRET)
        .env("APP_URL", "http://desk.test")
        .env("METRICS_BIND", "127.0.0.1:0")
        .env("REDIS_URL", redis_url())
        .env("STORAGE_URL", supportdesk_test_support::temp_storage_url())
        .env(
            "REDIS_NAMESPACE",
            format!("sdtest:{}", Uuid::new_v4().simple()),
        )
        .current_dir(std::env::temp_dir());
    command
}

pub async fn wait_healthy(base: &str) {
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(response) = client.get(format!("{base}/healthz")).send().await
            && response.status() == StatusCode::OK
        {
            return;
        }
        assert!(Instant::now() < deadline, "{base} never became healthy");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn terminate(child: &std::process::Child) {
    signal(child, "-TERM");
}

fn signal(child: &std::process::Child, which: &str) {
    let status = Command::new("kill")
        .args([which, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn configuration_errors_name_the_variable_and_fail_fast() {
    let cases: [(&str, &str, &str); 4] = [
        (
            "JWT_SECRET",
            "short",
            "JWT_SECRET: must be at least 32 characters",
        ),
        (
            "RUN_MIGRATIONS_ON_STARTUP",
            "sometimes",
            "RUN_MIGRATIONS_ON_STARTUP:",
        ),
        (
            "ConnectionStrings__DefaultConnection",
            "Host=x;Port=notaport",
            "ConnectionStrings__DefaultConnection:",
        ),
        (
            "ASPNETCORE_ENVIRONMENT",
            "Staging",
            "ASPNETCORE_ENVIRONMENT:",
        ),
    ];
    for (name, value, expected) in cases {
        let output = supportdesk("postgres://postgres:postgres@127.0.0.1:5432/postgres")
            .env(name, value)
            .args(["serve", "--bind", "127.0.0.1:0"])
            .output()
            .unwrap();
        assert!(!output.status.success(), "{name}={value} was accepted");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{name}: {stderr}");
    }
    let output = supportdesk("")
        .env_remove("ConnectionStrings__DefaultConnection")
        .arg("migrate")
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("ConnectionStrings__DefaultConnection is required")
    );
}

#[tokio::test]
async fn migrate_is_idempotent_and_reports_json() {
    let db = empty_database().await;
    let first = supportdesk(&db.url)
        .args(["migrate", "--json"])
        .output()
        .unwrap();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let report: Value = serde_json::from_slice(&first.stdout).unwrap();
    let on_disk: Vec<String> = control_plane_migrations()
        .into_iter()
        .map(|(_, name)| name)
        .collect();
    assert!(on_disk.len() >= 4, "{on_disk:?}");
    assert_eq!(report["controlPlane"]["applied"], json!(on_disk));
    assert_eq!(report["tenants"]["tenants"], 0);

    let second = supportdesk(&db.url)
        .args(["migrate", "--json"])
        .output()
        .unwrap();
    assert!(second.status.success());
    let report: Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(report["controlPlane"]["applied"], json!([]));
}

#[tokio::test]
async fn replicas_starting_together_migrate_once_and_stop_cleanly_on_sigterm() {
    let db = empty_database().await;
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    // One replica is configured with the key=value connection string form.
    let mut children: Vec<_> = ports
        .iter()
        .enumerate()
        .map(|(i, port)| {
            let connection = if i == 0 {
                db.key_value()
            } else {
                db.url.clone()
            };
            supportdesk(&connection)
                .env("RUN_MIGRATIONS_ON_STARTUP", "true")
                .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map(KillOnDrop)
                .unwrap()
        })
        .collect();
    for port in &ports {
        wait_healthy(&format!("http://127.0.0.1:{port}")).await;
    }

    let mut conn = PgConnection::connect(&db.url).await.unwrap();
    let applied: Vec<i32> = sqlx::query_scalar("SELECT version FROM refinery_schema_history")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    let on_disk: Vec<i32> = control_plane_migrations()
        .into_iter()
        .map(|(version, _)| version)
        .collect();
    assert_eq!(applied, on_disk);
    conn.close().await.unwrap();

    // SIGTERM (Kubernetes) for two, SIGINT (Ctrl-C) for the third: both drain and exit 0.
    for (i, child) in children.iter().enumerate() {
        signal(child, if i == 2 { "-INT" } else { "-TERM" });
    }
    for child in &mut children {
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "exit status after the signal");
    }
}

const WRONG_PASSWORD: &str = "Wr0ngButSecret";
const REDIS_PASSWORD: &str = "redis-password-never-logged";

#[tokio::test]
async fn development_logs_are_for_people_not_machines() {
    let db = empty_database().await;
    let output = supportdesk(&db.url)
        .env("ASPNETCORE_ENVIRONMENT", "Development")
        .arg("migrate")
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("applying migration"), "{stderr}");
    assert!(!stderr.trim_start().starts_with('{'), "{stderr}");
    let output = supportdesk(&db.url)
        .env("ASPNETCORE_ENVIRONMENT", "Production")
        .arg("migrate")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first = stderr.lines().next().unwrap_or_default();
    assert!(serde_json::from_str::<Value>(first).is_ok(), "{stderr}");
}

#[tokio::test]
async fn secrets_and_tokens_never_reach_the_logs() {
    let db = empty_database().await;
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let log_path = std::env::temp_dir().join(format!("sd-log-{}.txt", Uuid::new_v4().simple()));
    let log = std::fs::File::create(&log_path).unwrap();
    let mut child = supportdesk(&db.url)
        .env("ASPNETCORE_ENVIRONMENT", "Production")
        .env("RUN_MIGRATIONS_ON_STARTUP", "true")
        .env("RUST_LOG", "debug")
        // A password Redis does not expect: every Redis call fails and is logged.
        .env(
            "REDIS_URL",
            format!("redis://:{REDIS_PASSWORD}@127.0.0.1:6379"),
        )
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .map(KillOnDrop)
        .unwrap();
    wait_healthy(&base).await;

    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let registered: Value = client
        .post(format!("{base}/auth/register"))
        .json(&json!({"email": "ann@example.com", "password": PASSWORD, "fullName": "Ann"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let user_token = registered["token"].as_str().unwrap().to_owned();
    let logged_in: Value = client
        .post(format!("{base}/auth/login"))
        .json(&json!({"email": "ann@example.com", "password": PASSWORD}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let login_token = logged_in["token"].as_str().unwrap().to_owned();
    client
        .get(format!("{base}/auth/me"))
        .bearer_auth(&user_token)
        .send()
        .await
        .unwrap();
    for _ in 0..11 {
        client
            .post(format!("{base}/auth/login"))
            .json(&json!({"email": "ann@example.com", "password": WRONG_PASSWORD}))
            .send()
            .await
            .unwrap();
    }
    let verification_token = "a-verification-token-that-must-stay-secret";
    client
        .get(format!(
            "{base}/auth/verify-email?token={verification_token}"
        ))
        .send()
        .await
        .unwrap();

    terminate(&child);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let logs = std::fs::read_to_string(&log_path).unwrap();
    let _ = std::fs::remove_file(&log_path);

    assert!(
        logs.contains("\"route\":\"/auth/login\""),
        "JSON logs with the route: {logs}"
    );
    assert!(logs.contains("login throttled"), "the 429 path ran: {logs}");
    assert!(
        logs.contains("redis rate limit failed"),
        "Redis errors were logged: {logs}"
    );
    for secret in [
        PASSWORD,
        WRONG_PASSWORD,
        JWT_SECRET,
        REDIS_PASSWORD,
        &user_token,
        &login_token,
        verification_token,
    ] {
        assert!(
            !logs.contains(secret),
            "a secret reached the logs: {secret}"
        );
    }
}

#[tokio::test]
async fn jobs_list_and_retry_show_and_revive_dead_work() {
    let db = TestDatabase::migrated().await;
    let mut conn = PgConnection::connect(&db.url).await.unwrap();
    let (dead, pending) = (Uuid::now_v7(), Uuid::now_v7());
    sqlx::query(
        "INSERT INTO public.outbox (id, kind, payload, attempts, outcome, last_error, finished_at)
         VALUES ($1, 'verification_email', '{}', 8, 'dead', 'SMTP: 550 no such mailbox', now()),
                ($2, 'invitation_email', '{}', 1, NULL, NULL, NULL)",
    )
    .bind(dead)
    .bind(pending)
    .execute(&mut conn)
    .await
    .unwrap();

    let listed = supportdesk(&db.url)
        .args(["jobs", "list", "--dead", "--json"])
        .output()
        .unwrap();
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let rows: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1);
    assert_eq!(rows[0]["id"], dead.to_string());
    assert_eq!(rows[0]["attempts"], 8);
    assert_eq!(rows[0]["lastError"], "SMTP: 550 no such mailbox");

    let table = supportdesk(&db.url)
        .args(["jobs", "list"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.contains(&dead.to_string()) && table.contains(&pending.to_string()),
        "{table}"
    );
    assert!(
        table.contains("dead") && table.contains("pending"),
        "{table}"
    );

    let unknown = supportdesk(&db.url)
        .args(["jobs", "retry", &Uuid::new_v4().to_string()])
        .output()
        .unwrap();
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no dead job"));
    let nothing = supportdesk(&db.url)
        .args(["jobs", "retry"])
        .output()
        .unwrap();
    assert!(!nothing.status.success(), "an id or --all-dead is required");

    let retried = supportdesk(&db.url)
        .args(["jobs", "retry", &dead.to_string()])
        .output()
        .unwrap();
    assert!(
        retried.status.success(),
        "{}",
        String::from_utf8_lossy(&retried.stderr)
    );
    let (outcome, attempts, relayed): (Option<String>, i32, Option<time::OffsetDateTime>) =
        sqlx::query_as("SELECT outcome, attempts, relayed_at FROM public.outbox WHERE id = $1")
            .bind(dead)
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert_eq!(
        (outcome, attempts, relayed),
        (None, 0, None),
        "back in line for the relay"
    );

    let again = supportdesk(&db.url)
        .args(["jobs", "retry", "--all-dead"])
        .output()
        .unwrap();
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).contains("revived 0"));
}

fn run_ok(command: &mut Command) -> String {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[tokio::test]
async fn tenants_commands_work_end_to_end_and_a_failing_tenant_does_not_stop_the_rest() {
    let db = TestDatabase::migrated().await;
    db.insert_owner().await;
    let mut conn = PgConnection::connect(&db.url).await.unwrap();
    for slug in ["alpha", "bravo", "charlie"] {
        let out = run_ok(supportdesk(&db.url).args([
            "tenants",
            "create",
            "--name",
            &format!("Team {slug}"),
            "--slug",
            slug,
            "--owner-email",
            "owner@example.com",
            "--json",
        ]));
        let created: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(created["slug"], slug);
    }
    let missing_owner = supportdesk(&db.url)
        .args([
            "tenants",
            "create",
            "--name",
            "X",
            "--owner-email",
            "nobody@example.com",
        ])
        .output()
        .unwrap();
    assert!(!missing_owner.status.success());

    let listed: Value = serde_json::from_str(&run_ok(
        supportdesk(&db.url).args(["tenants", "list", "--json"]),
    ))
    .unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 3);
    assert_eq!(listed[0]["members"], 1);
    let latest = supportdesk_core::tenancy::migrations::latest_version();
    assert_eq!(listed[0]["schemaVersion"], latest);

    // Nothing to do: every tenant is skipped by its recorded version.
    let noop: Value = serde_json::from_str(&run_ok(
        supportdesk(&db.url).args(["tenants", "migrate", "--json"]),
    ))
    .unwrap();
    assert_eq!(
        (
            noop["tenants"].clone(),
            noop["alreadyCurrent"].clone(),
            noop["migrated"].clone()
        ),
        (json!(3), json!(3), json!(0))
    );

    // Pretend all three are behind; bravo's schema is broken so its migration fails.
    sqlx::query("UPDATE public.workspaces SET schema_version = 0")
        .execute(&mut conn)
        .await
        .unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(
        "DO $$ DECLARE s text; BEGIN
             FOR s IN SELECT schema_name FROM public.workspaces LOOP
                 EXECUTE format('DELETE FROM %I.refinery_schema_history', s);
             END LOOP;
             FOR s IN SELECT schema_name FROM public.workspaces WHERE slug <> 'bravo' LOOP
                 EXECUTE format('DROP SCHEMA %I CASCADE; CREATE SCHEMA %I', s, s);
             END LOOP;
         END $$"
            .to_owned(),
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let run = supportdesk(&db.url)
        .args(["tenants", "migrate", "--concurrency", "2", "--json"])
        .output()
        .unwrap();
    assert!(!run.status.success(), "a failed tenant makes the run fail");
    let report: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(report["migrated"], 2);
    assert_eq!(report["failed"].as_array().unwrap().len(), 1);
    assert_eq!(report["failed"][0]["slug"], "bravo");
    assert!(
        report["failed"][0]["error"]
            .as_str()
            .unwrap()
            .contains("already exists"),
        "{report}"
    );

    // Fixed, a re-run resumes with just the one that failed.
    sqlx::raw_sql(sqlx::AssertSqlSafe(
        "DO $$ DECLARE s text; BEGIN
             SELECT schema_name INTO s FROM public.workspaces WHERE slug = 'bravo';
             EXECUTE format('DROP SCHEMA %I CASCADE; CREATE SCHEMA %I', s, s);
         END $$"
            .to_owned(),
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let resumed: Value = serde_json::from_str(&run_ok(
        supportdesk(&db.url).args(["tenants", "migrate", "--json"]),
    ))
    .unwrap();
    assert_eq!(
        (
            resumed["alreadyCurrent"].clone(),
            resumed["migrated"].clone()
        ),
        (json!(2), json!(1))
    );
    let only: Value = serde_json::from_str(&run_ok(
        supportdesk(&db.url).args(["tenants", "migrate", "--only", "alpha", "--json"]),
    ))
    .unwrap();
    assert_eq!(only["tenants"], 1);

    // add-member with a new account, then drop.
    run_ok(supportdesk(&db.url).args([
        "tenants",
        "add-member",
        "--slug",
        "alpha",
        "--email",
        "New.Agent@example.com",
        "--role",
        "agent",
        "--create-user",
        "--password",
        "Corr3ctHorse",
    ]));
    let (role, verified): (String, bool) = sqlx::query_as(
        "SELECT m.role, u.email_verified FROM public.memberships m JOIN public.users u ON u.id = m.user_id
          WHERE u.email = 'new.agent@example.com'",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!((role.as_str(), verified), ("agent", true));
    let weak = supportdesk(&db.url)
        .args([
            "tenants",
            "add-member",
            "--slug",
            "alpha",
            "--email",
            "x@example.com",
            "--role",
            "agent",
            "--create-user",
            "--password",
            "weak",
        ])
        .output()
        .unwrap();
    assert!(!weak.status.success());

    let unconfirmed = supportdesk(&db.url)
        .args(["tenants", "drop", "charlie"])
        .output()
        .unwrap();
    assert!(!unconfirmed.status.success(), "drop needs --yes");
    run_ok(supportdesk(&db.url).args(["tenants", "drop", "charlie", "--yes"]));
    let schemas: i64 =
        sqlx::query_scalar("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'ws\\_%'")
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert_eq!(schemas, 2);
    let remaining: Value = serde_json::from_str(&run_ok(
        supportdesk(&db.url).args(["tenants", "list", "--json"]),
    ))
    .unwrap();
    assert_eq!(remaining.as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn starting_with_run_migrations_brings_workspaces_up_to_date() {
    let db = TestDatabase::migrated().await;
    db.insert_owner().await;
    let mut conn = PgConnection::connect(&db.url).await.unwrap();
    run_ok(supportdesk(&db.url).args([
        "tenants",
        "create",
        "--name",
        "Behind",
        "--slug",
        "behind",
        "--owner-email",
        "owner@example.com",
    ]));
    // As if it were provisioned before the tenant migrations existed.
    sqlx::raw_sql(sqlx::AssertSqlSafe(
        "DO $$ DECLARE s text; BEGIN
             SELECT schema_name INTO s FROM public.workspaces WHERE slug = 'behind';
             EXECUTE format('DROP SCHEMA %I CASCADE; CREATE SCHEMA %I', s, s);
         END $$
         ; UPDATE public.workspaces SET schema_version = 0"
            .to_owned(),
    ))
    .execute(&mut conn)
    .await
    .unwrap();

    let port = free_port();
    let mut child = supportdesk(&db.url)
        .env("RUN_MIGRATIONS_ON_STARTUP", "true")
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(KillOnDrop)
        .unwrap();
    wait_healthy(&format!("http://127.0.0.1:{port}")).await;
    terminate(&child);
    assert_eq!(child.wait().unwrap().code(), Some(0));

    let version: i32 =
        sqlx::query_scalar("SELECT schema_version FROM public.workspaces WHERE slug = 'behind'")
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert_eq!(
        version,
        supportdesk_core::tenancy::migrations::latest_version()
    );
    let tables: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM information_schema.tables t JOIN public.workspaces w ON w.schema_name = t.table_schema
          WHERE w.slug = 'behind' AND t.table_name IN ('agent_profiles', 'settings')",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(tables, 2);
}
