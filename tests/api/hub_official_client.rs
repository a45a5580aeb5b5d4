//! The chat hub with the official client: `tests/hub/official-client.mjs` runs
//! `@microsoft/signalr` in Node against two API replicas of this test (one database, one
//! Redis), connecting through negotiate with the `headers` option, calling every method,
//! hearing every event, reconnecting after a server-initiated close, and being closed for good
//! by a deactivation; the whole scenario once with the JSON hub protocol and once with
//! MessagePack (`@microsoft/signalr-protocol-msgpack`). `.ci/test` installs its Node packages
//! (`tests/hub/package-lock.json`).

use std::path::Path;

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;
use uuid::Uuid;

use crate::helpers::{JWT_SECRET, spawn_app, spawn_replica};
use crate::helpers_conversations::id;
use crate::helpers_hub::run_client_script;

/// A workspace token like the API's, signed with its key, expiring in `lifetime_secs`.
fn short_workspace_token(user_id: Uuid, workspace_id: Uuid, lifetime_secs: i64) -> String {
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let claims = json!({
        "iss": "supportdesk", "aud": "supportdesk-api", "sub": user_id,
        "iat": now, "exp": now + lifetime_secs, "jti": Uuid::new_v4(),
        "kind": "workspace", "tid": workspace_id, "role": "admin", "ver": 0,
    });
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(JWT_SECRET.as_bytes()),
    )
    .unwrap()
}

/// The scenario of `official-client.mjs` with the hub protocol `protocol`.
async fn official_client_scenario(protocol: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hub");
    assert!(
        dir.join("node_modules/@microsoft/signalr-protocol-msgpack")
            .is_dir(),
        "run `npm ci` in tests/hub (.ci/test does it)"
    );
    let app = spawn_app().await;
    let replica = spawn_replica(&app).await;
    let owner = app
        .owner_with_workspace(&format!("official-{protocol}"))
        .await;
    let other = app
        .owner_with_workspace(&format!("official-{protocol}-other"))
        .await;
    let agent = app.join(&owner, "agent").await;
    let conversation = app
        .start_conversation(&owner.workspace_token, "ivy@example.org", "Hi there")
        .await;
    let theirs = app
        .start_conversation(&other.workspace_token, "jo@example.org", "Hello")
        .await;
    let config = json!({
        "a": app.address,
        "b": replica.address,
        "protocol": protocol,
        "owner": {
            "token": owner.workspace_token,
            "shortToken": short_workspace_token(owner.user_id, owner.workspace_id, 8),
            "agentId": app.agent_id_of(&owner.workspace_token, owner.user_id).await,
        },
        "agent": { "token": agent.token, "agentId": agent.agent_id },
        "other": {
            "token": other.workspace_token,
            "agentId": app.agent_id_of(&other.workspace_token, other.user_id).await,
        },
        "conversationId": id(&conversation),
        "otherConversationId": id(&theirs),
    });
    run_client_script(
        std::ffi::OsStr::new("node"),
        "official-client.mjs",
        &config,
        std::time::Duration::from_secs(120),
        &format!("the official client ({protocol}; Node 20 is required)"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_signalr_client_talks_to_the_hub_across_replicas_with_json() {
    official_client_scenario("json").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_signalr_client_talks_to_the_hub_across_replicas_with_messagepack() {
    official_client_scenario("messagepack").await;
}
