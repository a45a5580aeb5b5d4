//! The inbox as agents work in it: the list's preview and unread counts, marking read, the
//! tabs' counts, a contact's earlier conversations, activity lines, replies that assign, and
//! the per-agent reply preference.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{Owner, TestApp, assert_problem, spawn_app};
use crate::helpers_conversations::Agent;
use crate::helpers_widget::{SITE, Visitor};

async fn read(app: &TestApp, token: &str, conversation: Uuid) -> reqwest::Response {
    app.send(
        Method::POST,
        &format!("/api/conversations/{conversation}/read"),
        None,
        Some(token),
    )
    .await
}

async fn conversation(app: &TestApp, token: &str, id: Uuid) -> Value {
    app.get_ok(&format!("/api/conversations/{id}"), token).await
}

async fn reply(app: &TestApp, token: &str, id: Uuid, body: &str) -> Value {
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{id}/messages"),
        &json!({ "body": body }),
        token,
        StatusCode::CREATED,
    )
    .await
}

/// A workspace with a widget, and an anonymous visitor on it.
async fn visited(app: &TestApp, slug: &str) -> (Owner, Visitor) {
    let owner = app.owner_with_workspace(slug).await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    (owner, visitor)
}

#[tokio::test]
async fn the_list_previews_the_last_message_and_counts_what_each_agent_has_not_read() {
    let app = spawn_app().await;
    let (owner, visitor) = visited(&app, "unread").await;
    let bea = app.join(&owner, "agent").await;
    let id = app
        .visitor_said(&visitor, "Hello, where is my order?")
        .await;
    app.visitor_said(&visitor, &"x".repeat(300)).await;

    let mine = conversation(&app, &owner.workspace_token, id).await;
    assert_eq!(mine["channel"], "chat");
    assert_eq!(mine["unreadCount"], 2);
    assert_eq!(mine["lastMessage"]["kind"], "incoming");
    assert_eq!(mine["lastMessage"]["body"], "x".repeat(200));
    // An anonymous visitor has a friendly, stable name; their `name` stays unknown.
    let shown = mine["contact"]["displayName"].as_str().unwrap().to_owned();
    assert!(shown.contains(' '), "{shown}");
    assert!(mine["contact"]["name"].is_null());
    assert_eq!(
        conversation(&app, &bea.token, id).await["contact"]["displayName"],
        shown
    );

    // Reading is per agent.
    assert_eq!(
        read(&app, &owner.workspace_token, id).await.status(),
        StatusCode::NO_CONTENT
    );
    let list = app
        .get_ok("/api/conversations?assignee=all", &owner.workspace_token)
        .await;
    assert_eq!(list["conversations"][0]["unreadCount"], 0);
    assert_eq!(conversation(&app, &bea.token, id).await["unreadCount"], 2);

    // A reply is the preview now, and does not count as unread; a new message does.
    reply(&app, &owner.workspace_token, id, "On its way!").await;
    let after_reply = conversation(&app, &owner.workspace_token, id).await;
    assert_eq!(after_reply["lastMessage"]["kind"], "outgoing");
    assert_eq!(after_reply["lastMessage"]["body"], "On its way!");
    assert_eq!(after_reply["unreadCount"], 0);
    app.visitor_said(&visitor, "Thanks").await;
    assert_eq!(
        conversation(&app, &owner.workspace_token, id).await["unreadCount"],
        1
    );
}

#[tokio::test]
async fn an_agent_who_joins_later_does_not_inherit_the_backlog_as_unread() {
    let app = spawn_app().await;
    let (owner, visitor) = visited(&app, "backlog").await;
    let id = app.visitor_said(&visitor, "Anyone there?").await;
    let newcomer = app.join(&owner, "agent").await;
    assert_eq!(
        conversation(&app, &newcomer.token, id).await["unreadCount"],
        0
    );
    app.visitor_said(&visitor, "Hello?").await;
    assert_eq!(
        conversation(&app, &newcomer.token, id).await["unreadCount"],
        1
    );
}

#[tokio::test]
async fn marking_read_refuses_what_is_not_there() {
    let app = spawn_app().await;
    let (owner, visitor) = visited(&app, "read-404").await;
    let id = app.visitor_said(&visitor, "Hi").await;
    let other = app.owner_with_workspace("read-404-other").await;
    assert_problem(
        read(&app, &other.workspace_token, id).await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    assert_problem(
        read(&app, &owner.workspace_token, Uuid::new_v4()).await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    let response = app
        .send(
            Method::POST,
            "/api/conversations/not-a-uuid/read",
            None,
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let response = read(&app, &owner.user_token, id).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    // Nothing was marked by those.
    assert_eq!(
        conversation(&app, &owner.workspace_token, id).await["unreadCount"],
        1
    );
}

#[tokio::test]
async fn the_tabs_count_open_and_pending_conversations() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("counts").await;
    let bea = app.join(&owner, "agent").await;
    // Started by the Owner: assigned to them.
    let first = app
        .start_conversation(&owner.workspace_token, "a@example.org", "Hi A")
        .await;
    app.start_conversation(&owner.workspace_token, "b@example.org", "Hi B")
        .await;
    let third = app
        .start_conversation(&bea.token, "c@example.org", "Hi C")
        .await;
    let unassigned = app
        .start_conversation(&bea.token, "d@example.org", "Hi D")
        .await;
    let path =
        |c: &Value, what: &str| format!("/api/conversations/{}/{what}", c["id"].as_str().unwrap());
    let token = owner.workspace_token.as_str();
    app.json_ok(
        Method::POST,
        &path(&first, "status"),
        &json!({"status": "pending"}),
        token,
        StatusCode::OK,
    )
    .await;
    app.json_ok(
        Method::POST,
        &path(&third, "status"),
        &json!({"status": "resolved"}),
        token,
        StatusCode::OK,
    )
    .await;
    app.json_ok(
        Method::POST,
        &path(&unassigned, "assign"),
        &json!({"assigneeId": null}),
        token,
        StatusCode::OK,
    )
    .await;

    let counts = app.get_ok("/api/conversations/counts", token).await;
    assert_eq!(
        counts,
        json!({
            "mine": {"open": 1, "pending": 1},
            "unassigned": {"open": 1, "pending": 0},
            "all": {"open": 2, "pending": 1},
        })
    );
    let bea_counts = app.get_ok("/api/conversations/counts", &bea.token).await;
    assert_eq!(bea_counts["mine"], json!({"open": 0, "pending": 0}));
    let response = app
        .get("/api/conversations/counts", Some(&owner.user_token))
        .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_contacts_conversations_are_listed_apart() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("by-contact").await;
    let token = owner.workspace_token.as_str();
    let carla = app
        .start_conversation(token, "carla@example.org", "One")
        .await;
    app.start_conversation(token, "dan@example.org", "Two")
        .await;
    let contact = carla["contact"]["id"].as_str().unwrap();
    assert_eq!(carla["channel"], "manual");
    assert_eq!(carla["contact"]["displayName"], "Carla");
    let list = app
        .get_ok(&format!("/api/conversations?contactId={contact}"), token)
        .await;
    let ids: Vec<&str> = list["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [carla["id"].as_str().unwrap()]);
    let response = app
        .get("/api/conversations?contactId=nope", Some(token))
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn activity_lines_come_from_the_event_log() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("activity").await;
    let bea = app.join(&owner, "agent").await;
    let token = owner.workspace_token.as_str();
    let started = app
        .start_conversation(token, "carla@example.org", "Hello")
        .await;
    let id = started["id"].as_str().unwrap();
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{id}/assign"),
        &json!({"assigneeId": bea.agent_id}),
        token,
        StatusCode::OK,
    )
    .await;
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{id}/notes"),
        &json!({"body": "FYI"}),
        token,
        StatusCode::CREATED,
    )
    .await;
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{id}/status"),
        &json!({"status": "resolved"}),
        &bea.token,
        StatusCode::OK,
    )
    .await;
    app.open_ticket(token, "carla@example.org", json!({"conversationId": id}))
        .await;
    // Another conversation's activity stays its own.
    app.start_conversation(token, "dan@example.org", "Other")
        .await;

    let activity = app
        .get_ok(&format!("/api/conversations/{id}/activity"), &bea.token)
        .await;
    let lines: Vec<(String, Option<String>)> = activity["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_owned(),
                e["data"]["change"].as_str().map(str::to_owned),
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            ("conversation.created".to_owned(), None),
            (
                "conversation.updated".to_owned(),
                Some("assignee".to_owned())
            ),
            ("conversation.updated".to_owned(), Some("status".to_owned())),
            ("ticket.created".to_owned(), None),
        ]
    );
    let events = activity["events"].as_array().unwrap();
    assert_eq!(events[1]["data"]["assigneeId"], json!(bea.agent_id));
    assert_eq!(events[2]["actor"]["id"], json!(bea.agent_id));
    assert!(
        events
            .windows(2)
            .all(|w| w[0]["seq"].as_i64() < w[1]["seq"].as_i64())
    );

    let other = app.owner_with_workspace("activity-other").await;
    let response = app
        .get(
            &format!("/api/conversations/{id}/activity"),
            Some(&other.workspace_token),
        )
        .await;
    assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
}

async fn set_auto_assign(app: &TestApp, owner: &Owner, on: bool) {
    let settings = app
        .json_ok(
            Method::PATCH,
            "/api/settings",
            &json!({"inbox": {"autoAssignOnReply": on}}),
            &owner.workspace_token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(settings["inbox"]["autoAssignOnReply"], on);
}

#[tokio::test]
async fn replying_to_an_unassigned_conversation_assigns_it_unless_the_workspace_says_not() {
    let app = spawn_app().await;
    let (owner, visitor) = visited(&app, "auto-assign").await;
    let bea: Agent = app.join(&owner, "agent").await;
    let settings = app.get_ok("/api/settings", &owner.workspace_token).await;
    assert_eq!(settings["inbox"]["autoAssignOnReply"], true);

    let id = app.visitor_said(&visitor, "Help").await;
    // A note is not a reply.
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{id}/notes"),
        &json!({"body": "Looking"}),
        &bea.token,
        StatusCode::CREATED,
    )
    .await;
    assert!(conversation(&app, &bea.token, id).await["assigneeId"].is_null());
    reply(&app, &bea.token, id, "Hi, I am on it").await;
    assert_eq!(
        conversation(&app, &bea.token, id).await["assigneeId"],
        json!(bea.agent_id)
    );
    // Once assigned, someone else's reply leaves it with Bea.
    reply(&app, &owner.workspace_token, id, "Me too").await;
    assert_eq!(
        conversation(&app, &bea.token, id).await["assigneeId"],
        json!(bea.agent_id)
    );
    let activity = app
        .get_ok(&format!("/api/conversations/{id}/activity"), &bea.token)
        .await;
    let assigned = &activity["events"].as_array().unwrap()[1];
    assert_eq!(assigned["data"]["change"], "assignee");
    assert_eq!(assigned["actor"]["id"], json!(bea.agent_id));

    set_auto_assign(&app, &owner, false).await;
    let (owner2_visitor_conversation, token) = {
        let site_key = app
            .get_ok("/api/settings/widget", &owner.workspace_token)
            .await["siteKey"]
            .as_str()
            .unwrap()
            .to_owned();
        let other_visitor = app.visitor(&site_key, None).await;
        (
            app.visitor_said(&other_visitor, "Hello").await,
            bea.token.clone(),
        )
    };
    reply(&app, &token, owner2_visitor_conversation, "Hi").await;
    assert!(conversation(&app, &token, owner2_visitor_conversation).await["assigneeId"].is_null());

    // Bad settings change nothing.
    let response = app
        .patch_json(
            "/api/settings",
            &json!({"inbox": {"autoAssignOnReply": "yes"}}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let response = app
        .patch_json(
            "/api/settings",
            &json!({"inbox": {"surprise": true}}),
            Some(&owner.workspace_token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        app.get_ok("/api/settings", &owner.workspace_token).await["inbox"]["autoAssignOnReply"],
        false
    );
    let response = app
        .patch_json(
            "/api/settings",
            &json!({"inbox": {"autoAssignOnReply": true}}),
            Some(&bea.token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn each_agent_chooses_what_enter_does_and_which_notifications_they_get() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("prefs").await;
    let token = owner.workspace_token.as_str();
    let profile = app.get_ok("/api/me/profile", token).await;
    assert_eq!(profile["sendWithEnter"], true);
    assert_eq!(
        profile["notificationPreferences"],
        json!({
            "emailOnAssignment": true,
            "emailOnNewConversation": false,
            "emailOnContactReply": true,
            "emailOnMention": true,
            "desktop": true,
            "sound": false,
        })
    );
    let changed = app
        .json_ok(
            Method::PATCH,
            "/api/me/profile",
            &json!({"sendWithEnter": false, "notificationPreferences": {"sound": true}}),
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(changed["sendWithEnter"], false);
    assert_eq!(changed["notificationPreferences"]["sound"], true);
    assert_eq!(changed["notificationPreferences"]["emailOnMention"], true);
    let response = app
        .patch_json(
            "/api/me/profile",
            &json!({"sendWithEnter": "no"}),
            Some(token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        app.get_ok("/api/me/profile", token).await["sendWithEnter"],
        false
    );
}
