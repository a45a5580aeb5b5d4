use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn healthz_is_healthy_when_the_database_answers() {
    let app = spawn_app().await;
    let response = app.get("/healthz", None).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    assert_eq!(response.text().await.unwrap(), "Healthy");
}

#[tokio::test]
async fn healthz_gives_up_on_a_database_that_never_answers_after_two_seconds() {
    // A "database" that accepts connections and then says nothing: only our own 2 s limit
    // can end the wait (the pool would wait 5 s).
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = silent.local_addr().unwrap().port();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            held.push(socket);
        }
    });
    let connection = format!("Host=127.0.0.1;Port={port};Database=nowhere;Username=postgres");
    let app = spawn_app_with(&[("ConnectionStrings__DefaultConnection", &connection)]).await;

    let started = std::time::Instant::now();
    let response = app.get("/healthz", None).await;
    let waited = started.elapsed();

    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(response.text().await.unwrap(), "Unhealthy");
    assert!(
        waited >= std::time::Duration::from_millis(1900)
            && waited < std::time::Duration::from_secs(4),
        "{waited:?}"
    );
}

#[tokio::test]
async fn healthz_is_unhealthy_when_the_database_is_down() {
    let app = spawn_app_with(&[(
        "ConnectionStrings__DefaultConnection",
        "Host=127.0.0.1;Port=1;Database=nowhere;Username=postgres",
    )])
    .await;
    let response = app.get("/healthz", None).await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(response.text().await.unwrap(), "Unhealthy");
}

#[tokio::test]
async fn metrics_count_requests_by_matched_route_on_their_own_listener_only() {
    let app = spawn_app().await;
    app.get("/healthz", None).await;
    // Not on the public port (which an Ingress exposes).
    assert_eq!(
        app.get("/metrics", None).await.status(),
        StatusCode::NOT_FOUND
    );
    let response = app
        .client
        .get(format!("{}/metrics", app.metrics_address))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let text = response.text().await.unwrap();
    assert!(text.contains("http_requests_total"), "{text}");
    assert!(text.contains(r#"route="/healthz""#), "{text}");
    assert!(
        text.contains("http_request_duration_seconds_bucket"),
        "{text}"
    );
}

#[tokio::test]
async fn openapi_describes_every_endpoint() {
    let app = spawn_app().await;
    let response = app.get("/openapi.json", None).await;
    assert_eq!(response.status(), StatusCode::OK);
    let doc: Value = response.json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let paths = doc["paths"].as_object().unwrap();
    for (path, method) in [
        ("/auth/register", "post"),
        ("/auth/login", "post"),
        ("/auth/me", "get"),
        ("/auth/verify-email", "get"),
        ("/auth/resend-verification", "post"),
        ("/healthz", "get"),
        ("/workspaces", "get"),
        ("/workspaces", "post"),
        ("/workspaces/{id}/select", "post"),
        ("/api/workspace", "get"),
        ("/api/workspace", "delete"),
    ] {
        assert!(
            paths[path][method].is_object(),
            "{method} {path} missing from OpenAPI"
        );
    }
    assert!(
        paths.get("/metrics").is_none(),
        "metrics are not public API"
    );
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
}
