use reqwest::StatusCode;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{TestApp, assert_problem, spawn_app, unique_email};

async fn add_membership(
    app: &TestApp,
    user_id: Uuid,
    slug: &str,
    role: &str,
    status: &str,
) -> Uuid {
    let workspace_id = Uuid::new_v4();
    sqlx::query(
        "INSERT INTO public.workspaces (id, name, slug, schema_name) VALUES ($1, $2, $3, $4)",
    )
    .bind(workspace_id)
    .bind(format!("Workspace {slug}"))
    .bind(slug)
    .bind(format!("ws_{}", workspace_id.simple()))
    .execute(&app.db)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO public.memberships (workspace_id, user_id, role, status) VALUES ($1, $2, $3, $4)",
    )
    .bind(workspace_id)
    .bind(user_id)
    .bind(role)
    .bind(status)
    .execute(&app.db)
    .await
    .unwrap();
    workspace_id
}

#[tokio::test]
async fn me_returns_the_user_and_no_workspaces_after_signup() {
    let app = spawn_app().await;
    let email = unique_email();
    let (token, user_id) = app.signed_up(&email).await;

    let response = app.me(&token).await;

    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["id"], user_id.to_string());
    assert_eq!(body["email"], email);
    assert_eq!(body["fullName"], "Test User");
    assert_eq!(body["emailVerified"], false);
    assert!(body["createdAt"].is_string());
    assert_eq!(body["workspaces"], json!([]));
}

#[tokio::test]
async fn me_lists_active_memberships_only() {
    let app = spawn_app().await;
    let (token, user_id) = app.signed_up(&unique_email()).await;
    let owned = add_membership(&app, user_id, "acme", "admin", "active").await;
    let agent = add_membership(&app, user_id, "globex", "agent", "active").await;
    add_membership(&app, user_id, "initech", "agent", "deactivated").await;

    let body: Value = app.me(&token).await.json().await.unwrap();

    assert_eq!(
        body["workspaces"],
        json!([
            {"id": owned, "name": "Workspace acme", "slug": "acme", "role": "admin"},
            {"id": agent, "name": "Workspace globex", "slug": "globex", "role": "agent"},
        ])
    );
}

#[tokio::test]
async fn me_accepts_a_workspace_token() {
    let app = spawn_app().await;
    let (_, user_id) = app.signed_up(&unique_email()).await;
    let workspace = add_membership(&app, user_id, "acme", "admin", "active").await;
    let keys = supportdesk::credentials::jwt::JwtKeys::new(
        app.settings.application.jwt_secret.as_ref().unwrap(),
    );
    let token = keys
        .issue_workspace(user_id, workspace, supportdesk::authz::Role::Owner, 0)
        .unwrap()
        .token;

    let response = app.me(&token).await;

    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["id"], user_id.to_string());
}

#[tokio::test]
async fn me_without_a_token_is_unauthorized() {
    let app = spawn_app().await;
    let response = app.get("/auth/me", None).await;
    assert_eq!(response.headers()["www-authenticate"], "Bearer");
    assert_problem(response, StatusCode::UNAUTHORIZED, "unauthorized").await;

    let response = app
        .client
        .get(app.url("/auth/me"))
        .header("authorization", "Basic dXNlcjpwYXNz")
        .send()
        .await
        .unwrap();
    assert_problem(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn me_for_a_deleted_account_is_unauthorized() {
    let app = spawn_app().await;
    let (token, user_id) = app.signed_up(&unique_email()).await;
    sqlx::query("DELETE FROM public.users WHERE id = $1")
        .bind(user_id)
        .execute(&app.db)
        .await
        .unwrap();
    assert_problem(
        app.me(&token).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
}
