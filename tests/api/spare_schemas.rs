//! `POST /workspaces` with spare schemas made ahead of time: concurrent creates each take a
//! different spare or make their own schema, every workspace works either way, and a create
//! that fails gives its spare back.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use supportdesk_core::tenancy::migrations::{TenantMigrations, latest_version};
use supportdesk_core::tenancy::spares::{SpareSchema, make_spare};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use uuid::Uuid;

use crate::helpers::{TestApp, assert_problem, spawn_app, unique_email};

async fn make_spares(app: &TestApp, count: usize) -> Vec<SpareSchema> {
    let mut made = Vec::new();
    for _ in 0..count {
        made.push(
            make_spare(&app.db, &TenantMigrations::embedded())
                .await
                .unwrap(),
        );
    }
    made
}

/// The schema's oid: a renamed schema keeps it.
async fn schema_oid(app: &TestApp, name: &str) -> Option<i64> {
    sqlx::query_scalar("SELECT oid::int8 FROM pg_namespace WHERE nspname = $1")
        .bind(name)
        .fetch_optional(&app.db)
        .await
        .unwrap()
}

async fn listed_spares(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar("SELECT schema_name FROM public.spare_schemas ORDER BY 1")
        .fetch_all(&app.db)
        .await
        .unwrap()
}

/// The tables a fully migrated workspace schema holds (refinery's history among them).
const TENANT_TABLES: i64 = 38;

async fn table_count(app: &TestApp, schema: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM information_schema.tables WHERE table_schema = $1")
        .bind(schema)
        .fetch_one(&app.db)
        .await
        .unwrap()
}

/// Creates a workspace as a new account; its id and creation time.
async fn create_as_new_user(app: &TestApp, token: &str, name: &str) -> (Uuid, OffsetDateTime) {
    let response = app.create_workspace(token, name, None).await;
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, StatusCode::CREATED, "{body}");
    (
        body["id"].as_str().unwrap().parse().unwrap(),
        OffsetDateTime::parse(body["createdAt"].as_str().unwrap(), &Rfc3339).unwrap(),
    )
}

/// The workspace serves its owner: a conversation (the identity sequence), the agents, the
/// settings dated no earlier than the workspace.
async fn assert_workspace_works(
    app: &TestApp,
    user_token: &str,
    id: Uuid,
    created_at: OffsetDateTime,
) {
    let selected: Value = app
        .select(user_token, &id.to_string())
        .await
        .json()
        .await
        .unwrap();
    let token = selected["token"].as_str().unwrap();
    let conversation = app
        .json_ok(
            Method::POST,
            "/api/conversations",
            &json!({"contact": {"email": "visitor@example.com"}, "body": "Hello"}),
            token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(conversation["number"], 1, "{conversation}");
    assert_eq!(app.agents(token).await.len(), 1);
    let settings = app.get_ok("/api/settings", token).await;
    let updated = OffsetDateTime::parse(settings["updatedAt"].as_str().unwrap(), &Rfc3339).unwrap();
    // The API answers in milliseconds.
    assert!(
        updated >= created_at - time::Duration::milliseconds(1),
        "{settings}"
    );
}

#[tokio::test]
async fn concurrent_creates_each_take_another_spare_or_make_their_own_schema() {
    let app = spawn_app().await;
    let spares = make_spares(&app, 5).await;
    let mut spare_oids = Vec::new();
    for spare in &spares {
        spare_oids.push(schema_oid(&app, spare.name()).await.unwrap());
    }
    let mut tokens = Vec::new();
    for _ in 0..8 {
        tokens.push(app.signed_up(&unique_email()).await.0);
    }

    let names: Vec<String> = (0..tokens.len()).map(|i| format!("Team {i}")).collect();
    let created = futures::future::join_all(
        tokens
            .iter()
            .zip(&names)
            .map(|(token, name)| create_as_new_user(&app, token, name)),
    )
    .await;

    let mut claimed = Vec::new();
    for (token, (id, created_at)) in tokens.iter().zip(&created) {
        let schema = format!("ws_{}", id.simple());
        let oid = schema_oid(&app, &schema).await.expect("its schema exists");
        assert_eq!(table_count(&app, &schema).await, TENANT_TABLES, "{schema}");
        if spare_oids.contains(&oid) {
            claimed.push(oid);
        }
        assert_workspace_works(&app, token, *id, *created_at).await;
    }
    claimed.sort();
    claimed.dedup();
    assert_eq!(claimed.len(), 5, "every spare taken, none twice");
    assert!(listed_spares(&app).await.is_empty());
    for spare in &spares {
        assert_eq!(schema_oid(&app, spare.name()).await, None, "{spare}");
    }
    assert_eq!(app.count("workspaces").await, 8);
}

#[tokio::test]
async fn a_create_that_fails_gives_its_spare_back() {
    let app = spawn_app().await;
    let spare = make_spares(&app, 1).await.remove(0);
    let spare_oid = schema_oid(&app, spare.name()).await;
    let (token, _) = app.verified_user(&unique_email()).await;
    // The last step (the owner's membership) fails, after the spare was claimed and renamed.
    sqlx::query("ALTER TABLE public.memberships ADD CONSTRAINT refuse_all CHECK (false) NOT VALID")
        .execute(&app.db)
        .await
        .unwrap();

    let response = app.create_workspace(&token, "Acme", Some("acme")).await;

    assert_problem(
        response,
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal_error",
    )
    .await;
    assert_eq!(app.count("workspaces").await, 0);
    assert_eq!(listed_spares(&app).await, [spare.name()]);
    assert_eq!(
        schema_oid(&app, spare.name()).await,
        spare_oid,
        "not renamed"
    );
    assert_eq!(table_count(&app, spare.name()).await, TENANT_TABLES);

    // A taken slug: refused before any spare is touched.
    sqlx::query("ALTER TABLE public.memberships DROP CONSTRAINT refuse_all")
        .execute(&app.db)
        .await
        .unwrap();
    let spare_two = make_spares(&app, 1).await.remove(0);
    let first = app.create_workspace(&token, "Acme", Some("acme")).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let taken = app.create_workspace(&token, "Acme", Some("acme")).await;
    assert_problem(taken, StatusCode::CONFLICT, "slug_taken").await;
    assert_eq!(
        listed_spares(&app).await,
        [spare_two.name()],
        "the first create took the older spare; the refused one took none"
    );
}

#[tokio::test]
async fn creating_works_with_no_spare_and_never_takes_a_stale_one() {
    let app = spawn_app().await;
    let (token, _) = app.signed_up(&unique_email()).await;
    let (id, created_at) = create_as_new_user(&app, &token, "Without spares").await;
    assert_eq!(
        table_count(&app, &format!("ws_{}", id.simple())).await,
        TENANT_TABLES
    );
    assert_workspace_works(&app, &token, id, created_at).await;

    // A spare of an older tenant version (made before an upgrade) stays where it is.
    let stale = make_spares(&app, 1).await.remove(0);
    sqlx::query("UPDATE public.spare_schemas SET schema_version = $1")
        .bind(latest_version() - 1)
        .execute(&app.db)
        .await
        .unwrap();
    let stale_oid = schema_oid(&app, stale.name()).await;
    let (other, _) = app.signed_up(&unique_email()).await;
    let (id, _) = create_as_new_user(&app, &other, "Still without").await;
    assert_ne!(
        schema_oid(&app, &format!("ws_{}", id.simple())).await,
        stale_oid
    );
    assert_eq!(listed_spares(&app).await, [stale.name()]);
}
