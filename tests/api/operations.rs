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
async fn healthz_is_unhealthy_when_the_database_does_not_answer() {
    // Start healthy, then point at a server that is not there: a fresh app whose pool
    // targets a closed port.
    let app = spawn_app_with(&[(
        "ConnectionStrings__DefaultConnection",
        "Host=127.0.0.1;Port=1;Database=nowhere;Username=postgres",
    )])
    .await;
    let started = std::time::Instant::now();
    let response = app.get("/healthz", None).await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(response.text().await.unwrap(), "Unhealthy");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[tokio::test]
async fn metrics_count_requests_by_matched_route() {
    let app = spawn_app().await;
    app.get("/healthz", None).await;
    let response = app.get("/metrics", None).await;
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
        ("/metrics", "get"),
    ] {
        assert!(
            paths[path][method].is_object(),
            "{method} {path} missing from OpenAPI"
        );
    }
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
}
