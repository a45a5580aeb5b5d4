//! Tenant isolation and per-request tenant selection.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    TestApp, assert_problem, spawn_app, spawn_app_with, spawn_replica, unique_email,
};

async fn brand(app: &TestApp, workspace_id: uuid::Uuid, name: &str) {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE ws_{}.settings SET branding = $1",
        workspace_id.simple()
    )))
    .bind(json!({ "name": name }))
    .execute(&app.db)
    .await
    .unwrap();
}

async fn branding_seen(app: &TestApp, token: &str) -> (StatusCode, Option<String>) {
    let response = app.get("/api/workspace", Some(token)).await;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or_default();
    (status, body["branding"]["name"].as_str().map(str::to_owned))
}

#[tokio::test]
async fn each_token_reads_its_own_tenant_only() {
    let app = spawn_app().await;
    let acme = app.owner_with_workspace("acme").await;
    let globex = app.owner_with_workspace("globex").await;
    let initech = app.owner_with_workspace("initech").await;
    brand(&app, acme.workspace_id, "Acme").await;
    brand(&app, globex.workspace_id, "Globex").await;

    assert_eq!(
        branding_seen(&app, &acme.workspace_token).await,
        (StatusCode::OK, Some("Acme".into()))
    );
    assert_eq!(
        branding_seen(&app, &globex.workspace_token).await,
        (StatusCode::OK, Some("Globex".into()))
    );
    assert_eq!(
        branding_seen(&app, &initech.workspace_token).await,
        (StatusCode::OK, None)
    );
    // Another tenant's id is simply not there for you.
    assert_problem(
        app.select(&acme.user_token, &globex.workspace_id.to_string())
            .await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
}

#[tokio::test]
async fn a_forged_tenant_claim_is_refused() {
    let app = spawn_app().await;
    let acme = app.owner_with_workspace("acme").await;
    let globex = app.owner_with_workspace("globex").await;
    // A genuine token (signed by us) for a workspace the user is not a member of.
    let token = app
        .state
        .jwt
        .issue_workspace(
            acme.user_id,
            globex.workspace_id,
            supportdesk::authz::Role::Owner,
            0,
        )
        .unwrap()
        .token;
    assert_problem(
        app.get("/api/workspace", Some(&token)).await,
        StatusCode::FORBIDDEN,
        "not_a_member",
    )
    .await;
}

#[tokio::test]
async fn one_pooled_connection_never_carries_a_tenant_into_another_request() {
    // Every request shares a single connection: cancelled requests (the client gives up
    // mid-transaction) and failed transactions must not leave a tenant's search_path behind.
    let app = spawn_app_with(&[("DATABASE_MAX_CONNECTIONS", "1")]).await;
    let acme = app.owner_with_workspace("acme").await;
    let globex = app.owner_with_workspace("globex").await;
    let broken = app.owner_with_workspace("broken").await;
    brand(&app, acme.workspace_id, "Acme").await;
    brand(&app, globex.workspace_id, "Globex").await;
    // This tenant's queries fail inside their transaction.
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP TABLE ws_{}.settings",
        broken.workspace_id.simple()
    )))
    .execute(&app.db)
    .await
    .unwrap();
    let impatient = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_millis(2))
        .build()
        .unwrap();

    for round in 0..30 {
        let cancelled = impatient
            .get(app.url("/api/workspace"))
            .bearer_auth(if round % 2 == 0 {
                &acme.workspace_token
            } else {
                &globex.workspace_token
            })
            .send();
        let (_, failed, a, g) = tokio::join!(
            cancelled,
            app.get("/api/workspace", Some(&broken.workspace_token)),
            branding_seen(&app, &acme.workspace_token),
            branding_seen(&app, &globex.workspace_token),
        );
        assert_eq!(
            failed.status(),
            StatusCode::INTERNAL_SERVER_ERROR,
            "round {round}"
        );
        assert_eq!(a, (StatusCode::OK, Some("Acme".into())), "round {round}");
        assert_eq!(g, (StatusCode::OK, Some("Globex".into())), "round {round}");
    }
}

#[tokio::test]
async fn a_deactivated_member_is_refused_at_once_on_every_replica() {
    let app = spawn_app().await;
    let replica = spawn_replica(&app).await;
    let owner = app.owner_with_workspace("acme").await;
    let (agent_user, agent_id) = app.signed_up(&unique_email()).await;
    app.add_member(owner.workspace_id, agent_id, "agent").await;
    let selected: Value = app
        .select(&agent_user, &owner.workspace_id.to_string())
        .await
        .json()
        .await
        .unwrap();
    let token = selected["token"].as_str().unwrap().to_owned();
    let on_replica = |token: String| {
        let client = app.client.clone();
        let url = format!("{}/api/workspace", replica.address);
        async move { client.get(url).bearer_auth(token).send().await.unwrap() }
    };
    // Both processes have the active membership cached now.
    assert_eq!(
        app.get("/api/workspace", Some(&token)).await.status(),
        StatusCode::OK
    );
    assert_eq!(on_replica(token.clone()).await.status(), StatusCode::OK);

    // Deactivated through the first process (as the team endpoints do).
    sqlx::query("UPDATE public.memberships SET status = 'deactivated' WHERE user_id = $1")
        .bind(agent_id)
        .execute(&app.db)
        .await
        .unwrap();
    app.state
        .memberships
        .changed(agent_id, owner.workspace_id)
        .await;

    assert_problem(
        app.get("/api/workspace", Some(&token)).await,
        StatusCode::FORBIDDEN,
        "membership_deactivated",
    )
    .await;
    // The replica hears of it through Redis well before its cache entry would expire.
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    loop {
        let response = on_replica(token.clone()).await;
        if response.status() == StatusCode::FORBIDDEN {
            assert_problem(response, StatusCode::FORBIDDEN, "membership_deactivated").await;
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the replica still lets the agent in"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn role_changes_take_effect_on_the_next_request() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    sqlx::query("UPDATE public.memberships SET role = 'agent' WHERE user_id = $1")
        .bind(owner.user_id)
        .execute(&app.db)
        .await
        .unwrap();
    app.state
        .memberships
        .changed(owner.user_id, owner.workspace_id)
        .await;

    // The token still says admin; the membership decides.
    let body: Value = app
        .get("/api/workspace", Some(&owner.workspace_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(body["role"], "agent");
    let response = app
        .client
        .delete(app.url("/api/workspace"))
        .bearer_auth(&owner.workspace_token)
        .send()
        .await
        .unwrap();
    assert_problem(response, StatusCode::FORBIDDEN, "owner_only").await;
}

#[tokio::test]
async fn a_request_abandoned_mid_begin_leaves_the_pooled_connection_clean() {
    use tokio::io::AsyncWriteExt;
    // One connection; clients hang up 50 to 1000 microseconds after sending, some of them
    // while the tenant transaction's BEGIN is on the wire.
    let app = spawn_app_with(&[("DATABASE_MAX_CONNECTIONS", "1")]).await;
    let acme = app.owner_with_workspace("acme").await;
    brand(&app, acme.workspace_id, "Acme").await;
    assert_eq!(
        branding_seen(&app, &acme.workspace_token).await.0,
        StatusCode::OK
    );
    let address = app.address.trim_start_matches("http://").to_owned();
    let request = format!(
        "GET /api/workspace HTTP/1.1\r\nHost: desk\r\nAuthorization: Bearer {}\r\n\r\n",
        acme.workspace_token
    );
    let mut stranded = Vec::new();
    for round in 0..400u64 {
        let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        // A timer cannot wait microseconds; spin.
        let until = std::time::Instant::now() + Duration::from_micros(50 + (round % 40) * 25);
        while std::time::Instant::now() < until {
            std::hint::spin_loop();
        }
        drop(stream);
        tokio::time::sleep(Duration::from_millis(3)).await;
        // The pool's only connection, as the next request would get it.
        let path: String = sqlx::query_scalar("SELECT current_setting('search_path')")
            .fetch_one(&app.state.db)
            .await
            .unwrap();
        let in_transaction = sqlx::raw_sql("SAVEPOINT probe")
            .execute(&app.state.db)
            .await
            .is_ok();
        if path.contains("ws_") || in_transaction {
            stranded.push((round, path));
            sqlx::raw_sql("ROLLBACK")
                .execute(&app.state.db)
                .await
                .unwrap();
        }
    }
    assert!(
        stranded.is_empty(),
        "connections left in a tenant's transaction: {stranded:?}"
    );
}

#[tokio::test]
async fn a_workspace_behind_on_migrations_is_refused_clearly_until_migrated() {
    let app = spawn_app().await;
    let acme = app.owner_with_workspace("acme").await;
    // As if an older replica provisioned it after this version's migrations ran.
    sqlx::query("UPDATE public.workspaces SET schema_version = 0 WHERE id = $1")
        .bind(acme.workspace_id)
        .execute(&app.db)
        .await
        .unwrap();
    app.state
        .memberships
        .workspace_changed(acme.workspace_id)
        .await;

    let response = app.get("/api/workspace", Some(&acme.workspace_token)).await;
    let body = assert_problem(response, StatusCode::SERVICE_UNAVAILABLE, "unavailable").await;
    assert!(
        body["detail"].as_str().unwrap().contains("upgraded"),
        "{body}"
    );

    let pool = app.state.db.clone();
    let report = supportdesk_core::tenancy::migrations::migrate_all(
        &pool,
        &supportdesk_core::tenancy::migrations::Selection::default(),
        1,
        std::sync::Arc::new(|_| {}),
    )
    .await
    .unwrap();
    assert_eq!(report.migrated, 1);
    app.state
        .memberships
        .workspace_changed(acme.workspace_id)
        .await;
    assert_eq!(
        app.get("/api/workspace", Some(&acme.workspace_token))
            .await
            .status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn pooled_connections_have_an_empty_search_path_so_unqualified_names_fail() {
    let app = spawn_app().await;
    app.owner_with_workspace("acme").await;
    let pool = &app.state.db;
    let path: String = sqlx::query_scalar("SELECT current_setting('search_path')")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(
        path, "",
        "the API's pool starts every session with no schema"
    );
    for unqualified in [
        "SELECT count(*) FROM users",
        "SELECT count(*) FROM agent_profiles",
    ] {
        let err = sqlx::query(unqualified)
            .execute(pool)
            .await
            .expect_err("an unqualified name names nothing");
        let code = err
            .as_database_error()
            .and_then(sqlx::error::DatabaseError::code)
            .map(std::borrow::Cow::into_owned);
        assert_eq!(code.as_deref(), Some("42P01"), "{unqualified}: {err}");
    }
    let users: i64 = sqlx::query_scalar("SELECT count(*) FROM public.users")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(
        users, 1,
        "control-plane tables are reached by their qualified name"
    );
}

#[tokio::test]
async fn behind_a_pooler_a_session_must_still_start_with_an_empty_search_path() {
    // A transaction-mode pooler forwards no startup options: the empty search_path must come
    // from the database's settings, and a pool without it refuses to hand out a connection.
    let app = spawn_app().await;
    let mut database = app.state.settings.database.clone();
    database.tuning.pooler = supportdesk_core::config::Pooler::PgBouncer;
    let reads = supportdesk_core::db::ReadPool::new(&database, 1).unwrap();
    let schema = supportdesk_core::tenancy::TenantSchema::for_workspace(uuid::Uuid::new_v4());
    let err = reads
        .get(&schema)
        .await
        .err()
        .expect("the server's default search_path is not empty");
    assert!(err.to_string().contains("empty search_path"), "{err}");
    // sqlx's pool logs the same error and keeps retrying until its acquire timeout.
    let pool = supportdesk_core::db::pool(&database, 1);
    assert!(sqlx::query("SELECT 1").execute(&pool).await.is_err());

    let name = database.database_name().unwrap().to_owned();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "ALTER DATABASE \"{name}\" SET search_path = ''"
    )))
    .execute(&app.db)
    .await
    .unwrap();
    if supportdesk_test_support::citus::cluster_mode() {
        // On a Citus coordinator the database must also plan every execution.
        let err = supportdesk_core::db::ReadPool::new(&database, 1)
            .unwrap()
            .get(&schema)
            .await
            .err()
            .expect("generic plans are refused on Citus");
        assert!(err.to_string().contains("force_custom_plan"), "{err}");
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "ALTER DATABASE \"{name}\" SET plan_cache_mode = force_custom_plan"
        )))
        .execute(&app.db)
        .await
        .unwrap();
    }
    let pool = supportdesk_core::db::pool(&database, 1);
    let path: String = sqlx::query_scalar("SELECT current_setting('search_path')")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(path.is_empty() || path == "\"\"", "{path}");
    let mut read = supportdesk_core::db::ReadPool::new(&database, 1)
        .unwrap()
        .get(&schema)
        .await
        .unwrap();
    let one: i32 = sqlx::query_scalar("SELECT 1")
        .fetch_one(&mut *read)
        .await
        .unwrap();
    assert_eq!(one, 1);
}
