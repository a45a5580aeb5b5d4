//! CSAT by email end to end: an agent resolves an email conversation, the worker emails the
//! customer five rating links (answers to it reach the conversation; the links open the widget
//! app),
//! one of them rates the resolution, the others are then refused, and a comment follows.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::email_replies::{SECRET, owner_of, post_mail, support_address};
use crate::harness::stack;

/// The query parameters of a rating link.
fn params(link: &str) -> (String, String, String) {
    let url = reqwest::Url::parse(link).unwrap();
    let get = |name: &str| {
        url.query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
            .unwrap()
    };
    (get("w"), get("t"), get("r"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resolved_email_conversation_asks_for_a_rating_by_email() {
    let stack = stack(&[("INBOUND_EMAIL_SECRET", SECRET)]).await;
    let token = owner_of(&stack).await;
    let inbound = support_address(&stack, &token).await;
    let receipt = post_mail(
        &stack,
        &inbound,
        "From: Ivy <ivy@example.com>\nTo: support@acme.test\nSubject: Lamp flickers\n\
         Message-ID: <i-1@example.com>\n\nIt flickers.\n",
    )
    .await;
    let conversation = receipt["conversationId"].as_str().unwrap().to_owned();
    let (status, _) = stack
        .call(
            Method::POST,
            &format!("/api/conversations/{conversation}/status"),
            Some(&token),
            Some(json!({"status": "resolved"})),
        )
        .await;
    assert_eq!(status, 200);

    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let asked = loop {
        let found = stack
            .sink
            .received()
            .into_iter()
            .find(|m| m.subject() == "How did we do?");
        if let Some(found) = found {
            break found;
        }
        assert!(std::time::Instant::now() < deadline, "no rating email");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let parsed = asked.parsed();
    assert_eq!(
        parsed.to().unwrap().first().unwrap().address(),
        Some("ivy@example.com")
    );
    // In the conversation's thread: an answer to it reaches the conversation.
    let reply_to = parsed
        .reply_to()
        .unwrap()
        .first()
        .unwrap()
        .address()
        .unwrap();
    assert!(
        reply_to.starts_with("support+") && reply_to.ends_with("@acme.test"),
        "{reply_to}"
    );
    let text = asked.text();
    let links: Vec<&str> = text
        .split_whitespace()
        .filter(|w| w.starts_with("http://widget.test/rate?"))
        .collect();
    assert_eq!(links.len(), 5, "{text}");
    let (workspace, link_token, score) = params(links[3]);
    assert_eq!(score, "4");
    for (i, link) in links.iter().enumerate() {
        let (w, t, r) = params(link);
        assert_eq!(
            (w.as_str(), t.as_str()),
            (workspace.as_str(), link_token.as_str())
        );
        assert_eq!(r, (i + 1).to_string());
    }
    assert!(
        !text.contains("Ivy <"),
        "names are data, not markup: {text}"
    );

    // The page the link opens posts its score, then a comment.
    let (status, rated) = stack
        .call(
            Method::POST,
            "/widget/v1/rating-links",
            None,
            Some(json!({"workspaceId": workspace, "token": link_token, "rating": 4})),
        )
        .await;
    assert_eq!(status, 201, "{rated}");
    let (status, refused) = stack
        .call(
            Method::POST,
            "/widget/v1/rating-links",
            None,
            Some(json!({"workspaceId": workspace, "token": link_token, "rating": 1})),
        )
        .await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refused["code"], "already_rated");
    let (status, commented) = stack
        .call(
            Method::PATCH,
            "/widget/v1/rating-links",
            None,
            Some(json!({"workspaceId": workspace, "token": link_token, "comment": "Fixed!"})),
        )
        .await;
    assert_eq!(status, 200, "{commented}");
    let (_, seen) = stack
        .call(
            Method::GET,
            &format!("/api/conversations/{conversation}"),
            Some(&token),
            None,
        )
        .await;
    let ratings: &Vec<Value> = seen["ratings"].as_array().unwrap();
    assert_eq!(ratings.len(), 1, "{seen}");
    assert_eq!(ratings[0]["rating"], 4);
    assert_eq!(ratings[0]["comment"], "Fixed!");
}
