//! A workspace's own outgoing mail server end to end: an Owner sets it in Settings -> Email,
//! "Send a test email" shows a refused login as the server's status and last error, and once
//! fixed the test email and the replies to customers leave through it, logged in, from the
//! support address, to the recipients the agent chose, while the platform's server carries
//! none of them.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use supportdesk_test_support::smtp_sink::SmtpSink;

use crate::email_replies::{SECRET, delivered, owner_of, post_mail};
use crate::harness::{Stack, stack};

/// Waits until the SMTP server's status is no longer `testing`; the settings.
async fn tested(stack: &Stack, token: &str) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let (_, settings) = stack
            .call(Method::GET, "/api/settings/email", Some(token), None)
            .await;
        if settings["smtp"]["status"] != "testing" {
            return settings;
        }
        assert!(std::time::Instant::now() < deadline, "{settings}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn send_test(stack: &Stack, token: &str) -> Value {
    let (status, queued) = stack
        .call(Method::POST, "/api/settings/email/test", Some(token), None)
        .await;
    assert_eq!(status, 202, "{queued}");
    queued
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_leave_through_the_workspaces_own_smtp_server_once_its_login_works() {
    let stack = stack(&[("INBOUND_EMAIL_SECRET", SECRET)]).await;
    let provider = SmtpSink::start().await;
    provider.require_login("acme-mailer", "app-pass-1");
    let token = owner_of(&stack).await;
    let server = |password: &str| {
        json!({"host": "127.0.0.1", "port": provider.port, "tls": false,
               "user": "acme-mailer", "password": password})
    };
    let (status, settings) = stack
        .call(
            Method::PUT,
            "/api/settings/email",
            Some(&token),
            Some(json!({"address": "support@acme.test", "smtp": server("wrong-password")})),
        )
        .await;
    assert_eq!(status, 200, "{settings}");
    assert_eq!(settings["smtp"]["status"], "untested");

    // A refused login: the test fails, and Settings says why.
    let queued = send_test(&stack, &token).await;
    assert_eq!(queued["via"], "workspace");
    let settings = tested(&stack, &token).await;
    assert_eq!(settings["smtp"]["status"], "failing", "{settings}");
    let error = settings["smtp"]["lastError"].as_str().unwrap_or_default();
    assert!(error.contains("535"), "{error}");
    assert!(provider.received().is_empty());

    // Fixed: the test email arrives through the provider, logged in, from the support address.
    let (status, settings) = stack
        .call(
            Method::PUT,
            "/api/settings/email",
            Some(&token),
            Some(json!({"smtp": server("app-pass-1")})),
        )
        .await;
    assert_eq!(status, 200, "{settings}");
    send_test(&stack, &token).await;
    let settings = tested(&stack, &token).await;
    assert_eq!(settings["smtp"]["status"], "working", "{settings}");
    assert!(settings["smtp"]["lastError"].is_null());
    let test = provider
        .wait_for(1, Duration::from_secs(10))
        .await
        .remove(0);
    assert_eq!(test.login.as_deref(), Some("acme-mailer"));
    assert_eq!(test.mail_from, "support@acme.test");
    assert_eq!(test.rcpt_to, [queued["to"].as_str().unwrap()]);
    assert!(test.text().contains("127.0.0.1"), "{}", test.text());

    // A customer writes; the agent answers to the address they choose, with a copy to the team.
    let inbound = settings["inboundAddress"].as_str().unwrap().to_owned();
    let receipt = post_mail(
        &stack,
        &inbound,
        "From: Carla <carla@example.com>\nTo: support@acme.test\nCc: Boss <boss@example.com>\n\
         Subject: Invoice\nMessage-ID: <inv-1@example.com>\n\nWhere is my invoice?\n",
    )
    .await;
    let conversation = receipt["conversationId"].as_str().unwrap().to_owned();
    let (status, reply) = stack
        .call(
            Method::POST,
            &format!("/api/conversations/{conversation}/messages"),
            Some(&token),
            Some(
                json!({"body": "Attached tomorrow.", "to": ["carla@example.com"],
                        "cc": ["billing@acme.test"]}),
            ),
        )
        .await;
    assert_eq!(status, 201, "{reply}");
    assert_eq!(reply["email"]["to"][0]["name"], "Carla", "{reply}");
    assert_eq!(reply["email"]["cc"][0]["address"], "billing@acme.test");
    let listed = delivered(&stack, &token, &conversation, reply["id"].as_str().unwrap()).await;
    assert_eq!(listed["email"]["delivery"]["status"], "sent", "{listed}");
    let sent = provider
        .wait_for(2, Duration::from_secs(10))
        .await
        .remove(1);
    assert_eq!(sent.login.as_deref(), Some("acme-mailer"));
    let parsed = sent.parsed();
    let from = parsed.from().unwrap().first().unwrap();
    assert_eq!(from.address(), Some("support@acme.test"));
    assert_eq!(from.name(), Some("Olivia Owner via Acme Support"));
    let mut recipients = sent.rcpt_to.clone();
    recipients.sort();
    assert_eq!(recipients, ["billing@acme.test", "carla@example.com"]);
    assert_eq!(
        parsed.cc().unwrap().first().unwrap().address(),
        Some("billing@acme.test")
    );
    // The platform's server carried none of it (only the Owner's own account email).
    let platform: Vec<String> = stack
        .sink
        .received()
        .iter()
        .map(supportdesk_test_support::smtp_sink::Received::subject)
        .collect();
    assert!(
        !platform
            .iter()
            .any(|s| s.contains("Invoice") || s.starts_with("Test email")),
        "{platform:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_server_of_its_own_the_test_email_leaves_through_the_platforms() {
    let stack = stack(&[("INBOUND_EMAIL_SECRET", SECRET)]).await;
    let token = owner_of(&stack).await;
    let queued = send_test(&stack, &token).await;
    assert_eq!(queued["via"], "platform");
    // After the Owner's own verification email.
    let test = stack
        .sink
        .wait_for(2, Duration::from_secs(10))
        .await
        .into_iter()
        .find(|m| m.subject().starts_with("Test email"))
        .expect("the test email");
    assert_eq!(test.rcpt_to, [queued["to"].as_str().unwrap()]);
    assert_eq!(test.subject(), "Test email from Acme Support");
    assert!(
        test.text().contains("no SMTP server of your own"),
        "{}",
        test.text()
    );
    let from = test
        .parsed()
        .from()
        .unwrap()
        .first()
        .unwrap()
        .name()
        .map(str::to_owned);
    assert_eq!(from.as_deref(), Some("Acme Support"));
}
