//! Events of one conversation reach hub clients in `seq` order whichever replica wrote them,
//! and a replica that missed another's event (Redis lost it) reads it from the log rather
//! than skipping it.

use std::time::Duration;

use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::json;
use supportdesk_test_support::redis_server::RedisServer;

use crate::helpers::{spawn_app, spawn_replica, spawn_replica_with};
use crate::helpers_conversations::id;
use crate::helpers_hub::{HubClient, hub_at};

/// The seqs of the next `count` `MessageCreated` events.
async fn message_seqs(hub: &mut HubClient, count: usize) -> Vec<i64> {
    let mut seqs = Vec::with_capacity(count);
    while seqs.len() < count {
        let Some(record) = hub.next_within(Duration::from_secs(5)).await else {
            panic!("only {} of {count} messages: {seqs:?}", seqs.len());
        };
        if record["target"] == "MessageCreated" {
            seqs.push(record["arguments"][0]["seq"].as_i64().expect("seq"));
        }
    }
    seqs
}

/// Posts a reply at `path` through the API at `address` (any replica); the status.
async fn reply_at(
    client: &reqwest::Client,
    address: &str,
    path: &str,
    token: &str,
    body: String,
) -> StatusCode {
    client
        .post(format!("{address}{path}"))
        .bearer_auth(token)
        .json(&json!({ "body": body }))
        .send()
        .await
        .expect("post")
        .status()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_replicas_writing_to_one_conversation_reach_every_client_in_seq_order() {
    let app = spawn_app().await;
    let replica = spawn_replica(&app).await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.clone();
    let conversation = app
        .start_conversation(&token, "carla@example.org", "Hello")
        .await;
    let path = format!("/api/conversations/{}/messages", id(&conversation));
    let mut here = hub_at(&app.client, &app.address, &token).await;
    let mut there = hub_at(&app.client, &replica.address, &token).await;

    const REPLIES: usize = 60;
    let addresses = [app.address.as_str(), replica.address.as_str()];
    for round in 0..REPLIES / 12 {
        let posts = (0..12).map(|n| {
            let body = format!("reply {round}.{n}");
            reply_at(&app.client, addresses[n % 2], &path, &token, body)
        });
        for status in join_all(posts).await {
            assert_eq!(status, StatusCode::CREATED);
        }
    }
    for hub in [&mut here, &mut there] {
        let seqs = message_seqs(hub, REPLIES).await;
        let first = seqs[0];
        let expected: Vec<i64> = (first..first + REPLIES as i64).collect();
        assert_eq!(seqs, expected, "in seq order, none missing");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_event_redis_never_carried_is_read_from_the_log() {
    let app = spawn_app().await;
    let mut redis = RedisServer::start();
    let replica = spawn_replica_with(&app, &[("REDIS_URL", &redis.url())]).await;
    let owner = app.owner_with_workspace("acme").await;
    let token = owner.workspace_token.clone();
    let conversation = app
        .start_conversation(&token, "carla@example.org", "Hello")
        .await;
    let path = format!("/api/conversations/{}/messages", id(&conversation));
    let mut hub = hub_at(&app.client, &app.address, &token).await;

    // The replica's events go to a Redis nobody else hears: for `app`, they are lost.
    let lost = reply_at(
        &app.client,
        &replica.address,
        &path,
        &token,
        "written on the replica".into(),
    )
    .await;
    assert_eq!(lost, StatusCode::CREATED);
    let heard = app
        .post_json(&path, &json!({"body": "written here"}), Some(&token))
        .await;
    assert_eq!(heard.status(), StatusCode::CREATED);

    // The conversation's first message may still be on its way to this replica when the hub
    // connects (it was published after its commit), and is then heard first.
    let mut heard = Vec::new();
    while heard.len() < 2 {
        let event = hub.event_named("MessageCreated").await;
        if event["message"]["body"] != "Hello" {
            heard.push(event);
        }
    }
    let (first, second) = (&heard[0], &heard[1]);
    assert_eq!(first["message"]["body"], "written on the replica");
    assert_eq!(second["message"]["body"], "written here");
    assert_eq!(
        second["seq"].as_i64().unwrap(),
        first["seq"].as_i64().unwrap() + 1
    );
    redis.kill();
}
