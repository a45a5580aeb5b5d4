//! What a widget visitor's token is worth over time (security review, "Live connections that
//! keep their promises"): a token issued to an identity that was only claimed (no signature,
//! verification off) stops speaking for its contact once the identity is verified, or once
//! the workspace turns verification on, on every route, every hub call and every replica.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use supportdesk::credentials::widget_identity::signature;

use crate::helpers::{TestApp, assert_problem, spawn_app, spawn_replica};
use crate::helpers_hub::hub_at;
use crate::helpers_widget::{SITE, Visitor};

/// Time for a fresh replica's subscriptions (events, membership changes) to come up.
const SUBSCRIBED: Duration = Duration::from_millis(500);

fn session(site_key: &str, identity: Value) -> Value {
    json!({"siteKey": site_key, "identity": identity})
}

/// Asserts every visitor route refuses `visitor`'s token with 401 and a detail holding
/// `because`.
async fn refused_everywhere(app: &TestApp, visitor: &Visitor, because: &str) {
    let responses = [
        app.get("/widget/v1/conversation", Some(&visitor.token))
            .await,
        app.visitor_says(visitor, "still me").await,
        app.send(
            Method::POST,
            "/widget/v1/contact",
            Some(&json!({"email": "mallory@example.net", "name": "Mallory"})),
            Some(&visitor.token),
        )
        .await,
        app.negotiate(Some(&visitor.token)).await,
    ];
    for response in responses {
        let path = response.url().path().to_owned();
        let problem = assert_problem(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
        let detail = problem["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(because), "{path}: {problem}");
    }
}

#[tokio::test]
async fn an_unverified_session_loses_the_contact_once_its_identity_is_verified() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-trust-rest").await;
    let agent = app.owner_agent(&owner).await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    // The Owner generated a secret and has not turned verification on yet.
    let secret = app.identity_secret(&owner).await;

    // Someone names the victim's external id first, without a signature.
    let impostor = app
        .visitor_with(&session(
            &site_key,
            json!({"externalId": "victim-7", "email": "mallory@example.net", "name": "Mallory"}),
        ))
        .await;
    app.visitor_said(&impostor, "Hello").await;

    // The victim arrives signed, and is the same contact.
    let signed = json!({"externalId": "victim-7", "email": "vera@example.org", "name": "Vera",
        "hash": signature(&secret, "victim-7")});
    let victim = app.visitor_with(&session(&site_key, signed)).await;
    let conversation = app.visitor_said(&victim, "My order #1042").await;
    let path = format!("/api/conversations/{conversation}/messages");
    app.json_ok(
        Method::POST,
        &path,
        &json!({"body": "Refunded to your card ending 4242"}),
        &agent.token,
        StatusCode::CREATED,
    )
    .await;

    // The impostor's token reads, writes and connects no more.
    refused_everywhere(&app, &impostor, "verified").await;
    let thread = app.visitor_conversation(&victim).await;
    assert!(thread.to_string().contains("4242"), "{thread}");
    assert!(!thread.to_string().contains("still me"), "{thread}");

    // What the unverified session wrote is not shown as the verified contact's.
    let contact = app.contact_in(&owner, conversation).await;
    assert_eq!(contact["name"], "Vera", "{contact}");
    assert_eq!(contact["claimedEmail"], "vera@example.org", "{contact}");
    assert_eq!(contact["email"], Value::Null, "{contact}");

    // The victim's own token still works, and a new unverified session is refused.
    let response = app
        .send(
            Method::POST,
            "/widget/v1/contact",
            Some(&json!({"name": "Vera V."})),
            Some(&victim.token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let response = app
        .start_session(
            Some(SITE),
            &session(&site_key, json!({"externalId": "victim-7"})),
        )
        .await;
    assert_problem(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn a_verified_identity_closes_unverified_sessions_on_every_replica() {
    let app = spawn_app().await;
    let replica = spawn_replica(&app).await;
    let owner = app.owner_with_workspace("widget-trust-hub").await;
    let agent = app.owner_agent(&owner).await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let secret = app.identity_secret(&owner).await;

    let impostor = app
        .visitor_with(&session(&site_key, json!({"externalId": "victim-8"})))
        .await;
    let mut here = app.hub(&impostor.token).await;
    let mut there = hub_at(&app.client, &replica.address, &impostor.token).await;
    let bystander = app.visitor(&site_key, None).await;
    let mut bystander_there = hub_at(&app.client, &replica.address, &bystander.token).await;
    tokio::time::sleep(SUBSCRIBED).await;

    // Before: the impostor hears the agent's replies to the contact.
    let conversation = app.visitor_said(&impostor, "Hello").await;
    let path = format!("/api/conversations/{conversation}/messages");
    app.json_ok(
        Method::POST,
        &path,
        &json!({"body": "Hi!"}),
        &agent.token,
        StatusCode::CREATED,
    )
    .await;
    let echo = there.event_named("MessageCreated").await;
    assert_eq!(echo["message"]["body"], "Hello");
    let heard = there.event_named("MessageCreated").await;
    assert_eq!(heard["message"]["body"], "Hi!");

    // The victim signs in, signed, on the first replica: both replicas close the impostor.
    let signed = json!({"externalId": "victim-8", "hash": signature(&secret, "victim-8")});
    app.visitor_with(&session(&site_key, signed)).await;
    for hub in [&mut here, &mut there] {
        let close = hub.close_message().await;
        assert_eq!(close["allowReconnect"], false, "{close}");
        assert!(
            close["error"]
                .as_str()
                .unwrap_or_default()
                .contains("verified"),
            "{close}"
        );
    }

    // Other visitors stay.
    let done = bystander_there.invoke("1", "Typing", json!([true])).await;
    assert!(done.get("error").is_none(), "{done}");
}

#[tokio::test]
async fn every_hub_call_checks_that_the_token_still_speaks_for_its_contact() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-trust-call").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    app.identity_secret(&owner).await;
    let impostor = app
        .visitor_with(&session(&site_key, json!({"externalId": "victim-9"})))
        .await;
    let mut widget = app.hub(&impostor.token).await;

    // The contact is verified without this replica being told (as when it was cut off from
    // Redis): the next call finds out.
    let schema = format!("ws_{}", owner.workspace_id.simple());
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE \"{schema}\".contacts SET identity_verified = true WHERE external_id = 'victim-9'"
    )))
    .execute(&app.db)
    .await
    .unwrap();
    widget
        .send_records(&[
            json!({"type": 1, "invocationId": "1", "target": "SendMessage",
            "arguments": ["let me in"]}),
        ])
        .await;
    let close = widget.close_message().await;
    assert_eq!(close["allowReconnect"], false, "{close}");
    assert!(
        close["error"]
            .as_str()
            .is_some_and(|e| e.contains("verified")),
        "{close}"
    );
    let inbox = app
        .get_ok("/api/conversations", &owner.workspace_token)
        .await;
    assert_eq!(inbox["conversations"], json!([]), "nothing was written");
}

#[tokio::test]
async fn turning_verification_on_revokes_unverified_tokens_for_good() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("widget-trust-enforce").await;
    let token = owner.workspace_token.as_str();
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let secret = app.identity_secret(&owner).await;

    let claimed = app
        .visitor_with(&session(&site_key, json!({"externalId": "u-1"})))
        .await;
    let anonymous = app.visitor(&site_key, None).await;
    let signed = json!({"externalId": "u-2", "hash": signature(&secret, "u-2")});
    let verified = app.visitor_with(&session(&site_key, signed)).await;
    let mut claimed_hub = app.hub(&claimed.token).await;
    let mut anonymous_hub = app.hub(&anonymous.token).await;

    let turn = |enabled: bool| json!({"identityVerification": {"enabled": enabled}});
    app.json_ok(
        Method::PATCH,
        "/api/settings/widget",
        &turn(true),
        token,
        StatusCode::OK,
    )
    .await;
    refused_everywhere(&app, &claimed, "verifies visitors' identities").await;
    let close = claimed_hub.close_message().await;
    assert_eq!(close["allowReconnect"], false, "{close}");
    // Anonymous and signed visitors go on.
    for visitor in [&anonymous, &verified] {
        app.visitor_said(visitor, "still here").await;
    }
    let done = anonymous_hub.invoke("1", "Typing", json!([true])).await;
    assert!(done.get("error").is_none(), "{done}");

    // Off again: the tokens issued before stay revoked; new unverified sessions are welcome.
    app.json_ok(
        Method::PATCH,
        "/api/settings/widget",
        &turn(false),
        token,
        StatusCode::OK,
    )
    .await;
    refused_everywhere(&app, &claimed, "turned identity verification on").await;
    let again = app
        .visitor_with(&session(&site_key, json!({"externalId": "u-1"})))
        .await;
    app.visitor_said(&again, "back").await;
}
