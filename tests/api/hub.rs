//! The chat hub `/hubs/chat` spoken by hand: negotiate, connection tokens, the handshake and
//! framing edges, the methods, events raised by REST writes and hub calls, workspace
//! isolation, lifecycle closes, presence, and a second replica.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app, spawn_replica};
use crate::helpers_conversations::id;
use crate::helpers_hub::{HubClient, RS, hub_at, negotiate_at, socket_url};

#[tokio::test]
async fn negotiate_answers_a_connection_token_for_a_workspace_token_only() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-negotiate").await;

    let response = app.negotiate(Some(&owner.workspace_token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["negotiateVersion"], 1);
    assert_eq!(body["connectionToken"].as_str().unwrap().len(), 43);
    assert!(body["connectionId"].as_str().is_some());
    assert_eq!(
        body["availableTransports"],
        json!([{"transport": "WebSockets", "transferFormats": ["Text", "Binary"]}])
    );
    assert!(body.get("useStatefulReconnect").is_none());

    assert_problem(
        app.negotiate(None).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    assert_problem(
        app.negotiate(Some(&owner.user_token)).await,
        StatusCode::FORBIDDEN,
        "wrong_token_type",
    )
    .await;
    let in_url = negotiate_at(
        &app.client,
        &app.address,
        Some(&owner.workspace_token),
        &format!("negotiateVersion=1&access_token={}", owner.workspace_token),
    )
    .await;
    let problem = assert_problem(in_url, StatusCode::UNAUTHORIZED, "unauthorized").await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("Authorization")
    );

    // Version 0 (no negotiateVersion, as older and third-party clients send): the
    // connectionId is what the client connects with, once.
    let old = negotiate_at(&app.client, &app.address, Some(&owner.workspace_token), "").await;
    assert_eq!(old.status(), StatusCode::OK);
    let body: Value = old.json().await.unwrap();
    assert_eq!(body["negotiateVersion"], 0);
    assert!(body.get("connectionToken").is_none(), "{body}");
    assert_eq!(
        body["availableTransports"],
        json!([{"transport": "WebSockets", "transferFormats": ["Text", "Binary"]}])
    );
    let id = body["connectionId"].as_str().unwrap();
    let mut hub = HubClient::connect(&socket_url(&app.address, id))
        .await
        .expect("version 0 connects with its connectionId");
    hub.send_records(&[json!({"protocol": "json", "version": 1})])
        .await;
    assert_eq!(hub.next().await, json!({}));
    let again = HubClient::connect(&socket_url(&app.address, id)).await;
    assert_eq!(http_status(again.err()), Some(409), "single use");
}

#[tokio::test]
async fn a_connection_token_opens_one_socket_once() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-tokens").await;
    let token = app.connection_token(&owner.workspace_token).await;

    let first = HubClient::connect(&socket_url(&app.address, &token)).await;
    assert!(first.is_ok(), "the first upgrade is accepted");
    let again = app.get(&format!("/hubs/chat?id={token}"), None).await;
    // Not an upgrade request: refused before the token is even looked at.
    assert_problem(again, StatusCode::BAD_REQUEST, "websocket_required").await;
    let reused = HubClient::connect(&socket_url(&app.address, &token)).await;
    assert_eq!(http_status(reused.err()), Some(409), "reused");
    let unknown = "A".repeat(43);
    let unknown = HubClient::connect(&socket_url(&app.address, &unknown)).await;
    assert_eq!(http_status(unknown.err()), Some(404), "unknown");
    let malformed = HubClient::connect(&socket_url(&app.address, "not+a+token")).await;
    assert_eq!(http_status(malformed.err()), Some(404), "malformed");
    let in_url = HubClient::connect(&format!(
        "{}&access_token={}",
        socket_url(
            &app.address,
            &app.connection_token(&owner.workspace_token).await
        ),
        owner.workspace_token
    ))
    .await;
    assert_eq!(http_status(in_url.err()), Some(401), "token in the URL");
}

fn http_status(error: Option<tokio_tungstenite::tungstenite::Error>) -> Option<u16> {
    match error? {
        tokio_tungstenite::tungstenite::Error::Http(response) => Some(response.status().as_u16()),
        _ => None,
    }
}

#[tokio::test]
async fn the_handshake_accepts_any_version_up_to_1_and_refuses_others() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-handshake").await;
    // An older version is served, as ASP.NET Core serves it.
    let token = app.connection_token(&owner.workspace_token).await;
    let mut hub = HubClient::connect(&socket_url(&app.address, &token))
        .await
        .unwrap();
    hub.send_records(&[json!({"protocol": "json", "version": 0})])
        .await;
    assert_eq!(hub.next().await, json!({}));
    let left = hub
        .invoke("1", "LeaveConversation", json!([uuid::Uuid::nil()]))
        .await;
    assert_eq!(left, json!({"type": 3, "invocationId": "1"}));

    for (request, error) in [
        (
            json!({"protocol": "xml", "version": 1}),
            "Requested protocol 'xml' is not available.",
        ),
        (
            json!({"protocol": "json", "version": 7}),
            "The server does not support version 7 of the 'json' protocol.",
        ),
    ] {
        let token = app.connection_token(&owner.workspace_token).await;
        let mut hub = HubClient::connect(&socket_url(&app.address, &token))
            .await
            .unwrap();
        hub.send_records(&[request]).await;
        assert_eq!(hub.next().await, json!({ "error": error }));
        assert_eq!(
            hub.next_within(Duration::from_secs(5)).await,
            None,
            "closed"
        );
        assert!(hub.closed);
    }
}

#[tokio::test]
async fn records_are_split_per_frame_and_bad_ones_answered() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-framing").await;
    let token = app.connection_token(&owner.workspace_token).await;
    let mut hub = HubClient::connect(&socket_url(&app.address, &token))
        .await
        .unwrap();
    // The handshake, a ping, a call without id and a call with one, in one frame.
    hub.send_records(&[
        json!({"protocol": "json", "version": 1}),
        json!({"type": 6}),
        json!({"type": 1, "target": "Nope", "arguments": []}),
        json!({"type": 1, "invocationId": "1", "target": "Nope", "arguments": []}),
    ])
    .await;
    assert_eq!(hub.next().await, json!({}));
    assert_eq!(
        hub.reply().await,
        json!({"type": 3, "invocationId": "1", "error": "Unknown hub method 'Nope'"}),
        "only the call with an id is answered"
    );
    hub.send_records(&[
        json!({"type": 4, "invocationId": "2", "target": "Stream", "arguments": []}),
    ])
    .await;
    let completion = hub.reply().await;
    assert_eq!(completion["invocationId"], "2", "{completion}");
    assert!(completion["error"].as_str().unwrap().contains("streaming"));
    assert!(completion.get("result").is_none(), "an error, not both");
    // Wrong arguments are the caller's error, in words.
    let wrong = hub.invoke("3", "sendmessage", json!(["not-an-id"])).await;
    assert_eq!(
        wrong["error"],
        "'sendmessage' was called with the wrong arguments: (conversationId, body)"
    );

    // A void method completes without a result, not with a null one.
    let left = hub
        .invoke("4", "LeaveConversation", json!([uuid::Uuid::nil()]))
        .await;
    assert_eq!(left, json!({"type": 3, "invocationId": "4"}));

    // A record split across frames waits for its separator, as ASP.NET Core buffers it.
    hub.send_text("{\"type\":1,\"invocationId\":\"5\",\"target\":\"Leave")
        .await;
    hub.send_text(&format!(
        "Conversation\",\"arguments\":[\"{}\"]}}{RS}{{\"type\":1,\"invocationId\":\"6\",",
        uuid::Uuid::nil()
    ))
    .await;
    assert_eq!(hub.reply().await, json!({"type": 3, "invocationId": "5"}));
    hub.send_text(&format!("\"target\":\"Nope\",\"arguments\":[]}}{RS}"))
        .await;
    assert_eq!(
        hub.reply().await,
        json!({"type": 3, "invocationId": "6", "error": "Unknown hub method 'Nope'"})
    );

    // A record that is not one ends the connection.
    hub.send_text(&format!("[]{RS}")).await;
    let close = hub.close_message().await;
    assert_eq!(close["allowReconnect"], false);
    assert!(
        close["error"].as_str().unwrap().contains("not valid"),
        "{close}"
    );
}

#[tokio::test]
async fn an_oversize_message_ends_the_connection() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-oversize").await;
    let mut hub = app.hub(&owner.workspace_token).await;
    let body = "x".repeat(supportdesk::hub::protocol::MAX_RECORD_BYTES);
    let record = json!({"type": 1, "target": "Typing", "arguments": [body, true]});
    hub.try_send_text(&format!("{record}{RS}")).await;
    // Whatever was on its way (the connection's own presence), then nothing.
    hub.drain(Duration::from_secs(5)).await;
    assert!(hub.closed, "the server dropped the connection");
}

// The hub takes a record as long as the longest body REST takes, each character escaped by
// JSON as six bytes, with room for the invocation around it (checked when this compiles).
const _: () = assert!(
    supportdesk::hub::protocol::MAX_RECORD_BYTES
        >= supportdesk::inbox::text::MESSAGE_MAX_CHARS * 6 + 1024
);

#[tokio::test]
async fn the_longest_message_rest_takes_goes_through_the_hub_and_big_events_come_back() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-big").await;
    let conversation = app
        .start_conversation(&owner.workspace_token, "carla@example.org", "Hello")
        .await;
    let colleague = app.join(&owner, "agent").await;
    let mut mine = app.hub(&owner.workspace_token).await;
    let mut theirs = app.hub(&colleague.token).await;

    // The longest body REST takes, each character escaped by JSON as six bytes.
    let body = "\u{1}".repeat(supportdesk::inbox::text::MESSAGE_MAX_CHARS);
    let reply = mine
        .invoke("1", "SendMessage", json!([id(&conversation), body]))
        .await;
    assert_eq!(reply["result"]["kind"], "outgoing", "{reply}");
    let event = theirs.event_named("MessageCreated").await;
    assert_eq!(
        event["message"]["body"].as_str().map(str::len),
        Some(10_000)
    );

    // A ticket with a 45 000-character description (135 KB of UTF-8) reaches every agent.
    let description = "票".repeat(45_000);
    let ticket = app
        .open_ticket(
            &owner.workspace_token,
            "dan@example.org",
            json!({ "description": description }),
        )
        .await;
    let created = theirs.event_named("TicketCreated").await;
    assert_eq!(created["id"], ticket["id"]);
    assert_eq!(created["description"], description.as_str());
    assert!(!theirs.closed);
}

#[tokio::test]
async fn hub_methods_act_as_the_rest_routes_do() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-methods").await;
    let other = app.owner_with_workspace("hub-methods-other").await;
    let conversation = app
        .start_conversation(&owner.workspace_token, "carla@example.org", "Hello")
        .await;
    let theirs = app
        .start_conversation(&other.workspace_token, "dan@example.org", "Hi")
        .await;
    let colleague = app.join(&owner, "agent").await;
    let mut mine = app.hub(&owner.workspace_token).await;
    let mut theirs_hub = app.hub(&colleague.token).await;

    let reply = mine
        .invoke("1", "SendMessage", json!([id(&conversation), "On it"]))
        .await;
    assert_eq!(reply["result"]["kind"], "outgoing", "{reply}");
    assert_eq!(reply["result"]["body"], "On it");
    assert!(reply.get("error").is_none());
    let event = theirs_hub.event_named("MessageCreated").await;
    assert_eq!(event["conversationId"], id(&conversation));
    assert_eq!(event["message"]["id"], reply["result"]["id"]);
    assert!(event["message"]["author"]["displayName"].is_string());

    let note = mine
        .invoke("2", "sendnote", json!([id(&conversation), "Internal"]))
        .await;
    assert_eq!(note["result"]["kind"], "note");
    let stored = app
        .get_ok(
            &format!("/api/conversations/{}/messages", id(&conversation)),
            &owner.workspace_token,
        )
        .await;
    let kinds: Vec<&str> = stored["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["outgoing", "outgoing", "note"]);

    // Validation and isolation, as REST: nothing stored.
    let empty = mine
        .invoke("3", "SendMessage", json!([id(&conversation), "  "]))
        .await;
    assert!(
        empty["error"].as_str().unwrap().starts_with("body"),
        "{empty}"
    );
    let elsewhere = mine
        .invoke("4", "SendMessage", json!([id(&theirs), "Hijack"]))
        .await;
    assert_eq!(elsewhere["error"], "conversation not found");
    let joined = mine
        .invoke("5", "JoinConversation", json!([id(&theirs)]))
        .await;
    assert_eq!(joined["error"], "conversation not found");
    let after = app
        .get_ok(
            &format!("/api/conversations/{}/messages", id(&theirs)),
            &other.workspace_token,
        )
        .await;
    assert_eq!(after["messages"].as_array().unwrap().len(), 1);

    // Typing reaches the agents who joined the conversation, not the typist.
    let joined = theirs_hub
        .invoke("1", "JoinConversation", json!([id(&conversation)]))
        .await;
    assert!(
        joined.get("result").is_none() && joined.get("error").is_none(),
        "{joined}"
    );
    let joined = mine
        .invoke("6", "JoinConversation", json!([id(&conversation)]))
        .await;
    assert!(joined.get("error").is_none());
    mine.drain(Duration::from_millis(300)).await;
    let typing = mine
        .invoke("7", "Typing", json!([id(&conversation), true]))
        .await;
    assert!(typing.get("error").is_none(), "{typing}");
    let event = theirs_hub.event_named("Typing").await;
    assert_eq!(
        event,
        json!({
            "conversationId": id(&conversation),
            "isTyping": true,
            "by": "agent",
            "agentId": app.agent_id_of(&owner.workspace_token, owner.user_id).await,
            "displayName": event["displayName"],
        })
    );
    mine.no_event_within(Duration::from_millis(500)).await;
    theirs_hub
        .invoke("2", "LeaveConversation", json!([id(&conversation)]))
        .await;
    theirs_hub.drain(Duration::from_millis(300)).await;
    mine.invoke("8", "Typing", json!([id(&conversation), false]))
        .await;
    theirs_hub.no_event_within(Duration::from_millis(500)).await;
}

#[tokio::test]
async fn rest_writes_raise_events_in_their_workspace_only() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-events").await;
    let other = app.owner_with_workspace("hub-events-other").await;
    let mut mine = app.hub(&owner.workspace_token).await;
    let mut theirs = app.hub(&other.workspace_token).await;
    // Each hears its own owner come online; nothing after that.
    theirs.drain(Duration::from_millis(500)).await;

    let conversation = app
        .start_conversation(&owner.workspace_token, "erin@example.org", "Welcome")
        .await;
    let created = mine.event_named("ConversationCreated").await;
    assert_eq!(created["id"], conversation["id"]);
    assert_eq!(created["contact"]["email"], "erin@example.org");
    let first = mine.event_named("MessageCreated").await;
    assert_eq!(
        first["message"]["body"], "Welcome",
        "the conversation's first message"
    );
    assert_eq!(
        first["seq"].as_i64().unwrap(),
        created["seq"].as_i64().unwrap() + 1
    );

    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{}/messages", id(&conversation)),
        &json!({"body": "Anything else?"}),
        &owner.workspace_token,
        StatusCode::CREATED,
    )
    .await;
    let message = mine.event_named("MessageCreated").await;
    assert_eq!(message["message"]["body"], "Anything else?");

    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{}/status", id(&conversation)),
        &json!({"status": "resolved"}),
        &owner.workspace_token,
        StatusCode::OK,
    )
    .await;
    let updated = mine.event_named("ConversationUpdated").await;
    assert_eq!(updated["status"], "resolved");

    theirs.no_event_within(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn deactivation_and_role_changes_close_live_connections_for_good() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-lifecycle").await;
    let agent = app.join(&owner, "agent").await;
    let promoted = app.join(&owner, "agent").await;
    let mut agent_hub = app.hub(&agent.token).await;
    let mut promoted_hub = app.hub(&promoted.token).await;
    let theirs = app
        .start_conversation(&agent.token, "kim@example.org", "Assigned to the agent")
        .await;
    let mut watcher = app.hub(&owner.workspace_token).await;

    app.deactivate(&owner, agent.agent_id).await;
    // The work the deactivation sent back to the team is announced.
    let released = watcher.event_named("ConversationUpdated").await;
    assert_eq!(released["id"], theirs["id"]);
    assert_eq!(released["assigneeId"], Value::Null);
    let close = agent_hub.close_message().await;
    assert_eq!(close["allowReconnect"], false, "{close}");
    assert!(
        close["error"].as_str().unwrap().contains("deactivated"),
        "{close}"
    );
    assert_eq!(agent_hub.next_within(Duration::from_secs(5)).await, None);
    let again = app.negotiate(Some(&agent.token)).await;
    assert_eq!(again.status(), StatusCode::FORBIDDEN);

    app.json_ok(
        Method::PUT,
        &format!("/api/agents/{}/role", promoted.agent_id),
        &json!({"role": "admin"}),
        &owner.workspace_token,
        StatusCode::OK,
    )
    .await;
    let close = promoted_hub.close_message().await;
    assert_eq!(close["allowReconnect"], false, "{close}");
}

#[tokio::test]
async fn presence_follows_connections_with_a_grace_period() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-presence").await;
    let agent = app.join(&owner, "agent").await;
    let mut watcher = app.hub(&owner.workspace_token).await;
    assert_eq!(
        presence_of(&app, &owner.workspace_token, agent.agent_id).await,
        "offline"
    );

    let agent_hub = app.hub(&agent.token).await;
    assert_eq!(presence_event(&mut watcher, agent.agent_id).await, "online");
    assert_eq!(
        presence_of(&app, &owner.workspace_token, agent.agent_id).await,
        "online"
    );

    // A reconnect within the grace period changes nothing anyone sees.
    drop(agent_hub);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let agent_hub = app.hub(&agent.token).await;
    assert_eq!(
        presence_of(&app, &owner.workspace_token, agent.agent_id).await,
        "online"
    );
    drop(agent_hub);

    // Announced once the 10 s grace is over.
    assert_eq!(
        presence_event(&mut watcher, agent.agent_id).await,
        "offline"
    );
    assert_eq!(
        presence_of(&app, &owner.workspace_token, agent.agent_id).await,
        "offline"
    );
}

/// The next `PresenceChanged` about `agent_id` (others, like the watcher's own, skipped),
/// waiting up to 20 s.
async fn presence_event(hub: &mut HubClient, agent_id: uuid::Uuid) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let record = hub
            .next_within(left)
            .await
            .expect("a presence event in time");
        if record["target"] == "PresenceChanged"
            && record["arguments"][0]["agentId"] == agent_id.to_string()
        {
            return record["arguments"][0]["presence"]
                .as_str()
                .unwrap()
                .to_owned();
        }
    }
}

async fn presence_of(app: &crate::helpers::TestApp, token: &str, agent_id: uuid::Uuid) -> String {
    let agents = app.agents(token).await;
    agents
        .iter()
        .find(|a| a["id"] == agent_id.to_string())
        .map(|a| a["presence"].as_str().unwrap().to_owned())
        .expect("listed")
}

#[tokio::test]
async fn an_event_committed_on_one_replica_reaches_clients_of_another() {
    let app = spawn_app().await;
    let replica = spawn_replica(&app).await;
    let owner = app.owner_with_workspace("hub-replicas").await;
    let mut there = hub_at(&app.client, &replica.address, &owner.workspace_token).await;
    // The replica's subscription is up once it answers its own health check... give the
    // backplane a moment to subscribe.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let conversation = app
        .start_conversation(&owner.workspace_token, "fay@example.org", "From replica A")
        .await;
    let created = there.event_named("ConversationCreated").await;
    assert_eq!(created["id"], conversation["id"]);
}

#[tokio::test]
async fn without_redis_the_hub_still_serves_this_replica() {
    let app = crate::helpers::spawn_app_with(&[("REDIS_URL", "redis://127.0.0.1:1")]).await;
    let owner = app.owner_with_workspace("hub-no-redis").await;
    let mut hub = app.hub(&owner.workspace_token).await;
    let conversation = app
        .start_conversation(&owner.workspace_token, "gil@example.org", "Still here")
        .await;
    let created = hub.event_named("ConversationCreated").await;
    assert_eq!(created["id"], conversation["id"]);
    let reply = hub
        .invoke("1", "SendMessage", json!([id(&conversation), "Yes"]))
        .await;
    assert_eq!(reply["result"]["body"], "Yes");
}

#[tokio::test]
async fn shutdown_asks_clients_to_reconnect_and_deletion_closes_for_good() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-shutdown").await;
    let replica = spawn_replica(&app).await;
    let mut leaving = hub_at(&app.client, &replica.address, &owner.workspace_token).await;
    drop(replica);
    let close = leaving.close_message().await;
    assert_eq!(close["allowReconnect"], true, "{close}");

    let mut hub = app.hub(&owner.workspace_token).await;
    app.delete_workspace(&owner).await;
    let close = hub.close_message().await;
    assert_eq!(close["allowReconnect"], false, "{close}");
    assert!(
        close["error"].as_str().unwrap().contains("deleted"),
        "{close}"
    );
}

/// A replica killed without closing its sockets stops counting its agents within a minute of
/// its last renewal, and a live replica announces them offline.
#[tokio::test]
async fn a_killed_replica_stops_counting_its_agents() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-killed").await;
    let agent = app.join(&owner, "agent").await;
    let mut watcher = app.hub(&owner.workspace_token).await;

    let port = supportdesk_test_support::free_port();
    let address = format!("http://127.0.0.1:{port}");
    let child = crate::process::supportdesk(app.database_url())
        .env("REDIS_NAMESPACE", &app.settings.redis.namespace)
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut replica = supportdesk_test_support::process::KillOnDrop(child);
    crate::process::wait_healthy(&address).await;

    let _on_the_replica = hub_at(&app.client, &address, &agent.token).await;
    assert_eq!(presence_event(&mut watcher, agent.agent_id).await, "online");
    let killed_at = std::time::Instant::now();
    replica.kill().unwrap();
    replica.wait().unwrap();

    // Its entry counts up to 60 s after its last renewal; the live replica's next sweep
    // (every 20 s) announces the agent offline.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let record = watcher
            .next_within(left)
            .await
            .expect("offline within 90 s");
        if record["target"] == "PresenceChanged"
            && record["arguments"][0]["agentId"] == agent.agent_id.to_string()
        {
            assert_eq!(record["arguments"][0]["presence"], "offline");
            break;
        }
    }
    assert!(
        killed_at.elapsed() <= Duration::from_secs(85),
        "{:?}",
        killed_at.elapsed()
    );
    assert_eq!(
        presence_of(&app, &owner.workspace_token, agent.agent_id).await,
        "offline"
    );
}

#[tokio::test]
async fn the_hub_reports_its_connections_and_messages_on_metrics() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-metrics").await;
    let mut hub = app.hub(&owner.workspace_token).await;
    hub.invoke("1", "JoinConversation", json!([uuid::Uuid::nil()]))
        .await;
    let metrics = app
        .client
        .get(format!("{}/metrics", app.metrics_address))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for name in [
        "hub_open_connections{kind=\"agent\"}",
        "hub_messages_in_total",
        "hub_messages_out_total",
    ] {
        assert!(metrics.contains(name), "{name} missing from:\n{metrics}");
    }
}

/// Redis dies: each replica still serves its own connections, and nothing crashes or
/// hangs; Redis comes back: events cross replicas again, without a restart.
#[tokio::test]
async fn the_backplane_degrades_to_local_delivery_and_recovers() {
    let mut redis = supportdesk_test_support::redis_server::RedisServer::start();
    let app = crate::helpers::spawn_app_with(&[("REDIS_URL", &redis.url())]).await;
    let replica = crate::helpers::spawn_replica_with(&app, &[("REDIS_URL", &redis.url())]).await;
    let owner = app.owner_with_workspace("hub-recovery").await;
    let mut here = app.hub(&owner.workspace_token).await;
    let mut there = hub_at(&app.client, &replica.address, &owner.workspace_token).await;
    let reply = |body: &'static str, conversation: Value| {
        let app = &app;
        let token = owner.workspace_token.clone();
        async move {
            app.json_ok(
                Method::POST,
                &format!("/api/conversations/{}/messages", id(&conversation)),
                &json!({ "body": body }),
                &token,
                StatusCode::CREATED,
            )
            .await
        }
    };
    let conversation = app
        .start_conversation(&owner.workspace_token, "lee@example.org", "Hi")
        .await;
    assert_eq!(
        there.event_named("ConversationCreated").await["id"],
        conversation["id"],
        "across replicas while Redis is up"
    );
    // The conversation's first message, on both.
    assert_eq!(
        there.event_named("MessageCreated").await["message"]["body"],
        "Hi"
    );
    assert_eq!(
        here.event_named("MessageCreated").await["message"]["body"],
        "Hi"
    );

    redis.kill();
    let sent = reply("While Redis is down", conversation.clone()).await;
    let heard = here.event_named("MessageCreated").await;
    assert_eq!(
        heard["message"]["id"], sent["id"],
        "this replica's own connections"
    );
    there.no_event_within(Duration::from_secs(1)).await;
    assert!(!there.closed, "the other replica's connection stays open");

    redis.restart();
    // Once the backplane has resubscribed, a new reply crosses again.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let sent = reply("After Redis came back", conversation.clone()).await;
        let mut crossed = false;
        while let Some(record) = there.next_within(Duration::from_secs(1)).await {
            if record["target"] == "MessageCreated"
                && record["arguments"][0]["message"]["id"] == sent["id"]
            {
                crossed = true;
                break;
            }
        }
        if crossed {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "events cross replicas again within 30 s of Redis coming back"
        );
    }
}

#[tokio::test]
async fn a_workspace_cannot_open_connections_beyond_its_cap_nor_call_without_pause() {
    let app = crate::helpers::spawn_app_with(&[("HUB_MAX_CONNECTIONS_PER_WORKSPACE", "2")]).await;
    let owner = app.owner_with_workspace("hub-caps").await;
    let other = app.owner_with_workspace("hub-caps-other").await;
    let mut first = app.hub(&owner.workspace_token).await;
    let _second = app.hub(&owner.workspace_token).await;
    let token = app.connection_token(&owner.workspace_token).await;
    let third = HubClient::connect(&socket_url(&app.address, &token)).await;
    assert_eq!(http_status(third.err()), Some(429), "over the cap");
    let _elsewhere = app.hub(&other.workspace_token).await;

    // A burst of calls beyond the connection's allowance (40 at once, then 10 a second) is
    // refused, not run: the first 40 go through, and 100 sent at once cannot all.
    let burst: Vec<Value> = (0..100)
        .map(|i| json!({"type": 1, "invocationId": i.to_string(), "target": "LeaveConversation", "arguments": [uuid::Uuid::nil()]}))
        .collect();
    first.send_records(&burst).await;
    let mut refused = Vec::new();
    for _ in 0..100 {
        let completion = first.reply().await;
        let id: usize = completion["invocationId"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        match completion.get("error") {
            Some(error) => {
                assert_eq!(error, "too many messages; slow down");
                refused.push(id);
            }
            None => assert!(completion.get("result").is_none(), "{completion}"),
        }
    }
    assert!(!refused.is_empty(), "some of the burst is refused");
    assert!(
        refused.iter().all(|&id| id >= 40),
        "the first 40 go through: {refused:?}"
    );
}

#[tokio::test]
async fn a_client_that_skips_negotiation_authenticates_on_the_upgrade() {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;

    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-skip").await;
    let url = format!("{}/hubs/chat", app.address.replacen("http://", "ws://", 1));
    let mut request = url.as_str().into_client_request().unwrap();
    request.headers_mut().insert(
        "Authorization",
        format!("Bearer {}", owner.workspace_token).parse().unwrap(),
    );
    let (ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    let mut hub = HubClient::from_stream(ws);
    hub.send_records(&[json!({"protocol": "json", "version": 1})])
        .await;
    assert_eq!(hub.next().await, json!({}));
    let joined = hub
        .invoke("1", "LeaveConversation", json!([uuid::Uuid::nil()]))
        .await;
    assert!(joined.get("error").is_none(), "{joined}");

    // Without a credential, or with a user token, the upgrade is refused.
    let anonymous = tokio_tungstenite::connect_async(url.as_str()).await;
    assert_eq!(http_status(anonymous.err()), Some(401));
    let mut request = url.as_str().into_client_request().unwrap();
    request.headers_mut().insert(
        "Authorization",
        format!("Bearer {}", owner.user_token).parse().unwrap(),
    );
    assert_eq!(
        http_status(tokio_tungstenite::connect_async(request).await.err()),
        Some(403)
    );
}

#[tokio::test]
async fn the_server_pings_every_15_s_and_drops_a_client_silent_for_30_s() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-keepalive").await;
    let mut hub = app.hub(&owner.workspace_token).await;
    let heard = hub.listen_silently(Duration::from_secs(40)).await;
    let pings: Vec<Duration> = heard
        .iter()
        .filter(|(_, r)| r["type"] == 6)
        .map(|(at, _)| *at)
        .collect();
    assert!(
        !pings.is_empty() && pings[0] <= Duration::from_millis(15_500),
        "a ping within 15 s: {heard:?}"
    );
    let (closed_at, close) = heard
        .iter()
        .find(|(_, r)| r["type"] == 7)
        .expect("a Close for the silent client");
    assert!(
        (Duration::from_secs(29)..=Duration::from_secs(32)).contains(closed_at),
        "{closed_at:?}"
    );
    assert_eq!(close["allowReconnect"], true);
    assert!(close["error"].as_str().unwrap().contains("30 s"), "{close}");
}
