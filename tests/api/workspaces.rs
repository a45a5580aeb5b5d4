//! `/workspaces`: create (with its schema), list, select; `/api/workspace`: read, delete.

use reqwest::StatusCode;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{TestApp, assert_problem, spawn_app, unique_email};

async fn schema_tables(app: &TestApp, workspace_id: Uuid) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
    )
    .bind(format!("ws_{}", workspace_id.simple()))
    .fetch_all(&app.db)
    .await
    .unwrap()
}

async fn tenant_schemas(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'ws\\_%'")
        .fetch_one(&app.db)
        .await
        .unwrap()
}

#[tokio::test]
async fn creating_a_workspace_provisions_its_schema_and_makes_the_caller_owner() {
    let app = spawn_app().await;
    let (token, user_id) = app.signed_up(&unique_email()).await;

    let response = app
        .create_workspace(&token, "Acme Support", Some("acme"))
        .await;

    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["name"], "Acme Support");
    assert_eq!(body["slug"], "acme");
    assert_eq!(body["role"], "admin");
    assert!(body["createdAt"].as_str().unwrap().ends_with('Z'));
    let id: Uuid = body["id"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        schema_tables(&app, id).await,
        [
            "agent_notices",
            "agent_profiles",
            "attachments",
            "audit_log",
            "canned_responses",
            "contact_labels",
            "contacts",
            "conversation_labels",
            "conversation_ratings",
            "conversation_reads",
            "conversations",
            "email_messages",
            "email_settings",
            "email_thread_ids",
            "event_batches",
            "event_log_head",
            "events",
            "labels",
            "messages",
            "rating_requests",
            "refinery_schema_history",
            "report_agent_days",
            "report_agent_hours",
            "report_cursor",
            "report_cycles",
            "report_hours",
            "report_label_agent_days",
            "report_label_agent_hours",
            "report_label_hours",
            "saved_views",
            "settings",
            "storage_usage",
            "ticket_comments",
            "tickets",
            "visitor_reply_emails",
            "webhook_attempts",
            "webhook_endpoints",
            "webhook_requests"
        ]
    );
    let version: i32 =
        sqlx::query_scalar("SELECT schema_version FROM public.workspaces WHERE id = $1")
            .bind(id)
            .fetch_one(&app.db)
            .await
            .unwrap();
    assert_eq!(
        version,
        supportdesk_core::tenancy::migrations::latest_version()
    );
    let profile: String = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT display_name FROM ws_{}.agent_profiles WHERE user_id = $1",
        id.simple()
    )))
    .bind(user_id)
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(profile, "Test User");
    let me: Value = app.me(&token).await.json().await.unwrap();
    assert_eq!(
        me["workspaces"],
        json!([{"id": id, "name": "Acme Support", "slug": "acme", "role": "admin"}])
    );
}

#[tokio::test]
async fn a_slug_is_derived_from_the_name_and_made_unique() {
    let app = spawn_app().await;
    let (token, _) = app.verified_user(&unique_email()).await;
    let first: Value = app
        .create_workspace(&token, "Acme Support!", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(first["slug"], "acme-support");
    let second = app.create_workspace(&token, "Acme  support", None).await;
    assert_eq!(second.status(), StatusCode::CREATED);
    let second: Value = second.json().await.unwrap();
    let slug = second["slug"].as_str().unwrap();
    assert!(
        slug.starts_with("acme-support-") && slug.len() == "acme-support-".len() + 4,
        "{slug}"
    );
}

#[tokio::test]
async fn a_taken_slug_is_a_conflict_and_creates_nothing() {
    let app = spawn_app().await;
    let (token, _) = app.verified_user(&unique_email()).await;
    app.create_workspace(&token, "Acme", Some("acme")).await;

    let response = app
        .create_workspace(&token, "Other Acme", Some("acme"))
        .await;

    assert_problem(response, StatusCode::CONFLICT, "slug_taken").await;
    assert_eq!(app.count("workspaces").await, 1);
    assert_eq!(tenant_schemas(&app).await, 1);
}

#[tokio::test]
async fn invalid_names_and_slugs_are_refused() {
    let app = spawn_app().await;
    let (token, _) = app.signed_up(&unique_email()).await;
    for (body, field) in [
        (json!({"name": "  "}), "name"),
        (json!({"name": "x".repeat(101)}), "name"),
        (json!({"name": "Acme", "slug": "Acme"}), "slug"),
        (json!({"name": "Acme", "slug": "ab"}), "slug"),
        (json!({"name": "Acme", "slug": "acme_support"}), "slug"),
    ] {
        let response = app.post_json("/workspaces", &body, Some(&token)).await;
        let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert!(problem["errors"][field].is_array(), "{problem}");
    }
    let response = app
        .post_json("/workspaces", &json!({"slug": "acme"}), Some(&token))
        .await;
    assert_problem(response, StatusCode::BAD_REQUEST, "invalid_body").await;
    assert_eq!(app.count("workspaces").await, 0);
    assert_eq!(tenant_schemas(&app).await, 0);
}

#[tokio::test]
async fn a_failure_while_provisioning_leaves_nothing_behind() {
    let app = spawn_app().await;
    let (token, _) = app.signed_up(&unique_email()).await;
    // The last step (the owner's membership) fails: the schema must roll back with the row.
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
    assert_eq!(tenant_schemas(&app).await, 0);
}

#[tokio::test]
async fn workspace_routes_take_user_tokens_only() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    assert_problem(
        app.get("/workspaces", None).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    assert_problem(
        app.get("/workspaces", Some(&owner.workspace_token)).await,
        StatusCode::FORBIDDEN,
        "wrong_token_type",
    )
    .await;
    let response = app
        .create_workspace(&owner.workspace_token, "Nested", None)
        .await;
    assert_problem(response, StatusCode::FORBIDDEN, "wrong_token_type").await;
    assert_problem(
        app.get("/api/workspace", Some(&owner.user_token)).await,
        StatusCode::FORBIDDEN,
        "wrong_token_type",
    )
    .await;
}

#[tokio::test]
async fn listing_shows_active_memberships_only() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let other = app.owner_with_workspace("globex").await;
    let (agent_token, agent_id) = app.signed_up(&unique_email()).await;
    app.add_member(owner.workspace_id, agent_id, "agent").await;
    app.add_member(other.workspace_id, agent_id, "agent").await;
    sqlx::query("UPDATE public.memberships SET status = 'deactivated' WHERE workspace_id = $1 AND user_id = $2")
        .bind(other.workspace_id)
        .bind(agent_id)
        .execute(&app.db)
        .await
        .unwrap();

    let body: Value = app
        .get("/workspaces", Some(&agent_token))
        .await
        .json()
        .await
        .unwrap();

    assert_eq!(
        body,
        json!({"workspaces": [{"id": owner.workspace_id, "name": "Workspace acme", "slug": "acme", "role": "agent"}]})
    );
}

#[tokio::test]
async fn selecting_returns_a_one_hour_workspace_token_for_that_tenant() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;

    let response = app
        .select(&owner.user_token, &owner.workspace_id.to_string())
        .await;

    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["workspace"],
        json!({"id": owner.workspace_id, "name": "Workspace acme", "slug": "acme", "role": "admin"})
    );
    let claims = app
        .state
        .jwt
        .decode(body["token"].as_str().unwrap())
        .unwrap();
    assert_eq!(claims.tid, Some(owner.workspace_id));
    assert_eq!(claims.role, Some(supportdesk::authz::Role::Owner));
    assert_eq!(claims.exp - claims.iat, 3600);
    let expires = time::OffsetDateTime::parse(
        body["expiresAt"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    assert_eq!(expires.unix_timestamp(), claims.exp);
    let current: Value = app
        .get("/api/workspace", Some(body["token"].as_str().unwrap()))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(current["id"], owner.workspace_id.to_string());
    assert_eq!(current["role"], "admin");
}

#[tokio::test]
async fn selecting_a_workspace_you_are_not_in_is_not_found() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let (stranger, _) = app.signed_up(&unique_email()).await;
    for id in [
        owner.workspace_id.to_string(),
        Uuid::new_v4().to_string(),
        "not-a-uuid".into(),
    ] {
        assert_problem(
            app.select(&stranger, &id).await,
            StatusCode::NOT_FOUND,
            "not_found",
        )
        .await;
    }
}

#[tokio::test]
async fn a_deactivated_member_cannot_select_the_workspace() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let (agent_token, agent_id) = app.signed_up(&unique_email()).await;
    app.add_member(owner.workspace_id, agent_id, "agent").await;
    sqlx::query("UPDATE public.memberships SET status = 'deactivated' WHERE user_id = $1")
        .bind(agent_id)
        .execute(&app.db)
        .await
        .unwrap();

    let response = app
        .select(&agent_token, &owner.workspace_id.to_string())
        .await;

    assert_problem(response, StatusCode::FORBIDDEN, "membership_deactivated").await;
}

#[tokio::test]
async fn only_an_owner_deletes_a_workspace_and_its_tokens_stop_working_at_once() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let (agent_user, agent_id) = app.signed_up(&unique_email()).await;
    app.add_member(owner.workspace_id, agent_id, "agent").await;
    let agent: Value = app
        .select(&agent_user, &owner.workspace_id.to_string())
        .await
        .json()
        .await
        .unwrap();
    let agent_token = agent["token"].as_str().unwrap();

    let response = app
        .client
        .delete(app.url("/api/workspace"))
        .bearer_auth(agent_token)
        .send()
        .await
        .unwrap();
    assert_problem(response, StatusCode::FORBIDDEN, "owner_only").await;

    let response = app
        .client
        .delete(app.url("/api/workspace"))
        .bearer_auth(&owner.workspace_token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    for token in [owner.workspace_token.as_str(), agent_token] {
        assert_problem(
            app.get("/api/workspace", Some(token)).await,
            StatusCode::FORBIDDEN,
            "workspace_deleted",
        )
        .await;
    }
    assert_problem(
        app.select(&owner.user_token, &owner.workspace_id.to_string())
            .await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    let queued: i64 =
        sqlx::query_scalar("SELECT count(*) FROM public.outbox WHERE kind = 'drop_workspace'")
            .fetch_one(&app.db)
            .await
            .unwrap();
    assert_eq!(queued, 1, "the data is dropped by a background job");
}
