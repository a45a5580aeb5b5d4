//! Visitors on the chat hub: their `SendMessage` and `Typing`, and what reaches them (their
//! own conversation's messages but never a note, agent typing, status changes) and what
//! does not (anything of another visitor's, anything of the team's).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app};
use crate::helpers_widget::SITE;

const QUIET: Duration = Duration::from_millis(700);

#[tokio::test]
async fn visitors_and_agents_chat_live_through_the_hub() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-hub").await;
    let agent = app.owner_agent(&owner).await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let mut team = app.hub(&agent.token).await;
    team.drain(QUIET).await;

    let visitor = app.visitor(&site_key, None).await;
    assert_eq!(
        visitor.session["agentsOnline"], true,
        "the agent is connected"
    );
    let mut widget = app.hub(&visitor.token).await;
    let stranger = app.visitor(&site_key, None).await;
    let mut other_widget = app.hub(&stranger.token).await;

    // Typing before any conversation exists goes nowhere, and is fine.
    let done = widget.invoke("0", "Typing", json!([true])).await;
    assert!(done.get("error").is_none(), "{done}");

    let done = widget
        .invoke("1", "SendMessage", json!(["Is anyone there?"]))
        .await;
    let result = &done["result"];
    assert_eq!(result["message"]["kind"], "incoming", "{done}");
    assert_eq!(result["message"]["body"], "Is anyone there?");
    let conversation = result["conversationId"].as_str().unwrap().to_owned();
    let created = team.event_named("ConversationCreated").await;
    assert_eq!(created["id"], conversation);
    assert_eq!(created["assigneeId"], Value::Null);
    let message = team.event_named("MessageCreated").await;
    assert_eq!(message["conversationId"], conversation);
    assert_eq!(message["message"]["author"], Value::Null);
    let echo = widget.event_named("MessageCreated").await;
    assert_eq!(
        echo["message"]["id"], result["message"]["id"],
        "the visitor's other tabs"
    );

    // The agent joins and types; the visitor sees it.
    team.invoke("2", "JoinConversation", json!([conversation]))
        .await;
    team.invoke("3", "Typing", json!([conversation, true]))
        .await;
    let typing = widget.event_named("Typing").await;
    assert_eq!(typing["by"], "agent");
    assert_eq!(typing["agentId"], agent.agent_id.to_string());
    assert_eq!(typing["isTyping"], true);
    // The visitor types; the joined agent sees it.
    widget.invoke("4", "Typing", json!([true])).await;
    let typing = team.event_named("Typing").await;
    assert_eq!(typing["by"], "visitor");
    assert_eq!(typing["agentId"], Value::Null);
    assert_eq!(typing["conversationId"], conversation);

    // A reply reaches the visitor live; a note never does.
    let reply = team
        .invoke(
            "5",
            "SendMessage",
            json!([conversation, "Yes! How can I help?"]),
        )
        .await;
    assert!(reply.get("error").is_none(), "{reply}");
    let heard = widget.event_named("MessageCreated").await;
    assert_eq!(heard["message"]["kind"], "outgoing");
    assert_eq!(heard["message"]["body"], "Yes! How can I help?");
    assert!(heard["message"]["author"]["displayName"].is_string());
    let note = team
        .invoke("6", "SendNote", json!([conversation, "internal only"]))
        .await;
    assert!(note.get("error").is_none(), "{note}");
    let path = format!("/api/conversations/{conversation}/messages");
    let response = app
        .send(
            Method::POST,
            &path,
            Some(&json!({"body": "From REST"})),
            Some(&agent.token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let heard = widget.event_named("MessageCreated").await;
    assert_eq!(
        heard["message"]["body"], "From REST",
        "the note was skipped"
    );

    // Status changes reach the visitor as a status only; assignment does not reach them.
    let path = format!("/api/conversations/{conversation}/assign");
    app.send(
        Method::POST,
        &path,
        Some(&json!({"assigneeId": agent.agent_id})),
        Some(&agent.token),
    )
    .await;
    let path = format!("/api/conversations/{conversation}/status");
    app.send(
        Method::POST,
        &path,
        Some(&json!({"status": "pending"})),
        Some(&agent.token),
    )
    .await;
    let (name, update) = widget.event().await;
    assert_eq!(name, "ConversationUpdated");
    assert_eq!(update, json!({"id": conversation, "status": "pending"}));

    // Nothing of it reached the other visitor.
    other_widget.no_event_within(QUIET).await;

    // Visitors call only their own methods, with their own arguments.
    for (target, arguments) in [
        ("SendNote", json!([conversation, "sneaky"])),
        ("JoinConversation", json!([conversation])),
        ("SendMessage", json!([conversation, "as an agent"])),
        ("Typing", json!([conversation, true])),
        ("SendMessage", json!([""])),
        ("SendMessage", json!(["x".repeat(10_001)])),
    ] {
        let refused = widget.invoke("7", target, arguments).await;
        assert!(
            refused["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{target}: {refused}"
        );
    }
    let thread = app.visitor_conversation(&visitor).await;
    assert_eq!(thread["messages"].as_array().unwrap().len(), 3, "{thread}");
}

#[tokio::test]
async fn visitor_negotiation_is_bounded_like_an_agents() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-hub-auth").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    let response = app.negotiate(Some(&visitor.token)).await;
    assert_eq!(response.status(), StatusCode::OK);

    let (_, api_key) = app.api_key(&owner.workspace_token).await;
    let response = app.negotiate(Some(&api_key)).await;
    assert_problem(response, StatusCode::FORBIDDEN, "api_key_not_allowed").await;

    // A visitor's tabs, not a script's loop: five connections at most.
    let mut tabs = Vec::new();
    for _ in 0..5 {
        tabs.push(app.hub(&visitor.token).await);
    }
    let token = app.connection_token(&visitor.token).await;
    let refused = app
        .client
        .get(app.url(&format!("/hubs/chat?id={token}")))
        .header("connection", "upgrade")
        .header("upgrade", "websocket")
        .header("sec-websocket-version", "13")
        .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")
        .send()
        .await
        .unwrap();
    assert_problem(refused, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;

    // A deleted workspace closes its visitors' connections for good.
    let mut widget = tabs.remove(0);
    app.delete_workspace(&owner).await;
    let close = widget.close_message().await;
    assert_eq!(close["allowReconnect"], false, "{close}");
    let response = app.negotiate(Some(&visitor.token)).await;
    assert_problem(response, StatusCode::FORBIDDEN, "workspace_deleted").await;
}
