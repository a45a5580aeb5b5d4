//! A hub connection keeps only the access its holder still has: a change that comes while
//! the handshake is pending refuses the handshake, a replica that missed a change while cut
//! off from Redis checks its connections when it hears again, and every connection is
//! checked against the database on a timer besides.

use std::time::Duration;

use serde_json::json;

use crate::helpers::{spawn_app, spawn_replica_with};
use crate::helpers_hub::{HubClient, hub_at, socket_url};

#[tokio::test]
async fn a_member_deactivated_between_upgrade_and_handshake_is_refused_at_the_handshake() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-pending-access").await;
    let agent = app.join(&owner, "agent").await;
    let token = app.connection_token(&agent.token).await;
    let mut pending = HubClient::connect(&socket_url(&app.address, &token))
        .await
        .expect("upgraded while still a member");

    app.deactivate(&owner, agent.agent_id).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    pending
        .send_records(&[json!({"protocol": "json", "version": 1})])
        .await;
    let answer = pending.next().await;
    assert!(
        answer["error"].as_str().is_some_and(|e| !e.is_empty()),
        "the handshake is refused, not answered {{}}: {answer}"
    );
    assert_eq!(
        pending.next_within(Duration::from_secs(5)).await,
        None,
        "and nothing is heard after it"
    );
    assert!(pending.closed);
}

#[tokio::test]
async fn a_replica_that_missed_a_change_checks_its_connections_when_it_hears_again() {
    // The replica has a Redis of its own: what the first replica publishes never reaches
    // it, as if it had been cut off when the change was made.
    let mut redis = supportdesk_test_support::redis_server::RedisServer::start();
    let app = spawn_app().await;
    let replica = spawn_replica_with(&app, &[("REDIS_URL", &redis.url())]).await;
    let owner = app.owner_with_workspace("hub-missed-change").await;
    let agent = app.join(&owner, "agent").await;
    let mut there = hub_at(&app.client, &replica.address, &agent.token).await;
    there.drain(Duration::from_millis(300)).await;

    redis.kill();
    app.deactivate(&owner, agent.agent_id).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    redis.restart();
    let back = tokio::time::Instant::now();

    let close = there.close_message().await;
    assert_eq!(close["allowReconnect"], false, "{close}");
    assert!(
        back.elapsed() < Duration::from_secs(10),
        "closed {:?} after the replica could hear again",
        back.elapsed()
    );
}

#[tokio::test]
async fn a_change_no_replica_was_told_of_still_closes_connections_within_30_s() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-recheck").await;
    let agent = app.join(&owner, "agent").await;
    let mut hub = app.hub(&agent.token).await;
    // Written straight to the database: no replica's cache or channel hears of it.
    sqlx::query(
        "UPDATE public.memberships SET status = 'deactivated'
          WHERE workspace_id = $1 AND user_id <> $2",
    )
    .bind(owner.workspace_id)
    .bind(owner.user_id)
    .execute(&app.db)
    .await
    .unwrap();
    let changed = tokio::time::Instant::now();
    let close = loop {
        let record = hub
            .next_within(Duration::from_secs(40))
            .await
            .expect("closed within 40 s");
        if record["type"] == 7 {
            break record;
        }
    };
    assert_eq!(close["allowReconnect"], false, "{close}");
    assert!(
        changed.elapsed() <= Duration::from_secs(31),
        "{:?}",
        changed.elapsed()
    );
}
