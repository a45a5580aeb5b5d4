//! CSAT by email (`POST|PATCH /widget/v1/rating-links`): resolving an email conversation
//! issues one rating link per resolution (queued as an email for the worker, which
//! `workers/tests/worker/rating_requests.rs` follows to the customer's inbox). A link rates
//! once, then takes one comment; used, expired, altered, foreign and outdated links are
//! refused and change nothing.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use supportdesk_core::email_tokens::Purpose;
use supportdesk_core::tenancy::TenantSchema;
use uuid::Uuid;

use crate::helpers::{Owner, TestApp, assert_problem};
use crate::helpers_email::{plain, spawn_mail_app};

const PATH: &str = "/widget/v1/rating-links";

/// An email conversation of `from`, opened by an email with Message-ID `message_id`.
async fn email_conversation(app: &TestApp, owner: &Owner, from: &str, message_id: &str) -> Uuid {
    let to = app.inbound_address(owner).await;
    let receipt = app
        .deliver(&plain(from, message_id, "Lamp", "", "It flickers."), &to)
        .await;
    receipt["conversationId"].as_str().unwrap().parse().unwrap()
}

/// The tokens of the rating links issued for `conversation`, oldest first (as the worker
/// derives them for the email).
pub async fn link_tokens(app: &TestApp, owner: &Owner, conversation: Uuid) -> Vec<String> {
    let schema = TenantSchema::for_workspace(owner.workspace_id);
    let nonces: Vec<Vec<u8>> = sqlx::query_scalar(schema.sql(
        "SELECT nonce FROM {schema}.rating_requests WHERE conversation_id = $1 ORDER BY created_at",
    ))
    .bind(conversation)
    .fetch_all(&app.db)
    .await
    .unwrap();
    nonces
        .iter()
        .map(|nonce| {
            app.state
                .email_tokens
                .token_for(Purpose::RatingRequest, nonce)
        })
        .collect()
}

async fn resolve(app: &TestApp, owner: &Owner, conversation: Uuid) -> Value {
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{conversation}/status"),
        &json!({"status": "resolved"}),
        &owner.workspace_token,
        StatusCode::OK,
    )
    .await
}

async fn use_link(app: &TestApp, method: Method, body: &Value) -> reqwest::Response {
    app.send(method, PATH, Some(body), None).await
}

#[tokio::test]
async fn a_link_rates_its_resolution_once_then_takes_one_comment() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("csat-mail").await;
    let token = &owner.workspace_token;
    let conversation = email_conversation(&app, &owner, "eve@example.com", "e-1@example.com").await;
    resolve(&app, &owner, conversation).await;
    // Resolving it again asks nothing more.
    resolve(&app, &owner, conversation).await;
    let tokens = link_tokens(&app, &owner, conversation).await;
    assert_eq!(tokens.len(), 1, "one request per resolution");
    let link = |rating: i64| json!({"workspaceId": owner.workspace_id, "token": tokens[0], "rating": rating});

    let response = use_link(&app, Method::POST, &link(4)).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let rated: Value = response.json().await.unwrap();
    assert_eq!(rated["rating"]["rating"], 4);
    assert_eq!(rated["rating"]["comment"], Value::Null);
    assert_eq!(rated["conversationNumber"], 1);
    assert_eq!(rated["teamName"], "Workspace csat-mail", "{rated}");
    let seen = app
        .get_ok(&format!("/api/conversations/{conversation}"), token)
        .await;
    assert_eq!(seen["ratings"][0], rated["rating"]);

    // Used: another score of the same email is refused.
    let again = use_link(&app, Method::POST, &link(5)).await;
    assert_problem(again, StatusCode::CONFLICT, "already_rated").await;

    let comment = json!({"workspaceId": owner.workspace_id, "token": tokens[0],
        "comment": "  Bright again, thanks!  "});
    let response = use_link(&app, Method::PATCH, &comment).await;
    assert_eq!(response.status(), StatusCode::OK);
    let commented: Value = response.json().await.unwrap();
    assert_eq!(commented["comment"], "Bright again, thanks!");
    assert_eq!(commented["id"], rated["rating"]["id"]);
    let twice = use_link(&app, Method::PATCH, &comment).await;
    assert_problem(twice, StatusCode::CONFLICT, "comment_given").await;

    let seen = app
        .get_ok(&format!("/api/conversations/{conversation}"), token)
        .await;
    assert_eq!(seen["ratings"].as_array().unwrap().len(), 1);
    assert_eq!(seen["ratings"][0]["comment"], "Bright again, thanks!");
    let events = app.get_ok("/api/events?after=0&limit=100", token).await;
    let rated_events: Vec<&Value> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "conversation.rated")
        .collect();
    assert_eq!(
        rated_events.len(),
        2,
        "the rating, then its comment: {events}"
    );
    assert_eq!(
        rated_events[1]["data"]["rating"]["id"],
        rated["rating"]["id"]
    );
    assert_eq!(rated_events[0]["actor"]["kind"], "visitor");
    assert_eq!(rated_events[0]["actor"]["id"], seen["contact"]["id"]);
}

#[tokio::test]
async fn used_expired_altered_foreign_and_outdated_links_are_refused() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("csat-mail-refusals").await;
    let token = &owner.workspace_token;
    let conversation = email_conversation(&app, &owner, "fay@example.com", "f-1@example.com").await;
    resolve(&app, &owner, conversation).await;
    let tokens = link_tokens(&app, &owner, conversation).await;
    let good = tokens[0].clone();
    let body = |token: &str, rating: Value| json!({"workspaceId": owner.workspace_id, "token": token, "rating": rating});

    for rating in [json!(0), json!(6)] {
        let response = use_link(&app, Method::POST, &body(&good, rating)).await;
        assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    }
    for bad in [
        json!({"workspaceId": owner.workspace_id, "token": good}),
        json!({"workspaceId": "nope", "token": good, "rating": 3}),
        json!({"workspaceId": owner.workspace_id, "token": good, "rating": 3, "extra": 1}),
        json!({"workspaceId": owner.workspace_id, "token": good, "rating": 2.5}),
    ] {
        let response = use_link(&app, Method::POST, &bad).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    let mut altered = good.clone();
    let last = altered.pop().unwrap();
    altered.push(if last == 'A' { 'B' } else { 'A' });
    let response = use_link(&app, Method::POST, &body(&altered, json!(3))).await;
    assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
    // The token names a row of its own workspace only.
    let other = app.owner_with_workspace("csat-mail-other").await;
    let foreign = json!({"workspaceId": other.workspace_id, "token": good, "rating": 3});
    let response = use_link(&app, Method::POST, &foreign).await;
    assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
    // A comment needs a rating first.
    let early = json!({"workspaceId": owner.workspace_id, "token": good, "comment": "hi"});
    let response = use_link(&app, Method::PATCH, &early).await;
    assert_problem(response, StatusCode::CONFLICT, "nothing_to_rate").await;
    let empty = json!({"workspaceId": owner.workspace_id, "token": good, "comment": "  "});
    let response = use_link(&app, Method::PATCH, &empty).await;
    assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;

    // The customer wrote again: the conversation reopened, the link rates nothing.
    let to = app.inbound_address(&owner).await;
    app.deliver(
        &plain(
            "fay@example.com",
            "f-2@example.com",
            "Re: Lamp",
            "In-Reply-To: <f-1@example.com>\n",
            "Still flickers.",
        ),
        &to,
    )
    .await;
    let response = use_link(&app, Method::POST, &body(&good, json!(3))).await;
    assert_problem(response, StatusCode::CONFLICT, "nothing_to_rate").await;

    // Resolved again: a new link; the old one stays refused.
    resolve(&app, &owner, conversation).await;
    let tokens = link_tokens(&app, &owner, conversation).await;
    assert_eq!(tokens.len(), 2);
    let response = use_link(&app, Method::POST, &body(&good, json!(3))).await;
    assert_problem(response, StatusCode::CONFLICT, "nothing_to_rate").await;

    // Expired after 7 days.
    let schema = TenantSchema::for_workspace(owner.workspace_id);
    sqlx::query(
        schema
            .sql("UPDATE {schema}.rating_requests SET expires_at = $2 WHERE conversation_id = $1"),
    )
    .bind(conversation)
    .bind(time::OffsetDateTime::now_utc() - time::Duration::minutes(1))
    .execute(&app.db)
    .await
    .unwrap();
    let response = use_link(&app, Method::POST, &body(&tokens[1], json!(3))).await;
    assert_problem(response, StatusCode::GONE, "link_expired").await;

    let seen = app
        .get_ok(&format!("/api/conversations/{conversation}"), token)
        .await;
    assert_eq!(seen["ratings"], json!([]), "nothing stored: {seen}");
}

#[tokio::test]
async fn only_email_conversations_of_workspaces_that_ask_get_links() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("csat-mail-asks").await;
    let token = &owner.workspace_token;

    // A conversation an agent started (no email channel) gets no link.
    let started = app
        .start_conversation(token, "gus@example.com", "Hello from us")
        .await;
    let started: Uuid = started["id"].as_str().unwrap().parse().unwrap();
    resolve(&app, &owner, started).await;
    assert!(link_tokens(&app, &owner, started).await.is_empty());

    // A workspace that does not ask gets none either.
    app.json_ok(
        Method::PATCH,
        "/api/settings",
        &json!({"inbox": {"csatOnResolve": false}}),
        token,
        StatusCode::OK,
    )
    .await;
    let conversation = email_conversation(&app, &owner, "hal@example.com", "h-1@example.com").await;
    resolve(&app, &owner, conversation).await;
    assert!(link_tokens(&app, &owner, conversation).await.is_empty());
    let queued: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM public.outbox WHERE kind = 'rating_request_email'
          AND payload->>'workspaceId' = $1",
    )
    .bind(owner.workspace_id.to_string())
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(queued, 0);
}
