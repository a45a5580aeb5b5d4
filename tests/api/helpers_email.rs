//! Fixtures for the email channel's tests: an app that takes mail over HTTP, a workspace's
//! forwarding address, and messages as mail clients write them.

use reqwest::{Response, StatusCode};
use serde_json::Value;

use crate::helpers::{Owner, TestApp, spawn_app_with};

pub const INBOUND_SECRET: &str = "inbound-secret-0123456789abcdef0123";

/// An app whose MTA may post mail (`INBOUND_EMAIL_SECRET` set; the domain is `APP_URL`'s host,
/// `desk.test`).
pub async fn spawn_mail_app() -> TestApp {
    spawn_app_with(&[("INBOUND_EMAIL_SECRET", INBOUND_SECRET)]).await
}

impl TestApp {
    /// The workspace's forwarding address.
    pub async fn inbound_address(&self, owner: &Owner) -> String {
        let settings = self
            .get_ok("/api/settings/email", &owner.workspace_token)
            .await;
        settings["inboundAddress"]
            .as_str()
            .expect("inboundAddress")
            .to_owned()
    }

    /// Sets the workspace's support address (`PUT /api/settings/email`), asserting 200.
    pub async fn set_support_address(&self, token: &str, address: &str) -> Value {
        self.json_ok(
            reqwest::Method::PUT,
            "/api/settings/email",
            &serde_json::json!({ "address": address }),
            token,
            StatusCode::OK,
        )
        .await
    }

    /// `POST /inbound/email` as the MTA makes it.
    pub async fn post_mail(&self, raw: &[u8], recipient: Option<&str>) -> Response {
        let mut request = self
            .client
            .post(self.url("/inbound/email"))
            .bearer_auth(INBOUND_SECRET)
            .header("Content-Type", "message/rfc822")
            .body(raw.to_vec());
        if let Some(recipient) = recipient {
            request = request.header("X-Original-To", recipient);
        }
        request.send().await.expect("request")
    }

    /// Delivers `raw` to `recipient`, asserting 200; the receipt.
    pub async fn deliver(&self, raw: &str, recipient: &str) -> Value {
        let response = self
            .post_mail(raw.replace('\n', "\r\n").as_bytes(), Some(recipient))
            .await;
        let status = response.status();
        let body: Value = response.json().await.expect("json");
        assert_eq!(status, StatusCode::OK, "{body}");
        body
    }

    /// The messages of a conversation, oldest first.
    pub async fn messages_of(&self, token: &str, conversation_id: &str) -> Vec<Value> {
        let page = self
            .get_ok(
                &format!("/api/conversations/{conversation_id}/messages"),
                token,
            )
            .await;
        page["messages"].as_array().cloned().unwrap_or_default()
    }
}

/// A plain message from `from` with this Message-ID, subject and extra header lines.
pub fn plain(from: &str, message_id: &str, subject: &str, headers: &str, body: &str) -> String {
    format!(
        "From: {from}\nTo: support@acme.test\nSubject: {subject}\nMessage-ID: <{message_id}>\n\
         Date: Tue, 24 Nov 2026 10:00:00 +0000\nMIME-Version: 1.0\n{headers}\
         Content-Type: text/plain; charset=utf-8\n\n{body}\n"
    )
}
