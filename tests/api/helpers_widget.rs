//! Fixtures for the widget tests: a workspace whose widget allows an origin, sessions started
//! from a page of that origin, and visitor requests.

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{Owner, TestApp};

/// The customer's site in these tests.
pub const SITE: &str = "https://shop.example";
/// The widget app's origin (`WIDGET_URL` of the test environment).
pub const WIDGET: &str = "http://widget.test";

/// A visitor session: the token and the visitor id the browser keeps.
pub struct Visitor {
    pub token: String,
    pub visitor_id: String,
    pub session: Value,
}

impl TestApp {
    /// The workspace's site key, with `origins` allowed.
    pub async fn widget_site(&self, owner: &Owner, origins: &[&str]) -> String {
        let body = json!({ "allowedOrigins": origins });
        let response = self
            .patch_json("/api/settings/widget", &body, Some(&owner.workspace_token))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        let settings: Value = response.json().await.unwrap();
        settings["siteKey"].as_str().unwrap().to_owned()
    }

    /// A new identity secret for the workspace (shown once).
    pub async fn identity_secret(&self, owner: &Owner) -> String {
        let path = "/api/settings/widget/identity-secret/regenerate";
        let response = self
            .send(Method::POST, path, None, Some(&owner.workspace_token))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        let body: Value = response.json().await.unwrap();
        body["secret"].as_str().unwrap().to_owned()
    }

    /// `POST /widget/v1/sessions` from a page of `origin` (none: no `Origin` header).
    pub async fn start_session(&self, origin: Option<&str>, body: &Value) -> Response {
        let mut request = self.client.post(self.url("/widget/v1/sessions")).json(body);
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request.send().await.expect("session request")
    }

    /// An anonymous visitor on [`SITE`] (or the returning visitor `visitor_id`).
    pub async fn visitor(&self, site_key: &str, visitor_id: Option<&str>) -> Visitor {
        let body = json!({ "siteKey": site_key, "visitorId": visitor_id });
        self.visitor_with(&body).await
    }

    /// A visitor whose session request is `body`.
    pub async fn visitor_with(&self, body: &Value) -> Visitor {
        let response = self.start_session(Some(SITE), body).await;
        let status = response.status();
        let session: Value = response.json().await.unwrap();
        assert_eq!(status, StatusCode::CREATED, "{session}");
        Visitor {
            token: session["token"].as_str().unwrap().to_owned(),
            visitor_id: session["visitorId"].as_str().unwrap().to_owned(),
            session,
        }
    }

    /// `POST /widget/v1/messages` as the visitor.
    pub async fn visitor_says(&self, visitor: &Visitor, body: &str) -> Response {
        self.send(
            Method::POST,
            "/widget/v1/messages",
            Some(&json!({ "body": body })),
            Some(&visitor.token),
        )
        .await
    }

    /// The visitor's message, asserting 201; the conversation id.
    pub async fn visitor_said(&self, visitor: &Visitor, body: &str) -> Uuid {
        let response = self.visitor_says(visitor, body).await;
        let status = response.status();
        let posted: Value = response.json().await.unwrap();
        assert_eq!(status, StatusCode::CREATED, "{posted}");
        assert_eq!(posted["message"]["kind"], "incoming");
        assert_eq!(posted["message"]["body"], body.trim());
        posted["conversationId"].as_str().unwrap().parse().unwrap()
    }

    /// `GET /widget/v1/conversation` as the visitor, asserting 200.
    pub async fn visitor_conversation(&self, visitor: &Visitor) -> Value {
        let response = self
            .get("/widget/v1/conversation", Some(&visitor.token))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        response.json::<Value>().await.unwrap()["conversation"].clone()
    }

    /// The contact of a conversation, as the workspace's agents see it.
    pub async fn contact_in(&self, owner: &Owner, conversation: Uuid) -> Value {
        self.get_ok(
            &format!("/api/conversations/{conversation}"),
            &owner.workspace_token,
        )
        .await["contact"]
            .clone()
    }

    /// `POST /widget/v1/conversation/rating` as the visitor.
    pub async fn visitor_rates(&self, visitor: &Visitor, rating: &Value) -> Response {
        self.send(
            Method::POST,
            "/widget/v1/conversation/rating",
            Some(rating),
            Some(&visitor.token),
        )
        .await
    }

    /// Sets the conversation's status as the Owner, asserting 200.
    pub async fn set_status(&self, owner: &Owner, conversation: Uuid, status: &str) -> Value {
        self.json_ok(
            Method::POST,
            &format!("/api/conversations/{conversation}/status"),
            &json!({ "status": status }),
            &owner.workspace_token,
            StatusCode::OK,
        )
        .await
    }

    /// Moves the conversation's resolution `days` into the past, as time would. (Read, then
    /// written: Citus refuses date arithmetic on a column in an `UPDATE`.)
    pub async fn age_resolution(&self, owner: &Owner, conversation: Uuid, days: i64) {
        let schema = supportdesk_core::tenancy::TenantSchema::for_workspace(owner.workspace_id);
        let resolved_at: time::OffsetDateTime = sqlx::query_scalar(schema.sql(
            "SELECT resolved_at FROM {schema}.conversations WHERE id = $1 AND status = 'resolved'",
        ))
        .bind(conversation)
        .fetch_one(&self.db)
        .await
        .expect("a resolved conversation");
        sqlx::query(schema.sql("UPDATE {schema}.conversations SET resolved_at = $2 WHERE id = $1"))
            .bind(conversation)
            .bind(resolved_at - time::Duration::days(days))
            .execute(&self.db)
            .await
            .expect("aged");
    }
}
