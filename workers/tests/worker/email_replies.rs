//! The email channel's sending side end to end: a customer's email arrives over
//! `POST /inbound/email`, an agent replies with a file, the worker sends the reply over SMTP
//! in the customer's thread (our Message-ID, In-Reply-To, References, Reply-To with the reply
//! token, To and Cc as the thread had them, the file attached), records it as sent, and the
//! customer's answer to it lands in the same conversation. A recipient the server refuses for
//! good shows on the reply as a failed delivery.

use std::time::Duration;

use mail_parser::MimeHeaders;
use reqwest::Method;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::harness::{PASSWORD, Stack, stack, unique_email};

pub(crate) const SECRET: &str = "inbound-secret-0123456789abcdef0123";

pub(crate) async fn owner_of(stack: &Stack) -> String {
    let email = unique_email();
    let (status, registered) = stack
        .call(
            Method::POST,
            "/auth/register",
            None,
            Some(json!({"email": email, "password": PASSWORD, "fullName": "Olivia Owner"})),
        )
        .await;
    assert_eq!(status, 201, "{registered}");
    let user = registered["token"].as_str().unwrap().to_owned();
    let (status, workspace) = stack
        .call(
            Method::POST,
            "/workspaces",
            Some(&user),
            Some(json!({"name": "Acme Support", "slug": "acme-mail"})),
        )
        .await;
    assert_eq!(status, 201, "{workspace}");
    let (status, selected) = stack
        .call(
            Method::POST,
            &format!("/workspaces/{}/select", workspace["id"].as_str().unwrap()),
            Some(&user),
            None,
        )
        .await;
    assert_eq!(status, 200, "{selected}");
    selected["token"].as_str().unwrap().to_owned()
}

pub(crate) async fn post_mail(stack: &Stack, to: &str, raw: &str) -> Value {
    let response = stack
        .client
        .post(format!("{}/inbound/email", stack.api))
        .bearer_auth(SECRET)
        .header("Content-Type", "message/rfc822")
        .header("X-Original-To", to)
        .body(raw.replace('\n', "\r\n"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

/// Makes `support@acme.test` the workspace's support address; the forwarding address its
/// mail arrives at.
pub(crate) async fn support_address(stack: &Stack, token: &str) -> String {
    let (_, settings) = stack
        .call(
            Method::PUT,
            "/api/settings/email",
            Some(token),
            Some(json!({"address": "support@acme.test"})),
        )
        .await;
    settings["inboundAddress"].as_str().unwrap().to_owned()
}

/// Waits until the reply's delivery is no longer pending; the reply as listed.
pub(crate) async fn delivered(
    stack: &Stack,
    token: &str,
    conversation: &str,
    reply_id: &str,
) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let (_, page) = stack
            .call(
                Method::GET,
                &format!("/api/conversations/{conversation}/messages"),
                Some(token),
                None,
            )
            .await;
        let reply = page["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == reply_id)
            .cloned()
            .unwrap();
        let status = &reply["email"]["delivery"]["status"];
        if status != "pending" {
            return reply;
        }
        assert!(std::time::Instant::now() < deadline, "{reply}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_goes_out_in_the_thread_and_the_answer_comes_back_to_it() {
    let stack = stack(&[("INBOUND_EMAIL_SECRET", SECRET)]).await;
    let token = owner_of(&stack).await;
    let inbound = support_address(&stack, &token).await;
    let receipt = post_mail(
        &stack,
        &inbound,
        "From: Carla <carla@example.com>\nTo: support@acme.test\nCc: Boss <boss@example.com>\n\
         Subject: Printer on fire\nMessage-ID: <c-1@example.com>\n\n\
         It is smoking.\n",
    )
    .await;
    let conversation = receipt["conversationId"].as_str().unwrap().to_owned();

    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(b"%PDF-1.4\n%%EOF\n".to_vec()).file_name("steps.pdf"),
    );
    let uploaded: Value = stack
        .client
        .post(format!(
            "{}/api/conversations/{conversation}/attachments",
            stack.api
        ))
        .bearer_auth(&token)
        .multipart(form)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let (status, reply) = stack
        .call(
            Method::POST,
            &format!("/api/conversations/{conversation}/messages"),
            Some(&token),
            Some(json!({"body": "Unplug it, then see the steps.", "attachmentIds": [uploaded["id"]]})),
        )
        .await;
    assert_eq!(status, 201, "{reply}");
    let reply_id = reply["id"].as_str().unwrap().to_owned();
    let listed = delivered(&stack, &token, &conversation, &reply_id).await;
    assert_eq!(listed["email"]["delivery"]["status"], "sent", "{listed}");

    let sent = stack
        .sink
        .received()
        .into_iter()
        .find(|m| m.subject() == "Re: Printer on fire [#1]")
        .expect("the reply was sent");
    let token_hex = Uuid::parse_str(&reply_id).unwrap().simple().to_string();
    assert_eq!(sent.message_id(), format!("{token_hex}@desk.test"));
    let parsed = sent.parsed();
    assert_eq!(parsed.in_reply_to().as_text(), Some("c-1@example.com"));
    let from = parsed.from().unwrap().first().unwrap();
    assert_eq!(from.name(), Some("Olivia Owner via Acme Support"));
    let reply_to = parsed.reply_to().unwrap().first().unwrap();
    assert_eq!(
        reply_to.address(),
        Some(format!("support+{token_hex}@acme.test").as_str())
    );
    assert_eq!(
        parsed.to().unwrap().first().unwrap().address(),
        Some("carla@example.com")
    );
    assert_eq!(
        parsed.cc().unwrap().first().unwrap().address(),
        Some("boss@example.com")
    );
    assert!(sent.text().contains("Unplug it"), "{}", sent.text());
    let files: Vec<&str> = parsed
        .attachments()
        .filter_map(|a| a.attachment_name())
        .collect();
    assert_eq!(files, ["steps.pdf"]);
    let mut recipients = sent.rcpt_to.clone();
    recipients.sort();
    assert_eq!(recipients, ["boss@example.com", "carla@example.com"]);

    // Carla answers the reply: it threads.
    let answer = post_mail(
        &stack,
        &inbound,
        &format!(
            "From: carla@example.com\nTo: support+{token_hex}@acme.test\nSubject: Re: Printer on fire [#1]\n\
             Message-ID: <c-2@example.com>\nIn-Reply-To: <{token_hex}@desk.test>\n\
             References: <c-1@example.com> <{token_hex}@desk.test>\n\nIt worked, thanks!\n"
        ),
    )
    .await;
    assert_eq!(answer["conversationId"], conversation.as_str(), "{answer}");
    assert_eq!(answer["opened"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recipient_refused_for_good_shows_as_a_failed_delivery() {
    let stack = stack(&[("INBOUND_EMAIL_SECRET", SECRET)]).await;
    stack.sink.reject_recipient("gone@example.com");
    let token = owner_of(&stack).await;
    let (_, settings) = stack
        .call(Method::GET, "/api/settings/email", Some(&token), None)
        .await;
    let inbound = settings["inboundAddress"].as_str().unwrap().to_owned();
    let receipt = post_mail(
        &stack,
        &inbound,
        "From: gone@example.com\nSubject: Hi\nMessage-ID: <g-1@example.com>\n\nHello\n",
    )
    .await;
    let conversation = receipt["conversationId"].as_str().unwrap().to_owned();
    let (_, reply) = stack
        .call(
            Method::POST,
            &format!("/api/conversations/{conversation}/messages"),
            Some(&token),
            Some(json!({"body": "Hello back"})),
        )
        .await;
    let listed = delivered(&stack, &token, &conversation, reply["id"].as_str().unwrap()).await;
    let delivery = &listed["email"]["delivery"];
    assert_eq!(delivery["status"], "failed", "{listed}");
    assert!(delivery["error"].as_str().is_some_and(|e| !e.is_empty()));
    // Replies come from the forwarding address when no support address is set.
    assert_eq!(listed["email"]["from"]["address"], inbound.as_str());
}
