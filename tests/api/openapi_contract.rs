//! `/openapi.json` promises every answer the router gives, and every route the router serves.
//!
//! A schema-driven fuzzer found operations answering 415 that the document did not list:
//! answers that come from the layers every route shares (the body extractor, the
//! credential check) rather than from a handler's own annotation. These tests read the
//! served document and, for every operation in it, send the requests the router can answer
//! without valid data (no credential, a malformed one, a body that is not JSON, malformed
//! JSON, a body over the limit, text holding a NUL, a path id that is not a UUID, a query
//! parameter holding a NUL), each also with a real user token and a real workspace token so
//! the body and path checks behind the credential check are reached too. Every status the
//! router answers must be documented for that operation. None of the probes can change
//! anything: each is refused before a handler acts, or names a record that does not exist.
//!
//! Then the other direction: every route the router serves under `/api`, `/auth`,
//! `/workspaces` and `/invitations` (the documented paths, and every such path written in the
//! source) must be in the document, with the method it answers.

use std::collections::BTreeSet;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use reqwest::{Method, StatusCode};
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::helpers::{TestApp, spawn_app};

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];
const PREFIXES: [&str; 4] = ["/api", "/auth", "/workspaces", "/invitations"];

/// One request the router can answer without valid data.
struct Probe {
    label: String,
    path: String,
    authorization: Option<String>,
    body: Option<(&'static str, Vec<u8>)>,
}

async fn document(app: &TestApp) -> Value {
    let response = app.get("/openapi.json", None).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.expect("the document is JSON")
}

/// (path, method, operation) for every operation of the document.
fn operations(document: &Value) -> Vec<(String, String, Value)> {
    let paths = document["paths"].as_object().expect("paths");
    let mut operations = Vec::new();
    for (path, item) in paths {
        for method in METHODS {
            if let Some(operation) = item.get(method) {
                operations.push((path.clone(), method.to_owned(), operation.clone()));
            }
        }
    }
    operations
}

/// Whether `responses` lists `status`, exactly, as a range (`4XX`) or as `default`.
fn documents(responses: &Map<String, Value>, status: StatusCode) -> bool {
    let code = status.as_u16();
    responses.contains_key(&code.to_string())
        || responses.contains_key(&format!("{}XX", code / 100))
        || responses.contains_key("default")
}

/// `template` with every `{param}` replaced by `value`.
fn fill(template: &str, value: &str) -> String {
    template
        .split('/')
        .map(|segment| {
            if segment.starts_with('{') && segment.ends_with('}') {
                value
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn parameters_in<'a>(operation: &'a Value, place: &str) -> Vec<&'a str> {
    operation["parameters"]
        .as_array()
        .map(|parameters| {
            parameters
                .iter()
                .filter(|p| p["in"] == place)
                .filter_map(|p| p["name"].as_str())
                .collect()
        })
        .unwrap_or_default()
}

fn probes(path: &str, operation: &Value, tokens: &[(&str, &str)]) -> Vec<Probe> {
    let some_id = fill(path, &Uuid::new_v4().to_string());
    let has_body = operation.get("requestBody").is_some();
    let has_path_params = path.contains('{');
    let query = parameters_in(operation, "query");

    let mut probes = Vec::new();
    for (label, authorization) in [
        ("no credential", None),
        ("a malformed bearer token", Some("Bearer not-a-token")),
        ("a malformed API key", Some("Bearer sdk_0000")),
        ("an empty bearer token", Some("Bearer ")),
        ("another scheme", Some("Basic dXNlcjpwYXNz")),
    ] {
        probes.push(Probe {
            label: label.to_owned(),
            path: some_id.clone(),
            authorization: authorization.map(str::to_owned),
            body: None,
        });
    }

    // Behind each kind of credential, or none, the checks of the request itself.
    let credentials = std::iter::once(("no credential", None))
        .chain(tokens.iter().map(|(label, token)| (*label, Some(*token))));
    for (who, token) in credentials {
        let authorization = token.map(|t| format!("Bearer {t}"));
        let mut probe = |label: &str, path: &str, body: Option<(&'static str, Vec<u8>)>| {
            probes.push(Probe {
                label: format!("{label}, {who}"),
                path: path.to_owned(),
                authorization: authorization.clone(),
                body,
            });
        };
        if has_body {
            probe(
                "a text/plain body",
                &some_id,
                Some(("text/plain", b"{}".to_vec())),
            );
            probe(
                "malformed JSON",
                &some_id,
                Some(("application/json", b"{\"name\": ".to_vec())),
            );
            probe(
                "JSON of the wrong shape",
                &some_id,
                Some(("application/json", b"[1, 2, 3]".to_vec())),
            );
            let oversized = format!(r#"{{"name":"{}"}}"#, "x".repeat(1024 * 1024));
            probe(
                "a body over 1 MiB",
                &some_id,
                Some(("application/json", oversized.into_bytes())),
            );
            probe(
                "a NUL in the body",
                &some_id,
                Some(("application/json", br#"{"name":"\u0000"}"#.to_vec())),
            );
        }
        if has_path_params {
            let body = has_body.then(|| ("application/json", b"{}".to_vec()));
            probe("a path id that is not a UUID", &fill(path, "x"), body);
        }
        if !query.is_empty() {
            let query: Vec<String> = query.iter().map(|name| format!("{name}=%00")).collect();
            probe(
                "a NUL in every query parameter",
                &format!("{some_id}?{}", query.join("&")),
                None,
            );
        }
    }
    probes
}

async fn send(app: &TestApp, method: &str, probe: &Probe) -> (StatusCode, String) {
    let method = Method::from_bytes(method.to_uppercase().as_bytes()).expect("method");
    let mut request = app.client.request(method, app.url(&probe.path));
    if let Some(authorization) = &probe.authorization {
        request = request.header(AUTHORIZATION, authorization);
    }
    if let Some((content_type, body)) = &probe.body {
        request = request
            .header(CONTENT_TYPE, *content_type)
            .body(body.clone());
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    let body = response.text().await.unwrap_or_default();
    (status, body.chars().take(300).collect())
}

#[tokio::test]
async fn every_status_the_router_answers_is_documented() {
    let app = spawn_app().await;
    let document = document(&app).await;
    let owner = app.owner_with_workspace("contract").await;
    let tokens = [
        ("a user token", owner.user_token.as_str()),
        ("a workspace token", owner.workspace_token.as_str()),
    ];

    let mut undocumented = Vec::new();
    let mut sent = 0;
    for (path, method, operation) in operations(&document) {
        let responses = operation["responses"].as_object().expect("responses");
        for probe in probes(&path, &operation, &tokens) {
            let (status, body) = send(&app, &method, &probe).await;
            sent += 1;
            if !documents(responses, status) {
                undocumented.push(format!(
                    "{} {path}: {status} to {} ({}): {body}",
                    method.to_uppercase(),
                    probe.label,
                    probe.path,
                ));
            }
        }
    }
    assert!(sent > 300, "only {sent} probes: is the document empty?");
    assert!(
        undocumented.is_empty(),
        "{} answers are not in /openapi.json:\n{}",
        undocumented.len(),
        undocumented.join("\n")
    );
}

/// Every path written in the source under one of the prefixes, without its query string.
fn paths_in_source() -> BTreeSet<String> {
    fn walk(dir: &std::path::Path, found: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("read source");
                // Every stretch between two quotes, not every other one: a `'"'` or `\"`
                // elsewhere must not make the scan skip the literals after it.
                for literal in text.split('"') {
                    let literal = literal.split('?').next().unwrap_or_default();
                    let routed = PREFIXES.iter().any(|prefix| {
                        literal
                            .strip_prefix(prefix)
                            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
                    });
                    if routed && !literal.contains(|c: char| c.is_whitespace() || c == '\\') {
                        found.insert(literal.to_owned());
                    }
                }
            }
        }
    }
    let mut found = BTreeSet::new();
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut found,
    );
    found
}

/// Whether the document has `method` on a path template that `path` matches.
fn documented_route(document: &Value, path: &str, method: &str) -> bool {
    let segments: Vec<&str> = path.split('/').collect();
    document["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .any(|(template, item)| {
            let template: Vec<&str> = template.split('/').collect();
            template.len() == segments.len()
                && template
                    .iter()
                    .zip(&segments)
                    .all(|(t, s)| t == s || (t.starts_with('{') && t.ends_with('}')))
                && item.get(method).is_some()
        })
}

#[tokio::test]
async fn every_route_the_router_serves_is_documented() {
    let app = spawn_app().await;
    let document = document(&app).await;
    let documented: BTreeSet<String> = document["paths"]
        .as_object()
        .expect("paths")
        .keys()
        .cloned()
        .collect();
    let in_source = paths_in_source();
    assert!(
        in_source.contains("/api/conversations/{id}/messages"),
        "the source scan finds routes: {in_source:?}"
    );

    let mut undocumented = Vec::new();
    let mut unserved = Vec::new();
    for template in documented.iter().chain(&in_source) {
        if !PREFIXES.iter().any(|prefix| template.starts_with(prefix)) {
            continue;
        }
        let probe = Probe {
            label: String::new(),
            path: fill(template, &Uuid::new_v4().to_string()),
            authorization: None,
            body: None,
        };
        for method in METHODS {
            // No credential: a route answers it (401, or 400/415 for a missing body) before
            // a handler acts; a method the path does not have is 405 first, and a path the
            // router does not have is the fallback's 404.
            let (status, body) = send(&app, method, &probe).await;
            let served = match status {
                StatusCode::METHOD_NOT_ALLOWED => false,
                StatusCode::NOT_FOUND => !body.contains("no such resource"),
                _ => true,
            };
            let line = format!("{} {template}: {status} {body}", method.to_uppercase());
            if served && !documented_route(&document, &probe.path, method) {
                undocumented.push(line);
            } else if !served && document["paths"][template].get(method).is_some() {
                unserved.push(line);
            }
        }
    }
    assert!(
        undocumented.is_empty(),
        "served but not in /openapi.json:\n{}",
        undocumented.join("\n")
    );
    assert!(
        unserved.is_empty(),
        "in /openapi.json but not served:\n{}",
        unserved.join("\n")
    );
}

/// The dashboard's typed API client is generated from a snapshot of this document
/// (`web/dashboard/src/api/openapi.json`, `npm run gen:api`): the snapshot must be the
/// document the API serves, or the dashboard's types describe another API. With
/// `UPDATE_OPENAPI_SNAPSHOT=1` the test writes the served document there instead (then run
/// `npm run gen:api` in web/dashboard).
#[tokio::test]
async fn the_dashboards_client_is_generated_from_the_served_document() {
    let app = spawn_app().await;
    let served: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web/dashboard/src/api/openapi.json");
    if std::env::var_os("UPDATE_OPENAPI_SNAPSHOT").is_some() {
        let pretty = serde_json::to_string_pretty(&served).unwrap();
        std::fs::write(&path, pretty + "\n").unwrap();
    }
    let snapshot: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(
        snapshot == served,
        "web/dashboard/src/api/openapi.json is not the served document: run \
         `UPDATE_OPENAPI_SNAPSHOT=1 cargo test --test api the_dashboards_client` and \
         `npm run gen:api` in web/dashboard"
    );
}
