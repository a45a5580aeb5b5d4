//! A ticket's requester named three ways: an email (as before), an existing contact
//! (`{contactId}`), or, with `conversationId` and no `requester`, the conversation's contact,
//! who may have no email (a chat visitor). Ids are this workspace's or a 400 naming the field,
//! never a link into another workspace; `GET /api/tickets?requesterId=` lists one contact's.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app};
use crate::helpers_conversations::{id, ids};
use crate::helpers_widget::SITE;

async fn open(app: &TestApp, token: &str, body: Value) -> Value {
    app.json_ok(
        Method::POST,
        "/api/tickets",
        &body,
        token,
        StatusCode::CREATED,
    )
    .await
}

#[tokio::test]
async fn a_chat_visitor_without_an_email_can_be_a_requester() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("requesters").await;
    let token = owner.workspace_token.as_str();
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    let chat = app.visitor_said(&visitor, "My parcel is late").await;
    let contact = app.contact_in(&owner, chat).await;
    assert_eq!(contact["email"], Value::Null, "{contact}");

    // From the conversation, without naming anyone.
    let from_chat = open(
        &app,
        token,
        json!({"subject": "Late parcel", "conversationId": chat}),
    )
    .await;
    assert_eq!(from_chat["requester"]["id"], contact["id"], "{from_chat}");
    assert_eq!(from_chat["conversationId"], chat.to_string());

    // By the contact's id.
    let by_id = open(
        &app,
        token,
        json!({"subject": "Refund", "requester": {"contactId": contact["id"]}}),
    )
    .await;
    assert_eq!(by_id["requester"]["id"], contact["id"]);
    assert_eq!(by_id["conversationId"], Value::Null);

    // An email still works, and an explicit requester wins over the conversation's contact.
    let by_email = open(
        &app,
        token,
        json!({"subject": "Invoice", "requester": {"email": "carla@example.org", "name": "Carla"}, "conversationId": chat}),
    )
    .await;
    assert_eq!(by_email["requester"]["email"], "carla@example.org");
    assert_ne!(by_email["requester"]["id"], contact["id"]);

    // One contact's tickets, newest first.
    let theirs = app
        .get_ok(
            &format!(
                "/api/tickets?requesterId={}",
                contact["id"].as_str().unwrap()
            ),
            token,
        )
        .await;
    assert_eq!(ids(&theirs, "tickets"), [id(&by_id), id(&from_chat)]);
    let carlas = app
        .get_ok(
            &format!(
                "/api/tickets?requesterId={}&status=open",
                by_email["requester"]["id"].as_str().unwrap()
            ),
            token,
        )
        .await;
    assert_eq!(ids(&carlas, "tickets"), [id(&by_email)]);
    let nobody = app
        .get_ok(
            &format!("/api/tickets?requesterId={}", uuid::Uuid::now_v7()),
            token,
        )
        .await;
    assert_eq!(nobody["tickets"], json!([]));
    assert_problem(
        app.get("/api/tickets?requesterId=nope", Some(token)).await,
        StatusCode::BAD_REQUEST,
        "invalid_query",
    )
    .await;
}

#[tokio::test]
async fn another_workspaces_contact_or_conversation_is_refused_and_nothing_is_made() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("requesters-here").await;
    let other = app.owner_with_workspace("requesters-there").await;
    let token = owner.workspace_token.as_str();
    let foreign = app
        .start_conversation(&other.workspace_token, "dan@example.org", "Hi")
        .await;
    let foreign_contact = foreign["contact"]["id"].clone();

    for (body, field) in [
        (
            json!({"subject": "x", "requester": {"contactId": foreign_contact}}),
            "requester.contactId",
        ),
        (
            json!({"subject": "x", "conversationId": id(&foreign)}),
            "conversationId",
        ),
        (
            json!({"subject": "x", "requester": {"contactId": uuid::Uuid::now_v7()}}),
            "requester.contactId",
        ),
    ] {
        let problem = assert_problem(
            app.send(Method::POST, "/api/tickets", Some(&body), Some(token))
                .await,
            StatusCode::BAD_REQUEST,
            "validation_failed",
        )
        .await;
        assert!(problem["errors"][field].is_array(), "{body}: {problem}");
    }
    // Neither shape, or both at once: not a requester.
    for requester in [
        json!({"contactId": foreign_contact, "email": "a@example.org"}),
        json!({"contactId": "not-an-id"}),
        json!({}),
    ] {
        assert_problem(
            app.send(
                Method::POST,
                "/api/tickets",
                Some(&json!({"subject": "x", "requester": requester})),
                Some(token),
            )
            .await,
            StatusCode::BAD_REQUEST,
            "invalid_body",
        )
        .await;
    }
    assert_eq!(
        app.get_ok("/api/tickets", token).await["tickets"],
        json!([])
    );
    // The other workspace's contact has no ticket either.
    let theirs = app
        .get_ok(
            &format!(
                "/api/tickets?requesterId={}",
                foreign_contact.as_str().unwrap()
            ),
            &other.workspace_token,
        )
        .await;
    assert_eq!(theirs["tickets"], json!([]));
}
