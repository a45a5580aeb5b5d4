//! Behind PgBouncer: the API sends no startup options, the database's own settings give every
//! session its empty `search_path`, and every tenant read and write still stays in its tenant.
//!
//! Session pooling gives each API connection a server connection of its own. Transaction
//! pooling (PgBouncer 1.21+, `.ci/services.sh` provides it) shares two server connections
//! among six API connections, so a statement prepared on one server connection is executed,
//! by whichever client sent it, on the other: the case where a pooler that mixed up prepared
//! statements would hand one workspace's rows to another.

use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};
use supportdesk_test_support::api::RunningApi;
use supportdesk_test_support::pgbouncer::{self, PgBouncer, PoolMode, Upstream};
use url::Url;

use crate::helpers::{Owner, TestApp, spawn_app, spawn_replica_with};

/// The API behind a PgBouncer of the test's own in `mode`, `server_connections` to PostgreSQL
/// for `api_connections` of the API's.
struct BehindPgBouncer {
    api: RunningApi,
    _bouncer: PgBouncer,
    work: std::path::PathBuf,
}

impl Drop for BehindPgBouncer {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.work);
    }
}

async fn behind_pgbouncer(
    app: &TestApp,
    mode: PoolMode,
    server_connections: u32,
    api_connections: u32,
) -> BehindPgBouncer {
    assert!(
        pgbouncer::binary().is_some(),
        "pgbouncer is not installed: .ci/test provides one"
    );
    let url = Url::parse(app.database_url()).unwrap();
    let database = url.path().trim_start_matches('/').to_owned();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "ALTER DATABASE \"{database}\" SET search_path = '';
         ALTER DATABASE \"{database}\" SET plan_cache_mode = force_generic_plan;
         ALTER DATABASE \"{database}\" SET jit = off"
    )))
    .execute(&app.db)
    .await
    .unwrap();
    let upstream = Upstream {
        host: url.host_str().unwrap_or("127.0.0.1").to_owned(),
        port: url.port().unwrap_or(5432),
        database: database.clone(),
        user: Some(url.username().to_owned())
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| "postgres".into()),
        password: url.password().unwrap_or_default().to_owned(),
    };
    let work = std::env::temp_dir().join(format!("sd-pgbouncer-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&work).unwrap();
    let bouncer = PgBouncer::start(&work, &upstream, mode, server_connections)
        .await
        .expect("pgbouncer starts");
    let through = format!(
        "postgres://{}:{}@127.0.0.1:{}/{database}?sslmode=disable",
        upstream.user, upstream.password, bouncer.port
    );
    let api_connections = api_connections.to_string();
    let api = spawn_replica_with(
        app,
        &[
            ("ConnectionStrings__DefaultConnection", through.as_str()),
            ("DATABASE_POOLER", "pgbouncer"),
            ("DATABASE_MAX_CONNECTIONS", api_connections.as_str()),
        ],
    )
    .await;
    BehindPgBouncer {
        api,
        _bouncer: bouncer,
        work,
    }
}

async fn owners(app: &TestApp, prefix: &str) -> Vec<Owner> {
    let mut owners = Vec::new();
    for name in ["acme", "globex", "initech"] {
        owners.push(app.owner_with_workspace(&format!("{prefix}-{name}")).await);
    }
    owners
}

/// `GET path` through `api` with `owner`'s workspace token: the status and the JSON body.
async fn get(api: &RunningApi, path: &str, owner: &Owner) -> (StatusCode, Value) {
    let response = supportdesk_test_support::http_client()
        .get(format!("{}{path}", api.address))
        .bearer_auth(&owner.workspace_token)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or_default())
}

/// `GET /api/agents` through `api`: exactly `owner`, alone in their workspace.
async fn assert_reads_own_team(api: &RunningApi, owner: &Owner) {
    let (status, body) = get(api, "/api/agents", owner).await;
    assert_eq!(status, StatusCode::OK);
    let agents = body["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 1, "{body}");
    assert_eq!(agents[0]["userId"], owner.user_id.to_string(), "{body}");
}

#[tokio::test]
async fn behind_pgbouncer_every_token_reads_its_own_workspace_only() {
    let app = spawn_app().await;
    let owners = owners(&app, "bouncer").await;
    let behind = behind_pgbouncer(&app, PoolMode::Session, 6, 2).await;

    for round in 0..60 {
        assert_reads_own_team(&behind.api, &owners[round % owners.len()]).await;
    }
}

#[tokio::test]
async fn behind_pgbouncer_in_transaction_mode_reads_and_writes_stay_in_their_workspace() {
    assert!(
        pgbouncer::supports_transaction_mode(),
        "PgBouncer {:?} has no prepared statements in transaction mode: .ci/test provides 1.21+",
        pgbouncer::version()
    );
    let app = spawn_app().await;
    let owners = owners(&app, "txpool").await;
    let behind = behind_pgbouncer(&app, PoolMode::Transaction, 2, 6).await;
    let api = &behind.api;
    let client = supportdesk_test_support::http_client();

    // Writes (transactions of several statements) from every workspace at once.
    let writes = (0..24).map(|i| {
        let owner = &owners[i % owners.len()];
        let client = client.clone();
        async move {
            let response = client
                .post(format!("{}/api/conversations", api.address))
                .bearer_auth(&owner.workspace_token)
                .json(&json!({
                    "contact": {"email": format!("visitor-{i}@example.org")},
                    "body": format!("for workspace {}", owner.workspace_id),
                }))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::CREATED);
        }
    });
    join_all(writes).await;

    // Reads from every workspace at once, more of them than server connections, each from a
    // statement its API connection prepared on whichever server connection it had then.
    let reads = (0..90).map(|i| {
        let owner = &owners[i % owners.len()];
        async move {
            if i % 2 == 0 {
                assert_reads_own_team(api, owner).await;
                return;
            }
            let (status, body) = get(api, "/api/conversations?assignee=all", owner).await;
            assert_eq!(status, StatusCode::OK);
            let conversations = body["conversations"].as_array().unwrap();
            assert_eq!(conversations.len(), 8, "{body}");
            for conversation in conversations {
                let id = conversation["id"].as_str().unwrap();
                let path = format!("/api/conversations/{id}/messages");
                let (_, messages) = get(api, &path, owner).await;
                assert_eq!(
                    messages["messages"][0]["body"],
                    format!("for workspace {}", owner.workspace_id),
                    "{messages}"
                );
            }
        }
    });
    join_all(reads).await;

    // Another workspace's id is not found, and leaves no broken prepared state behind for the
    // next client of that connection.
    let (_, theirs) = get(api, "/api/conversations?assignee=all", &owners[1]).await;
    let their_id = theirs["conversations"][0]["id"].as_str().unwrap();
    let (status, _) = get(api, &format!("/api/conversations/{their_id}"), &owners[0]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    for owner in &owners {
        assert_reads_own_team(api, owner).await;
    }
}
