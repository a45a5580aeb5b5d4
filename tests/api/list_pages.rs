//! The team, invitation and canned-response lists come a page at a time, like the
//! conversation lists (security review, finding 11): `?limit=` (1 to 200, default 50) and
//! `?cursor=` (the previous page's `nextCursor`).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app, unique_email};

/// Every page of `path` at `limit` rows: the `field` arrays, in order.
async fn pages(app: &TestApp, path: &str, field: &str, limit: u32, token: &str) -> Vec<Vec<Value>> {
    let separator = if path.contains('?') { '&' } else { '?' };
    let mut cursor: Option<String> = None;
    let mut pages = Vec::new();
    loop {
        let mut url = format!("{path}{separator}limit={limit}");
        if let Some(cursor) = &cursor {
            url.push_str(&format!("&cursor={cursor}"));
        }
        let response = app.get(&url, Some(token)).await;
        assert_eq!(response.status(), StatusCode::OK, "{url}");
        let body: Value = response.json().await.unwrap();
        pages.push(body[field].as_array().unwrap().clone());
        match body["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return pages,
        }
        assert!(pages.len() < 50, "the pages never end");
    }
}

fn flat(pages: &[Vec<Value>], key: &str) -> Vec<String> {
    pages
        .iter()
        .flatten()
        .map(|row| row[key].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn agents_invitations_and_canned_responses_are_listed_a_page_at_a_time() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.as_str();
    for _ in 0..4 {
        app.member(&owner, "agent").await;
    }
    for _ in 0..5 {
        let invited = app.invite(token, &unique_email(), "agent").await;
        assert_eq!(invited.status(), StatusCode::CREATED);
    }
    for code in ["e", "a", "d", "c", "b"] {
        app.json_ok(
            Method::POST,
            "/api/canned-responses",
            &json!({"shortCode": code, "title": code, "body": code}),
            token,
            StatusCode::CREATED,
        )
        .await;
    }

    // Five agents in the order they joined, two a page; the same as one long page.
    let agents = pages(&app, "/api/agents", "agents", 2, token).await;
    assert_eq!(agents.iter().map(Vec::len).collect::<Vec<_>>(), [2, 2, 1]);
    let whole = pages(&app, "/api/agents", "agents", 200, token).await;
    assert_eq!(whole.len(), 1);
    assert_eq!(flat(&agents, "id"), flat(&whole, "id"));
    assert_eq!(agents[0][0]["userId"], owner.user_id.to_string());

    let invitations = pages(&app, "/api/invitations", "invitations", 2, token).await;
    assert_eq!(
        invitations.iter().map(Vec::len).collect::<Vec<_>>(),
        [2, 2, 1]
    );
    let whole = pages(&app, "/api/invitations", "invitations", 200, token).await;
    assert_eq!(flat(&invitations, "id"), flat(&whole, "id"));

    let canned = pages(&app, "/api/canned-responses", "cannedResponses", 2, token).await;
    assert_eq!(flat(&canned, "shortCode"), ["a", "b", "c", "d", "e"]);
    let searched = pages(
        &app,
        "/api/canned-responses?q=b",
        "cannedResponses",
        2,
        token,
    )
    .await;
    assert_eq!(flat(&searched, "shortCode"), ["b"]);

    for path in ["/api/agents", "/api/invitations", "/api/canned-responses"] {
        assert_problem(
            app.get(&format!("{path}?limit=201"), Some(token)).await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
        assert_problem(
            app.get(&format!("{path}?cursor=not-ours"), Some(token))
                .await,
            StatusCode::BAD_REQUEST,
            "invalid_cursor",
        )
        .await;
    }
}
