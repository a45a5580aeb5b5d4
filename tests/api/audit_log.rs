//! The audit log over HTTP: every security-relevant action an Owner, a member or an API key
//! takes leaves one entry (who, from which address through the trusted proxy, what, on which
//! target, what changed, and never a secret), Owners read it filtered and paged or as CSV,
//! and nothing (no route, no statement of the application) can change or remove an entry.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app_with};

const CLIENT: &str = "203.0.113.7";

/// `method path` with the client's address forwarded by the trusted proxy; the JSON answer.
async fn act(app: &TestApp, method: Method, path: &str, body: Value, token: &str) -> Value {
    let response = app
        .client
        .request(method, app.url(path))
        .bearer_auth(token)
        .header("X-Forwarded-For", CLIENT)
        .json(&body)
        .send()
        .await
        .expect("request");
    let status = response.status();
    let text = response.text().await.expect("body");
    assert!(status.is_success(), "{path}: {status} {text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

async fn entries(app: &TestApp, token: &str, query: &str) -> Vec<Value> {
    let page = app
        .get_ok(&format!("/api/audit-log?limit=200{query}"), token)
        .await;
    page["entries"].as_array().expect("entries").clone()
}

fn of<'a>(entries: &'a [Value], action: &str) -> Vec<&'a Value> {
    entries.iter().filter(|e| e["action"] == action).collect()
}

#[tokio::test]
async fn every_listed_action_is_recorded_once_with_who_where_and_what_changed() {
    let app = spawn_app_with(&[("TRUSTED_PROXIES", "127.0.0.1/32,::1")]).await;
    let owner = app.owner_with_workspace("audited").await;
    let token = owner.workspace_token.clone();
    let member = app.member(&owner, "agent").await;
    let agent = member.agent_id;

    act(
        &app,
        Method::PUT,
        &format!("/api/agents/{agent}/role"),
        json!({"role": "admin"}),
        &token,
    )
    .await;
    act(
        &app,
        Method::POST,
        &format!("/api/agents/{agent}/deactivate"),
        json!({}),
        &token,
    )
    .await;
    act(
        &app,
        Method::POST,
        &format!("/api/agents/{agent}/reactivate"),
        json!({}),
        &token,
    )
    .await;
    let invited = act(
        &app,
        Method::POST,
        "/api/agents/invite",
        json!({"email": "later@example.com", "role": "agent"}),
        &token,
    )
    .await;
    let invitation = invited["invitation"]["id"].as_str().expect("id").to_owned();
    let response = app
        .send(
            Method::DELETE,
            &format!("/api/invitations/{invitation}"),
            None,
            Some(&token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let key = act(
        &app,
        Method::POST,
        "/api/settings/api-keys",
        json!({"name": "CRM"}),
        &token,
    )
    .await;
    let key_id = key["id"].as_str().expect("id").to_owned();
    let regenerated = act(
        &app,
        Method::POST,
        &format!("/api/settings/api-keys/{key_id}/regenerate"),
        json!({}),
        &token,
    )
    .await;
    // The key acts too: it makes a webhook, which the Owner changes, rotates and deletes.
    let key_secret = regenerated["key"].as_str().expect("key").to_owned();
    let hook = act(
        &app,
        Method::POST,
        "/api/webhooks",
        json!({"url": "https://hooks.example.com/in", "eventTypes": ["*"]}),
        &key_secret,
    )
    .await;
    let hook_id = hook["id"].as_str().expect("id").to_owned();
    let hook_secret = hook["secret"].as_str().expect("secret").to_owned();
    act(
        &app,
        Method::PATCH,
        &format!("/api/webhooks/{hook_id}"),
        json!({"enabled": false}),
        &token,
    )
    .await;
    let rotated = act(
        &app,
        Method::POST,
        &format!("/api/webhooks/{hook_id}/rotate-secret"),
        json!({}),
        &token,
    )
    .await;
    let response = app
        .send(
            Method::DELETE,
            &format!("/api/webhooks/{hook_id}"),
            None,
            Some(&token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let response = app
        .send(
            Method::DELETE,
            &format!("/api/settings/api-keys/{key_id}"),
            None,
            Some(&token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    act(
        &app,
        Method::PATCH,
        "/api/settings/widget",
        json!({"allowedOrigins": ["https://shop.example"]}),
        &token,
    )
    .await;
    act(
        &app,
        Method::POST,
        "/api/settings/widget/site-key/regenerate",
        json!({}),
        &token,
    )
    .await;
    let identity = act(
        &app,
        Method::POST,
        "/api/settings/widget/identity-secret/regenerate",
        json!({}),
        &token,
    )
    .await;
    act(
        &app,
        Method::PATCH,
        "/api/settings",
        json!({"branding": {"color": "#112233"}}),
        &token,
    )
    .await;
    act(
        &app,
        Method::PUT,
        "/api/settings/email",
        json!({"address": "help@acme.test", "smtp": {"host": "smtp.example.com", "port": 587,
               "tls": true, "user": "mailer", "password": "smtp-pass-12345"}}),
        &token,
    )
    .await;

    let log = entries(&app, &token, "").await;
    // Newest first, each with the client's address through the trusted proxy.
    assert_eq!(log[0]["action"], "email_settings.changed", "{log:#?}");
    for (action, count) in [
        ("member.signed_in", 2),
        ("member.invited", 2),
        ("member.joined", 1),
        ("member.role_changed", 1),
        ("member.deactivated", 1),
        ("member.reactivated", 1),
        ("invitation.revoked", 1),
        ("api_key.created", 1),
        ("api_key.regenerated", 1),
        ("api_key.revoked", 1),
        ("webhook.created", 1),
        ("webhook.changed", 1),
        ("webhook.secret_rotated", 1),
        ("webhook.deleted", 1),
        ("widget.settings_changed", 1),
        ("widget.site_key_regenerated", 1),
        ("widget.identity_secret_regenerated", 1),
        ("settings.changed", 1),
        ("email_settings.changed", 1),
    ] {
        assert_eq!(of(&log, action).len(), count, "{action}: {log:#?}");
    }
    let role = of(&log, "member.role_changed")[0];
    assert_eq!(role["actor"]["kind"], "user");
    assert_eq!(role["actor"]["id"], owner.user_id.to_string());
    assert_eq!(role["ip"], CLIENT);
    assert_eq!(
        role["target"],
        json!({"type": "member", "id": member.user_id.to_string()})
    );
    assert_eq!(
        role["changes"]["role"],
        json!({"from": "agent", "to": "admin"})
    );
    assert_eq!(role["changes"]["target"]["email"], member.email);
    let joined = of(&log, "member.joined")[0];
    assert_eq!(joined["actor"]["id"], member.user_id.to_string());
    let by_key = of(&log, "webhook.created")[0];
    assert_eq!(by_key["actor"]["kind"], "apiKey");
    assert_eq!(by_key["actor"]["name"], "CRM");
    assert_eq!(
        of(&log, "webhook.changed")[0]["changes"]["enabled"],
        json!({"from": true, "to": false})
    );
    let email = of(&log, "email_settings.changed")[0];
    assert_eq!(email["changes"]["address"]["to"], "help@acme.test");
    assert_eq!(email["changes"]["smtp.password"], "changed");
    assert_eq!(email["changes"]["smtp"]["to"]["host"], "smtp.example.com");
    assert_eq!(
        of(&log, "settings.changed")[0]["changes"]["branding"]["to"]["color"],
        "#112233"
    );

    // No secret reaches the log.
    let text = serde_json::to_string(&log).expect("json");
    for secret in [
        key["key"].as_str().expect("key"),
        key_secret.as_str(),
        hook_secret.as_str(),
        rotated["secret"].as_str().expect("secret"),
        identity["secret"].as_str().expect("secret"),
        "smtp-pass-12345",
    ] {
        assert!(!text.contains(secret), "a secret in the log: {secret}");
    }

    // Filters and pages.
    let roles = entries(&app, &token, "&action=member.role_changed").await;
    assert_eq!(roles.len(), 1);
    let by_member = entries(&app, &token, &format!("&actor={}", member.user_id)).await;
    assert!(
        by_member
            .iter()
            .all(|e| e["actor"]["id"] == member.user_id.to_string())
    );
    assert_eq!(by_member.len(), 2, "joined and signed in: {by_member:#?}");
    let future = entries(&app, &token, "&from=2999-01-01T00:00:00Z").await;
    assert!(future.is_empty());
    let first = app.get_ok("/api/audit-log?limit=5", &token).await;
    assert_eq!(first["entries"].as_array().expect("page").len(), 5);
    let cursor = first["nextCursor"].as_str().expect("more");
    let second = app
        .get_ok(&format!("/api/audit-log?limit=5&cursor={cursor}"), &token)
        .await;
    assert_eq!(second["entries"][0]["id"], log[5]["id"]);
    let response = app
        .get("/api/audit-log?action=member.ate_lunch", Some(&token))
        .await;
    let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    assert!(problem["errors"]["action"].is_array());

    // CSV: a header and a row per entry.
    let csv = app
        .client
        .get(app.url("/api/audit-log?action=api_key.created"))
        .bearer_auth(&token)
        .header("Accept", "text/csv")
        .send()
        .await
        .expect("csv");
    assert_eq!(csv.status(), StatusCode::OK);
    assert!(
        csv.headers()["content-type"]
            .to_str()
            .expect("type")
            .starts_with("text/csv")
    );
    let body = csv.text().await.expect("text");
    let lines: Vec<&str> = body.lines().collect();
    assert!(lines[0].starts_with("id,at,actor_kind,actor_id,actor_name,ip,action"));
    assert_eq!(lines.len(), 2, "{body}");
    assert!(lines[1].contains("api_key.created") && lines[1].contains(CLIENT));

    // Owners only: not agents, not API keys.
    let response = app
        .get("/api/audit-log", Some(&member.workspace_token))
        .await;
    // The member was made an Owner above: another agent is refused.
    assert_eq!(response.status(), StatusCode::OK);
    let agent = app.member(&owner, "agent").await;
    let response = app
        .get("/api/audit-log", Some(&agent.workspace_token))
        .await;
    assert_problem(response, StatusCode::FORBIDDEN, "owner_only").await;
    let (_, other_key) = app.api_key(&token).await;
    let response = app.get("/api/audit-log", Some(&other_key)).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);

    // Deletion requested: recorded in the transaction that marks the workspace.
    let response = app
        .send(Method::DELETE, "/api/workspace", None, Some(&token))
        .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let (schema,): (String,) =
        sqlx::query_as("SELECT schema_name FROM public.workspaces WHERE id = $1")
            .bind(owner.workspace_id)
            .fetch_one(&app.db)
            .await
            .expect("schema");
    let (requested,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM {schema}.audit_log WHERE action = 'workspace.deletion_requested'"
    )))
    .fetch_one(&app.db)
    .await
    .expect("count");
    assert_eq!(requested, 1);
}

#[tokio::test]
async fn entries_cannot_be_changed_or_removed_by_the_application() {
    let app = spawn_app_with(&[]).await;
    let owner = app.owner_with_workspace("audit-sealed").await;
    let (schema,): (String,) =
        sqlx::query_as("SELECT schema_name FROM public.workspaces WHERE id = $1")
            .bind(owner.workspace_id)
            .fetch_one(&app.db)
            .await
            .expect("schema");
    let (count,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM {schema}.audit_log"
    )))
    .fetch_one(&app.db)
    .await
    .expect("count");
    assert_eq!(count, 1, "the Owner's sign-in");
    for statement in [
        format!("UPDATE {schema}.audit_log SET action = 'nothing'"),
        format!("DELETE FROM {schema}.audit_log"),
        format!("TRUNCATE {schema}.audit_log"),
    ] {
        let refused = sqlx::query(sqlx::AssertSqlSafe(statement.clone()))
            .execute(&app.db)
            .await
            .expect_err("refused");
        assert!(
            refused.to_string().contains("append-only"),
            "{statement}: {refused}"
        );
    }
    // Older than the retention, the worker's pruning may delete.
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "ALTER TABLE {schema}.audit_log DISABLE TRIGGER audit_log_append_only"
    )))
    .execute(&app.db)
    .await
    .expect("as the operator, for the test");
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE {schema}.audit_log SET at = now() - interval '400 days'"
    )))
    .execute(&app.db)
    .await
    .expect("aged");
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "ALTER TABLE {schema}.audit_log ENABLE TRIGGER audit_log_append_only"
    )))
    .execute(&app.db)
    .await
    .expect("back on");
    let deleted = sqlx::query(sqlx::AssertSqlSafe(format!(
        "DELETE FROM {schema}.audit_log WHERE at < now() - interval '1 year'"
    )))
    .execute(&app.db)
    .await
    .expect("a year old may go")
    .rows_affected();
    assert_eq!(deleted, 1);

    // No route changes or removes an entry: the log has one path, and it only reads.
    let openapi: Value = app
        .client
        .get(app.url("/openapi.json"))
        .send()
        .await
        .expect("openapi")
        .json()
        .await
        .expect("json");
    let audit_paths: Vec<(&String, Vec<&String>)> = openapi["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .filter(|(path, _)| path.contains("audit"))
        .map(|(path, item)| (path, item.as_object().expect("item").keys().collect()))
        .collect();
    assert_eq!(audit_paths.len(), 1, "{audit_paths:?}");
    assert_eq!(audit_paths[0].1, [&"get".to_owned()]);
}
