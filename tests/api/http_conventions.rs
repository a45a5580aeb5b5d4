//! The contract's cross-cutting HTTP behaviour: problem+json everywhere, body limits, ids.

use reqwest::StatusCode;

use crate::helpers::{assert_problem, spawn_app};

#[tokio::test]
async fn malformed_json_is_a_bad_request() {
    let app = spawn_app().await;
    let response = app
        .client
        .post(app.url("/auth/register"))
        .header("content-type", "application/json")
        .body(r#"{"email": "ann@example.com", "password": "#)
        .send()
        .await
        .unwrap();
    assert_problem(response, StatusCode::BAD_REQUEST, "malformed_json").await;
    assert_eq!(app.count("users").await, 0);
}

#[tokio::test]
async fn a_wrong_content_type_is_unsupported() {
    let app = spawn_app().await;
    let response = app
        .client
        .post(app.url("/auth/login"))
        .header("content-type", "text/plain")
        .body(r#"{"email":"a@b.co","password":"x"}"#)
        .send()
        .await
        .unwrap();
    assert_problem(
        response,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    )
    .await;
}

#[tokio::test]
async fn bodies_over_one_mebibyte_are_refused() {
    let app = spawn_app().await;
    let huge = format!(
        r#"{{"email":"a@example.com","password":"Passw0rd","fullName":"{}"}}"#,
        "x".repeat(1024 * 1024)
    );
    let response = app
        .client
        .post(app.url("/auth/register"))
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_problem(response, StatusCode::PAYLOAD_TOO_LARGE, "body_too_large").await;
    assert_eq!(app.count("users").await, 0);
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_in_problem_format() {
    let app = spawn_app().await;
    assert_problem(
        app.get("/no/such/thing", None).await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    let response = app
        .client
        .delete(app.url("/auth/login"))
        .send()
        .await
        .unwrap();
    assert_problem(
        response,
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
    )
    .await;
}

#[tokio::test]
async fn every_response_carries_a_request_id_and_keeps_a_given_one() {
    let app = spawn_app().await;
    let response = app.get("/healthz", None).await;
    let generated = response.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(generated.len(), 36, "a UUID: {generated}");

    let response = app
        .client
        .get(app.url("/auth/me"))
        .header("x-request-id", "trace-me-123")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-request-id"], "trace-me-123");
}

#[tokio::test]
async fn the_dashboards_origins_may_call_the_api_from_browsers() {
    let app = crate::helpers::spawn_app_with(&[(
        "CORS_ALLOWED_ORIGINS",
        "https://staging.desk.test, http://localhost:3100",
    )])
    .await;
    let preflight = |path: &'static str, origin: &'static str, method: &'static str| {
        app.client
            .request(reqwest::Method::OPTIONS, app.url(path))
            .header("origin", origin)
            .header("access-control-request-method", method)
            .header(
                "access-control-request-headers",
                "authorization,content-type",
            )
            .send()
    };
    let allowed = |response: &reqwest::Response| {
        response
            .headers()
            .get("access-control-allow-origin")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    for (path, method) in [
        ("/auth/login", "POST"),
        ("/auth/me", "GET"),
        ("/workspaces", "POST"),
        ("/api/conversations", "GET"),
        (
            "/api/agents/00000000-0000-0000-0000-000000000000/role",
            "PUT",
        ),
        ("/api/settings/widget", "PATCH"),
        ("/api/workspace", "DELETE"),
        ("/hubs/chat/negotiate", "POST"),
    ] {
        for origin in [
            "http://desk.test",
            "https://staging.desk.test",
            "http://localhost:3100",
        ] {
            let response = preflight(path, origin, method).await.unwrap();
            assert!(
                response.status().is_success(),
                "{path} from {origin}: {response:?}"
            );
            assert_eq!(
                allowed(&response).as_deref(),
                Some(origin),
                "{path} from {origin}"
            );
        }
        for origin in ["https://evil.example", "http://widget.test"] {
            if path == "/hubs/chat/negotiate" && origin == "http://widget.test" {
                continue;
            }
            let response = preflight(path, origin, method).await.unwrap();
            assert_eq!(allowed(&response), None, "{path} from {origin}");
        }
    }
    // An actual answer, an error included, is readable by the dashboard, with Retry-After
    // and a download's file name.
    let response = app
        .client
        .get(app.url("/auth/me"))
        .header("origin", "http://desk.test")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(allowed(&response).as_deref(), Some("http://desk.test"));
    let exposed = response.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(exposed.contains("retry-after"), "{exposed}");
    // A CSV export's file name is readable too.
    assert!(exposed.contains("content-disposition"), "{exposed}");
}

/// Whether the server closed `stream` within `wait`, reading (and discarding) what it sent.
async fn closed_within(stream: &mut tokio::net::TcpStream, wait: std::time::Duration) -> bool {
    use tokio::io::AsyncReadExt;
    let deadline = tokio::time::Instant::now() + wait;
    let mut buffer = [0u8; 1024];
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buffer)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

/// A connection that sends nothing, trickles its headers, or idles after a response is cut
/// after 10 s, so file descriptors cannot be held without an ingress in front.
#[tokio::test]
async fn silent_and_trickling_connections_are_cut_after_10_s() {
    use std::time::Duration;
    use tokio::io::AsyncWriteExt;

    let app = spawn_app().await;
    let address = app.address.trim_start_matches("http://").to_owned();
    let started = tokio::time::Instant::now();

    let mut silent = tokio::net::TcpStream::connect(&address).await.unwrap();
    let mut trickling = tokio::net::TcpStream::connect(&address).await.unwrap();
    let trickle = async {
        for byte in b"GET /healthz HTTP/1.1\r\nHost: x\r\n" {
            if trickling.write_all(&[*byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(14), trickle).await;
    assert!(
        closed_within(&mut trickling, Duration::from_secs(1)).await,
        "a head trickled a byte every 2 s is cut"
    );
    assert!(
        closed_within(&mut silent, Duration::from_secs(1)).await,
        "a silent connection is cut"
    );
    assert!(started.elapsed() < Duration::from_secs(16));

    // After a response, a kept-alive connection may idle as long, and no longer.
    let mut idle = tokio::net::TcpStream::connect(&address).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    assert!(
        !closed_within(&mut idle, Duration::from_secs(5)).await,
        "kept alive for a while"
    );
    assert!(
        closed_within(&mut idle, Duration::from_secs(10)).await,
        "then closed"
    );
}
