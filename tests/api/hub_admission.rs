//! Who may open a hub connection, and how many: caps that count upgrades still in their
//! handshake, per credential as well as per workspace; a quota on negotiations; and a server
//! that is shutting down turning new connections away before it closes its live ones.

use std::time::Duration;

use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app};
use crate::helpers_hub::{HubClient, negotiate_at, socket_url};
use crate::helpers_widget::SITE;

fn http_status(error: Option<tokio_tungstenite::tungstenite::Error>) -> Option<u16> {
    match error? {
        tokio_tungstenite::tungstenite::Error::Http(response) => Some(response.status().as_u16()),
        _ => None,
    }
}

/// One upgrade for each of `credentials` (negotiated one after the other), all sent at
/// once and none handshaken: the sockets the server upgraded, and the statuses of those it
/// refused.
async fn upgrade_at_once(
    app: &crate::helpers::TestApp,
    credentials: &[&str],
) -> (Vec<HubClient>, Vec<Option<u16>>) {
    let mut tokens = Vec::new();
    for credential in credentials {
        tokens.push(app.connection_token(credential).await);
    }
    let urls: Vec<String> = tokens.iter().map(|t| socket_url(&app.address, t)).collect();
    let attempts = urls.iter().map(|url| HubClient::connect(url));
    let mut open = Vec::new();
    let mut refused = Vec::new();
    for attempt in join_all(attempts).await {
        match attempt {
            Ok(client) => open.push(client),
            Err(error) => refused.push(http_status(Some(error))),
        }
    }
    (open, refused)
}

#[tokio::test]
async fn a_burst_of_upgrades_cannot_pass_a_cap_before_any_of_them_counts() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-burst").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;

    // One visitor token: 30 upgrades at once, none handshaken; the cap is 5 per token.
    let (mut open, refused) = upgrade_at_once(&app, &[visitor.token.as_str(); 30]).await;
    assert_eq!(open.len(), 5, "upgraded: {}", open.len());
    assert!(refused.iter().all(|s| *s == Some(429)), "{refused:?}");

    // Another visitor of the workspace is not locked out by them.
    let real = app.visitor(&site_key, None).await;
    let mut widget = app.hub(&real.token).await;
    let done = widget.invoke("1", "Typing", json!([true])).await;
    assert!(done.get("error").is_none(), "{done}");

    // A socket that ends before its handshake gives its place back.
    drop(open.pop());
    let token = app.connection_token(&visitor.token).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        match HubClient::connect(&socket_url(&app.address, &token)).await {
            Ok(_) => break,
            Err(error) => {
                assert_eq!(http_status(Some(error)), Some(429));
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the place came back"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }

    // An agent's membership is a credential too: at most 20 connections of it.
    let (open, refused) = upgrade_at_once(&app, &[owner.workspace_token.as_str(); 24]).await;
    assert_eq!(open.len(), 20);
    assert_eq!(refused, vec![Some(429); 4]);
}

#[tokio::test]
async fn pending_upgrades_count_towards_the_workspace_cap() {
    let app = crate::helpers::spawn_app_with(&[("HUB_MAX_CONNECTIONS_PER_WORKSPACE", "3")]).await;
    let owner = app.owner_with_workspace("hub-pending-cap").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let mut visitors = Vec::new();
    for _ in 0..5 {
        visitors.push(app.visitor(&site_key, None).await);
    }
    let credentials: Vec<&str> = visitors.iter().map(|v| v.token.as_str()).collect();
    let (open, refused) = upgrade_at_once(&app, &credentials).await;
    assert_eq!(
        open.len(),
        3,
        "the workspace's visitor connections, handshaken or not"
    );
    assert_eq!(refused, vec![Some(429); 2]);
}

#[tokio::test]
async fn negotiations_are_limited_per_credential() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-negotiate-quota").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    for _ in 0..60 {
        let response = app.negotiate(Some(&visitor.token)).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
    let limited = app.negotiate(Some(&visitor.token)).await;
    let retry_after: u64 = limited.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    assert_problem(limited, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;

    // Other credentials have their own quota.
    let other = app.visitor(&site_key, None).await;
    assert_eq!(
        app.negotiate(Some(&other.token)).await.status(),
        StatusCode::OK
    );
    assert_eq!(
        app.negotiate(Some(&owner.workspace_token)).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_server_shutting_down_refuses_new_connections_before_it_closes_live_ones() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-draining").await;
    let mut live = app.hub(&owner.workspace_token).await;
    let negotiated = app.connection_token(&owner.workspace_token).await;

    // What SIGTERM does first (`Application::run_until`): the hub begins closing.
    app.state.hub.closing().cancel();
    let close = live.close_message().await;
    assert_eq!(close["allowReconnect"], true, "{close}");

    // The client's immediate reconnect is turned away, to land on another replica.
    let problem = assert_problem(
        app.negotiate(Some(&owner.workspace_token)).await,
        StatusCode::SERVICE_UNAVAILABLE,
        "unavailable",
    )
    .await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("shutting down"),
        "{problem}"
    );
    let upgrade = HubClient::connect(&socket_url(&app.address, &negotiated)).await;
    assert_eq!(http_status(upgrade.err()), Some(503));
    let version_0 = negotiate_at(&app.client, &app.address, Some(&owner.workspace_token), "").await;
    assert_eq!(version_0.status(), StatusCode::SERVICE_UNAVAILABLE);
    // REST requests in flight are still served while the process drains.
    let me: Value = app
        .get("/auth/me", Some(&owner.user_token))
        .await
        .json()
        .await
        .unwrap();
    assert!(me.get("email").is_some(), "{me}");
}
