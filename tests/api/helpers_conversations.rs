//! Fixtures for the conversation, ticket and canned-response tests: agents with profiles,
//! requests with any method, and the records the tests start from.

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use uuid::Uuid;

use crate::helpers::{Owner, TestApp, unique_email};

/// An agent of a workspace as the conversation tests use one: a token and the agent id.
pub struct Agent {
    pub token: String,
    /// The agent id (`agent_profiles.id`): what assignees and authors are.
    pub agent_id: Uuid,
}

impl TestApp {
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        token: Option<&str>,
    ) -> Response {
        let mut request = self.client.request(method, self.url(path));
        if let Some(body) = body {
            request = request.json(body);
        }
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.expect("request")
    }

    /// GET, asserting 200; the JSON body.
    pub async fn get_ok(&self, path: &str, token: &str) -> Value {
        let response = self.get(path, Some(token)).await;
        let status = response.status();
        let body: Value = response.json().await.expect("json");
        assert_eq!(status, StatusCode::OK, "GET {path}: {body}");
        body
    }

    /// A request with a JSON body, asserting `status`; the JSON body.
    pub async fn json_ok(
        &self,
        method: Method,
        path: &str,
        body: &Value,
        token: &str,
        status: StatusCode,
    ) -> Value {
        let response = self
            .send(method.clone(), path, Some(body), Some(token))
            .await;
        let got = response.status();
        let answer: Value = response.json().await.expect("json");
        assert_eq!(got, status, "{method} {path}: {answer}");
        answer
    }

    /// The Owner's own agent.
    pub async fn owner_agent(&self, owner: &Owner) -> Agent {
        Agent {
            token: owner.workspace_token.clone(),
            agent_id: self
                .agent_id_of(&owner.workspace_token, owner.user_id)
                .await,
        }
    }

    /// A new account joined to the Owner's workspace with `role` (`agent` or `admin`), with its
    /// profile and a workspace token, as accepting an invitation leaves them.
    pub async fn join(&self, owner: &Owner, role: &str) -> Agent {
        let (user_token, user_id) = self.signed_up(&unique_email()).await;
        self.add_member(owner.workspace_id, user_id, role).await;
        let selected: Value = self
            .select(&user_token, &owner.workspace_id.to_string())
            .await
            .json()
            .await
            .expect("json");
        Agent {
            token: selected["token"].as_str().expect("token").to_owned(),
            agent_id: self.agent_id_of(&owner.workspace_token, user_id).await,
        }
    }

    pub async fn deactivate(&self, owner: &Owner, agent_id: Uuid) {
        self.json_ok(
            Method::POST,
            &format!("/api/agents/{agent_id}/deactivate"),
            &json!({}),
            &owner.workspace_token,
            StatusCode::OK,
        )
        .await;
    }

    /// `POST /api/conversations` with a contact `email`; the conversation.
    pub async fn start_conversation(&self, token: &str, email: &str, body: &str) -> Value {
        self.json_ok(
            Method::POST,
            "/api/conversations",
            &json!({"contact": {"email": email, "name": "Carla"}, "subject": "Order", "body": body}),
            token,
            StatusCode::CREATED,
        )
        .await
    }

    /// `POST /api/tickets` for requester `email`; the ticket.
    pub async fn open_ticket(&self, token: &str, email: &str, extra: Value) -> Value {
        let mut body = json!({"subject": "Refund", "requester": {"email": email}});
        if let (Some(body), Value::Object(extra)) = (body.as_object_mut(), extra) {
            body.extend(extra);
        }
        self.json_ok(
            Method::POST,
            "/api/tickets",
            &body,
            token,
            StatusCode::CREATED,
        )
        .await
    }
}

/// A timestamp field of a JSON record.
pub fn at(record: &Value, field: &str) -> OffsetDateTime {
    OffsetDateTime::parse(
        record[field]
            .as_str()
            .unwrap_or_else(|| panic!("{field} in {record}")),
        &Rfc3339,
    )
    .expect("RFC 3339")
}

/// The `id` of a JSON record.
pub fn id(record: &Value) -> String {
    record["id"].as_str().expect("id").to_owned()
}

/// The ids of the records in `list[field]`, in order.
pub fn ids(list: &Value, field: &str) -> Vec<String> {
    list[field]
        .as_array()
        .unwrap_or_else(|| panic!("{field} in {list}"))
        .iter()
        .map(id)
        .collect()
}
