//! Behind PgBouncer (Debian's package, session pooling): the API sends no startup options,
//! the database's own settings give every session its empty `search_path`, and every tenant
//! read still stays in its tenant, over a handful of server connections shared by all.

use reqwest::StatusCode;
use serde_json::Value;
use supportdesk_test_support::pgbouncer::{self, PgBouncer, PoolMode, Upstream};
use url::Url;

use crate::helpers::{spawn_app, spawn_replica_with};

#[tokio::test]
async fn behind_pgbouncer_every_token_reads_its_own_workspace_only() {
    assert!(
        pgbouncer::binary().is_some(),
        "pgbouncer is not installed: .ci/test installs Debian's package"
    );
    let app = spawn_app().await;
    let owners = [
        app.owner_with_workspace("bouncer-acme").await,
        app.owner_with_workspace("bouncer-globex").await,
        app.owner_with_workspace("bouncer-initech").await,
    ];

    let url = Url::parse(app.database_url()).unwrap();
    let database = url.path().trim_start_matches('/').to_owned();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "ALTER DATABASE \"{database}\" SET search_path = '';
         ALTER DATABASE \"{database}\" SET plan_cache_mode = force_generic_plan"
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
    let bouncer = PgBouncer::start(&work, &upstream, PoolMode::Session, 6)
        .await
        .expect("pgbouncer starts");
    let through = format!(
        "postgres://{}:{}@127.0.0.1:{}/{database}?sslmode=disable",
        upstream.user, upstream.password, bouncer.port
    );
    let api = spawn_replica_with(
        &app,
        &[
            ("ConnectionStrings__DefaultConnection", through.as_str()),
            ("DATABASE_POOLER", "pgbouncer"),
            ("DATABASE_MAX_CONNECTIONS", "2"),
        ],
    )
    .await;

    let client = supportdesk_test_support::http_client();
    for round in 0..60 {
        let owner = &owners[round % owners.len()];
        let response = client
            .get(format!("{}/api/agents", api.address))
            .bearer_auth(&owner.workspace_token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let body: Value = response.json().await.unwrap();
        let agents = body["agents"].as_array().unwrap();
        assert_eq!(agents.len(), 1, "{body}");
        assert_eq!(agents[0]["userId"], owner.user_id.to_string(), "{body}");
    }
    let _ = std::fs::remove_dir_all(&work);
}
