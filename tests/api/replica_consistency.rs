//! A replica that cannot hear membership invalidations must not trust its cache: from the
//! moment its subscription is down it asks PostgreSQL (security review, finding 5). Before,
//! a deactivated agent kept access there for up to the cache's 15 s TTL.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;
use supportdesk_test_support::free_port;
use supportdesk_test_support::redis_server::RedisServer;

use crate::helpers::{TestApp, spawn_app, spawn_replica_with};

async fn wait_for(what: &str, within: Duration, mut condition: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !condition().await {
        assert!(Instant::now() < deadline, "{what} within {within:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The status of `GET /api/agents` on the API at `address`.
async fn agents_status(app: &TestApp, address: &str, token: &str) -> StatusCode {
    app.client
        .get(format!("{address}/api/agents"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn a_replica_whose_redis_goes_away_refuses_a_deactivated_agent_at_once() {
    let app = spawn_app().await;
    let mut redis = RedisServer::start();
    let replica = spawn_replica_with(&app, &[("REDIS_URL", &redis.url())]).await;
    let owner = app.owner_with_workspace("acme").await;
    let ann = app.member(&owner, "agent").await;
    let on_replica = async || agents_status(&app, &replica.address, &ann.workspace_token).await;
    wait_for(
        "the replica subscribes",
        Duration::from_secs(10),
        async || replica.state.memberships.is_subscribed(),
    )
    .await;
    assert_eq!(on_replica().await, StatusCode::OK, "cached on the replica");

    // The replica's Redis dies; the deactivation is broadcast on the app's Redis, which the
    // replica never hears.
    redis.kill();
    let deactivated = app
        .post_json(
            &format!("/api/agents/{}/deactivate", ann.agent_id),
            &json!({}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(deactivated.status(), StatusCode::OK);
    wait_for(
        "the deaf replica refuses the deactivated agent",
        Duration::from_secs(3),
        async || on_replica().await == StatusCode::FORBIDDEN,
    )
    .await;
    assert!(!replica.state.memberships.is_subscribed());

    // Redis back: the replica resubscribes by itself (and starts from an empty cache).
    redis.restart();
    wait_for(
        "the replica resubscribes",
        Duration::from_secs(10),
        async || replica.state.memberships.is_subscribed(),
    )
    .await;
    assert_eq!(on_replica().await, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_replica_that_never_reached_redis_reads_every_membership_from_the_database() {
    let app = spawn_app().await;
    let nowhere = format!("redis://127.0.0.1:{}", free_port());
    let replica = spawn_replica_with(&app, &[("REDIS_URL", &nowhere)]).await;
    let owner = app.owner_with_workspace("acme").await;
    let ann = app.member(&owner, "agent").await;
    let on_replica = async || agents_status(&app, &replica.address, &ann.workspace_token).await;
    assert_eq!(on_replica().await, StatusCode::OK, "it still serves");
    assert!(!replica.state.memberships.is_subscribed());
    let deactivated = app
        .post_json(
            &format!("/api/agents/{}/deactivate", ann.agent_id),
            &json!({}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(deactivated.status(), StatusCode::OK);
    assert_eq!(on_replica().await, StatusCode::FORBIDDEN, "at once");
}
