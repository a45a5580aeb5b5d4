//! The visitor's routes: messages reach the inbox unassigned, replies come back, notes never
//! do; one visitor never reads another's conversation; limits and bad input change nothing;
//! the address a visitor gives is shown to agents as their claim, apart from an address the
//! workspace established.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use supportdesk::credentials::widget_identity::signature;

use crate::helpers::{assert_problem, spawn_app};
use crate::helpers_widget::SITE;

#[tokio::test]
async fn a_visitor_writes_into_the_inbox_and_reads_replies_but_never_notes() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-inbox").await;
    let agent = app.owner_agent(&owner).await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;

    assert_eq!(app.visitor_conversation(&visitor).await, Value::Null);
    let conversation = app.visitor_said(&visitor, "  Where is my order?  ").await;
    assert_eq!(
        app.visitor_said(&visitor, "It was due Monday.").await,
        conversation,
        "the open conversation goes on"
    );

    let unassigned = app
        .get_ok("/api/conversations?assignee=unassigned", &agent.token)
        .await;
    let listed = &unassigned["conversations"][0];
    assert_eq!(listed["id"], conversation.to_string(), "{unassigned}");
    assert_eq!(listed["assigneeId"], Value::Null);
    assert_eq!(listed["status"], "open");
    assert_eq!(listed["contact"]["email"], Value::Null);
    assert_eq!(listed["contact"]["claimedEmail"], Value::Null);

    let path = format!("/api/conversations/{conversation}");
    app.json_ok(
        Method::POST,
        &format!("{path}/messages"),
        &json!({"body": "On its way!"}),
        &agent.token,
        StatusCode::CREATED,
    )
    .await;
    app.json_ok(
        Method::POST,
        &format!("{path}/notes"),
        &json!({"body": "internal: courier late"}),
        &agent.token,
        StatusCode::CREATED,
    )
    .await;
    let thread = app.visitor_conversation(&visitor).await;
    assert_eq!(thread["id"], conversation.to_string());
    assert_eq!(thread["status"], "open");
    let messages = thread["messages"].as_array().unwrap();
    let bodies: Vec<&str> = messages
        .iter()
        .map(|m| m["body"].as_str().unwrap())
        .collect();
    assert_eq!(
        bodies,
        ["Where is my order?", "It was due Monday.", "On its way!"]
    );
    assert_eq!(messages[0]["kind"], "incoming");
    assert_eq!(messages[0]["author"], Value::Null);
    assert_eq!(messages[2]["kind"], "outgoing");
    assert_eq!(messages[2]["authorAgentId"], agent.agent_id.to_string());
    assert!(
        messages[2]["author"]["displayName"]
            .as_str()
            .is_some_and(|n| !n.is_empty())
    );
    assert!(
        !thread.to_string().contains("internal"),
        "never a note: {thread}"
    );

    // Another visitor of the same workspace sees nothing of it.
    let stranger = app.visitor(&site_key, None).await;
    assert_eq!(app.visitor_conversation(&stranger).await, Value::Null);
    let theirs = app.visitor_said(&stranger, "Hello?").await;
    assert_ne!(theirs, conversation);
    assert_eq!(
        app.visitor_conversation(&stranger).await["messages"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Resolved, it stays the visitor's conversation for 7 days (their next message would
    // reopen it: `csat.rs`); after that, the next message opens a new one.
    app.json_ok(
        Method::POST,
        &format!("{path}/status"),
        &json!({"status": "resolved"}),
        &agent.token,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        app.visitor_conversation(&visitor).await["status"],
        "resolved"
    );
    app.age_resolution(&owner, conversation, 8).await;
    assert_eq!(app.visitor_conversation(&visitor).await, Value::Null);
    let next = app.visitor_said(&visitor, "One more thing").await;
    assert_ne!(next, conversation);
}

#[tokio::test]
async fn bad_messages_are_refused_and_store_nothing() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-bad-input").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;

    for body in ["", "   ", &"x".repeat(10_001)] {
        let response = app.visitor_says(&visitor, body).await;
        assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    }
    for body in [
        json!({}),
        json!({"body": 5}),
        json!({"body": "hi", "conversationId": "x"}),
    ] {
        let response = app
            .send(
                Method::POST,
                "/widget/v1/messages",
                Some(&body),
                Some(&visitor.token),
            )
            .await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
    }
    let response = app
        .client
        .post(app.url("/widget/v1/messages"))
        .bearer_auth(&visitor.token)
        .header("content-type", "application/json")
        .body("{\"body\": \"unterminated")
        .send()
        .await
        .unwrap();
    assert_problem(response, StatusCode::BAD_REQUEST, "malformed_json").await;
    assert_eq!(
        app.visitor_conversation(&visitor).await,
        Value::Null,
        "nothing stored"
    );
    app.visitor_said(&visitor, &"y".repeat(10_000)).await;
}

#[tokio::test]
async fn messages_and_conversations_are_limited_per_visitor() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-limits").await;
    let agent = app.owner_agent(&owner).await;
    let site_key = app.widget_site(&owner, &[SITE]).await;

    // Six conversations in twelve hours; the seventh waits.
    let opener = app.visitor(&site_key, None).await;
    for i in 0..6 {
        let conversation = app.visitor_said(&opener, &format!("question {i}")).await;
        let path = format!("/api/conversations/{conversation}/status");
        app.json_ok(
            Method::POST,
            &path,
            &json!({"status": "resolved"}),
            &agent.token,
            StatusCode::OK,
        )
        .await;
        // Past reopening: the next message opens a conversation.
        app.age_resolution(&owner, conversation, 8).await;
    }
    let response = app.visitor_says(&opener, "question 7").await;
    assert!(response.headers().contains_key("retry-after"));
    assert_problem(response, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    assert_eq!(
        app.visitor_conversation(&opener).await,
        Value::Null,
        "nothing opened"
    );

    // Twenty messages a minute.
    let chatty = app.visitor(&site_key, None).await;
    for i in 0..20 {
        app.visitor_said(&chatty, &format!("message {i}")).await;
    }
    let response = app.visitor_says(&chatty, "message 21").await;
    let retry_after: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry_after));
    assert_problem(response, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    let thread = app.visitor_conversation(&chatty).await;
    assert_eq!(thread["messages"].as_array().unwrap().len(), 20);
    // Another visitor is not held up by it.
    let other = app.visitor(&site_key, None).await;
    app.visitor_said(&other, "hello").await;
}

#[tokio::test]
async fn a_visitor_leaves_an_email_for_replies() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-contact").await;
    let agent = app.owner_agent(&owner).await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    let conversation = app.visitor_said(&visitor, "Call me back").await;

    let body = json!({"email": " Finn@Example.org ", "name": " Finn "});
    let saved = app
        .json_ok(
            Method::POST,
            "/widget/v1/contact",
            &body,
            &visitor.token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(saved, json!({"email": "finn@example.org", "name": "Finn"}));
    let record = app
        .get_ok(&format!("/api/conversations/{conversation}"), &agent.token)
        .await;
    assert_eq!(
        record["contact"]["email"],
        Value::Null,
        "the visitor's word only"
    );
    assert_eq!(record["contact"]["claimedEmail"], "finn@example.org");
    assert_eq!(record["contact"]["name"], "Finn");

    for bad in [
        json!({"email": "not-an-email"}),
        json!({"name": "x".repeat(201)}),
        json!({}),
        json!({"phone": "1"}),
    ] {
        let response = app
            .send(
                Method::POST,
                "/widget/v1/contact",
                Some(&bad),
                Some(&visitor.token),
            )
            .await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    // The email is the visitor's word: it never links them to the contact an agent knows by
    // that address, so an agent's conversation with it never reaches their widget.
    let claimer = app.visitor(&site_key, None).await;
    let claim = json!({"email": "gina@example.org"});
    app.json_ok(
        Method::POST,
        "/widget/v1/contact",
        &claim,
        &claimer.token,
        StatusCode::OK,
    )
    .await;
    let with_gina = app
        .start_conversation(
            &agent.token,
            "gina@example.org",
            "Hello Gina, about your refund",
        )
        .await;
    assert_ne!(with_gina["contact"]["id"], Value::Null);
    assert_eq!(app.visitor_conversation(&claimer).await, Value::Null);
    let own = app.visitor_said(&claimer, "Hi, it is Gina").await;
    assert_ne!(own.to_string(), with_gina["id"].as_str().unwrap());
    let thread = app.visitor_conversation(&claimer).await;
    assert!(!thread.to_string().contains("refund"), "{thread}");

    // Changing details is limited (10 an hour).
    for i in 0..9 {
        let body = json!({"name": format!("Gina {i}")});
        app.json_ok(
            Method::POST,
            "/widget/v1/contact",
            &body,
            &claimer.token,
            StatusCode::OK,
        )
        .await;
    }
    let response = app
        .send(
            Method::POST,
            "/widget/v1/contact",
            Some(&json!({"name": "again"})),
            Some(&claimer.token),
        )
        .await;
    assert_problem(response, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}

#[tokio::test]
async fn racing_first_messages_open_one_conversation() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-race").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    let sends =
        (0..8).map(|i| app.visitor_says(&visitor, if i % 2 == 0 { "hello" } else { "anyone?" }));
    let mut conversations = std::collections::BTreeSet::new();
    for response in futures::future::join_all(sends).await {
        assert_eq!(response.status(), StatusCode::CREATED);
        let posted: Value = response.json().await.unwrap();
        conversations.insert(posted["conversationId"].as_str().unwrap().to_owned());
    }
    assert_eq!(conversations.len(), 1, "{conversations:?}");
    let thread = app.visitor_conversation(&visitor).await;
    assert_eq!(thread["messages"].as_array().unwrap().len(), 8);
}

#[tokio::test]
async fn agents_tell_a_visitors_claimed_email_from_an_established_one() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-claims").await;
    let agent = app.owner_agent(&owner).await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let secret = app.identity_secret(&owner).await;

    // A customer the workspace knows by address.
    let real = app
        .start_conversation(&agent.token, "ivy@example.org", "About your order")
        .await;
    assert_eq!(real["contact"]["email"], "ivy@example.org");
    assert_eq!(real["contact"]["claimedEmail"], Value::Null);

    // A visitor types the same address: a claim, shown apart.
    let visitor = app.visitor(&site_key, None).await;
    let conversation = app.visitor_said(&visitor, "It is Ivy").await;
    let typed = json!({"email": "ivy@example.org", "name": "Ivy"});
    app.json_ok(
        Method::POST,
        "/widget/v1/contact",
        &typed,
        &visitor.token,
        StatusCode::OK,
    )
    .await;
    let contact = app.contact_in(&owner, conversation).await;
    assert_ne!(contact["id"], real["contact"]["id"]);
    assert_eq!(
        contact,
        json!({"id": contact["id"], "name": "Ivy", "displayName": "Ivy", "email": null,
               "claimedEmail": "ivy@example.org", "externalId": null})
    );
    let listed = app.get_ok("/api/conversations", &agent.token).await;
    let entry = listed["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == conversation.to_string())
        .unwrap()
        .clone();
    assert_eq!(entry["contact"], contact);

    // An identity's email is a claim too, signed or not: the signature covers the external id
    // only.
    let signed = json!({"externalId": "u-5", "email": "jo@example.org",
        "hash": signature(&secret, "u-5")});
    let identified = app
        .visitor_with(&json!({"siteKey": site_key, "identity": signed}))
        .await;
    let theirs = app.visitor_said(&identified, "Hi").await;
    let contact = app.contact_in(&owner, theirs).await;
    assert_eq!(contact["email"], Value::Null, "{contact}");
    assert_eq!(contact["claimedEmail"], "jo@example.org", "{contact}");

    // A ticket is filed under the address an agent gives, and shows the contact the same way.
    let ticket = app
        .json_ok(
            Method::POST,
            "/api/tickets",
            &json!({"subject": "Refund", "requester": {"email": "ivy@example.org"},
                "conversationId": conversation}),
            &agent.token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(ticket["requester"], real["contact"]);
    let tickets = app.get_ok("/api/tickets", &agent.token).await;
    assert_eq!(tickets["tickets"][0]["requester"], real["contact"]);
}
