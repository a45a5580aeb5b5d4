//! Webhook endpoints over HTTP: made, listed, changed, rotated and deleted by Owners and API
//! keys (never agents, never another workspace), their URLs and event types checked (https
//! only unless the operator allows http; never an internal address written in the URL), at
//! most 20 a workspace, the secret shown once in the Standard Webhooks form and sealed at rest,
//! and the delivery log and hand-made requests.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app, spawn_app_with};

fn endpoint(url: &str) -> Value {
    json!({"url": url, "description": "CRM sync", "eventTypes": ["message.created"]})
}

#[tokio::test]
async fn owners_and_keys_keep_endpoints_whose_secret_is_shown_once_and_sealed() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hooks").await;
    let token = &owner.workspace_token;

    let created = app
        .json_ok(
            Method::POST,
            "/api/webhooks",
            &endpoint("https://hooks.example.com/in"),
            token,
            StatusCode::CREATED,
        )
        .await;
    let id = created["id"].as_str().expect("id").to_owned();
    let secret = created["secret"].as_str().expect("secret").to_owned();
    assert!(secret.starts_with("whsec_"), "{secret}");
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&secret["whsec_".len()..])
        .expect("base64");
    assert_eq!(bytes.len(), 24);
    assert_eq!(created["state"], "healthy");
    assert_eq!(created["enabled"], true);
    assert_eq!(created["eventTypes"], json!(["message.created"]));

    // Listed and read without the secret; sealed at rest.
    let listed = app.get_ok("/api/webhooks", token).await;
    assert_eq!(listed["webhooks"].as_array().expect("list").len(), 1);
    assert!(listed["webhooks"][0].get("secret").is_none());
    assert!(!listed.to_string().contains(&secret));
    let (schema,): (String,) =
        sqlx::query_as("SELECT schema_name FROM public.workspaces WHERE id = $1")
            .bind(owner.workspace_id)
            .fetch_one(&app.db)
            .await
            .expect("schema");
    let (sealed,): (Vec<u8>,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT secret_sealed FROM {schema}.webhook_endpoints"
    )))
    .fetch_one(&app.db)
    .await
    .expect("sealed");
    assert!(!sealed.windows(8).any(|w| bytes.windows(8).any(|b| b == w)));
    let (listed_workspaces,): (i32,) =
        sqlx::query_as("SELECT endpoints FROM public.webhook_workspaces WHERE workspace_id = $1")
            .bind(owner.workspace_id)
            .fetch_one(&app.db)
            .await
            .expect("the control plane lists the workspace");
    assert_eq!(listed_workspaces, 1);

    // An API key manages them too; a PATCH changes what it names.
    let (_, key) = app.api_key(token).await;
    let changed = app
        .json_ok(
            Method::PATCH,
            &format!("/api/webhooks/{id}"),
            &json!({"eventTypes": ["*"], "enabled": false}),
            &key,
            StatusCode::OK,
        )
        .await;
    assert_eq!(changed["eventTypes"], json!(["*"]));
    assert_eq!(changed["state"], "disabled");
    assert_eq!(changed["description"], "CRM sync");

    // Rotation: a new secret, the previous kept beside it for a day.
    let rotated = app
        .json_ok(
            Method::POST,
            &format!("/api/webhooks/{id}/rotate-secret"),
            &json!({}),
            token,
            StatusCode::OK,
        )
        .await;
    let new_secret = rotated["secret"].as_str().expect("secret");
    assert!(new_secret.starts_with("whsec_") && new_secret != secret);
    let (previous, hours): (Option<Vec<u8>>, f64) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT previous_secret_sealed,
                extract(epoch FROM previous_until - now())::float8 / 3600
           FROM {schema}.webhook_endpoints"
    )))
    .fetch_one(&app.db)
    .await
    .expect("rotation");
    assert_eq!(previous, Some(sealed));
    assert!((23.9..=24.0).contains(&hours), "{hours}");

    // A test request shows as pending in the log until the worker sends it.
    let test = app
        .json_ok(
            Method::POST,
            &format!("/api/webhooks/{id}/test"),
            &json!({}),
            token,
            StatusCode::ACCEPTED,
        )
        .await;
    let log = app
        .get_ok(&format!("/api/webhooks/{id}/deliveries"), token)
        .await;
    assert_eq!(log["deliveries"][0]["status"], "pending", "{log}");
    assert_eq!(log["deliveries"][0]["eventId"], test["eventId"]);
    assert_eq!(log["deliveries"][0]["eventType"], "webhook.test");
    // Retrying what is still queued changes nothing.
    let pending = log["deliveries"][0]["id"].as_str().expect("id");
    let again = app
        .json_ok(
            Method::POST,
            &format!("/api/webhooks/{id}/deliveries/{pending}/retry"),
            &json!({}),
            token,
            StatusCode::ACCEPTED,
        )
        .await;
    assert_eq!(again["eventId"], test["eventId"]);
    let log = app
        .get_ok(&format!("/api/webhooks/{id}/deliveries"), token)
        .await;
    assert_eq!(log["deliveries"].as_array().expect("log").len(), 1);

    // Agents may not; another workspace sees nothing of it.
    let agent = app.member(&owner, "agent").await;
    let response = app.get("/api/webhooks", Some(&agent.workspace_token)).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let other = app.owner_with_workspace("hooks-other").await;
    for (method, path) in [
        (Method::GET, format!("/api/webhooks/{id}")),
        (Method::DELETE, format!("/api/webhooks/{id}")),
        (Method::POST, format!("/api/webhooks/{id}/rotate-secret")),
        (Method::GET, format!("/api/webhooks/{id}/deliveries")),
    ] {
        let response = app
            .send(method, &path, None, Some(&other.workspace_token))
            .await;
        assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
    }

    // Deleted: gone from the list and from the control plane's.
    let response = app
        .send(
            Method::DELETE,
            &format!("/api/webhooks/{id}"),
            None,
            Some(token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        app.get_ok("/api/webhooks", token).await["webhooks"],
        json!([])
    );
    let left: Option<(i32,)> =
        sqlx::query_as("SELECT endpoints FROM public.webhook_workspaces WHERE workspace_id = $1")
            .bind(owner.workspace_id)
            .fetch_optional(&app.db)
            .await
            .expect("query");
    assert_eq!(left, None);
}

#[tokio::test]
async fn bad_endpoints_are_refused_with_the_field_and_change_nothing() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hooks-checks").await;
    let token = &owner.workspace_token;
    for (body, field) in [
        (endpoint("http://hooks.example.com/in"), "url"),
        (endpoint("ftp://hooks.example.com/in"), "url"),
        (endpoint("not a url"), "url"),
        (endpoint("https://user:pass@hooks.example.com/in"), "url"),
        (endpoint("https://127.0.0.1/in"), "url"),
        (endpoint("https://169.254.169.254/latest/meta-data"), "url"),
        (endpoint("https://[::1]/in"), "url"),
        (endpoint("https://10.0.0.8/in"), "url"),
        (
            json!({"url": "https://hooks.example.com", "eventTypes": ["message.sent"]}),
            "eventTypes",
        ),
        (
            json!({"url": "https://hooks.example.com", "eventTypes": []}),
            "eventTypes",
        ),
        (
            json!({"url": "https://hooks.example.com", "eventTypes": ["*"],
                   "description": "x".repeat(501)}),
            "description",
        ),
    ] {
        let response = app
            .send(Method::POST, "/api/webhooks", Some(&body), Some(token))
            .await;
        let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert!(problem["errors"][field].is_array(), "{body}: {problem}");
    }
    // Missing fields and bad JSON speak the same error format.
    let response = app
        .send(
            Method::POST,
            "/api/webhooks",
            Some(&json!({"url": "https://a.example"})),
            Some(token),
        )
        .await;
    assert!(response.status().is_client_error());
    let response = app
        .client
        .post(app.url("/api/webhooks"))
        .bearer_auth(token)
        .header("Content-Type", "application/json")
        .body("{not json")
        .send()
        .await
        .expect("request");
    assert!(response.status().is_client_error());
    assert_eq!(
        response.headers()["content-type"],
        "application/problem+json"
    );
    assert_eq!(
        app.get_ok("/api/webhooks", token).await["webhooks"],
        json!([])
    );

    // At most 20.
    for n in 0..20 {
        app.json_ok(
            Method::POST,
            "/api/webhooks",
            &endpoint(&format!("https://hooks.example.com/{n}")),
            token,
            StatusCode::CREATED,
        )
        .await;
    }
    let response = app
        .send(
            Method::POST,
            "/api/webhooks",
            Some(&endpoint("https://hooks.example.com/21")),
            Some(token),
        )
        .await;
    assert_problem(response, StatusCode::CONFLICT, "webhook_limit").await;
}

#[tokio::test]
async fn the_operator_may_allow_plain_http_and_private_ranges() {
    let app = spawn_app_with(&[
        ("WEBHOOK_ALLOW_HTTP", "true"),
        ("WEBHOOK_ALLOWED_PRIVATE_RANGES", "127.0.0.0/8, 10.1.0.0/16"),
    ])
    .await;
    let owner = app.owner_with_workspace("hooks-dev").await;
    for url in ["http://127.0.0.1:9999/in", "https://10.1.2.3/in"] {
        app.json_ok(
            Method::POST,
            "/api/webhooks",
            &endpoint(url),
            &owner.workspace_token,
            StatusCode::CREATED,
        )
        .await;
    }
    let response = app
        .send(
            Method::POST,
            "/api/webhooks",
            Some(&endpoint("http://10.2.0.1/in")),
            Some(&owner.workspace_token),
        )
        .await;
    assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
}
