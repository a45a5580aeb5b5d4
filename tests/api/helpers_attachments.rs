//! Fixtures for the attachment tests: files of each kind, uploads as agents and visitors, and
//! downloads through the links the API signs.

use reqwest::multipart::{Form, Part};
use reqwest::{Response, StatusCode};
use serde_json::Value;
use uuid::Uuid;

use crate::helpers::TestApp;
use crate::helpers_widget::Visitor;

pub use supportdesk_test_support::files::{PDF, elf, has_exif, jpeg_with_gps, png};

pub fn form(name: &str, bytes: Vec<u8>) -> Form {
    Form::new().part("file", Part::bytes(bytes).file_name(name.to_owned()))
}

impl TestApp {
    /// `POST {path}` with `form`, as `token`.
    pub async fn upload_form(&self, path: &str, form: Form, token: &str) -> Response {
        self.client
            .post(self.url(path))
            .bearer_auth(token)
            .multipart(form)
            .send()
            .await
            .expect("upload request")
    }

    /// An agent's upload for conversation `conversation`.
    pub async fn agent_upload(
        &self,
        token: &str,
        conversation: &str,
        name: &str,
        bytes: Vec<u8>,
    ) -> Response {
        let path = format!("/api/conversations/{conversation}/attachments");
        self.upload_form(&path, form(name, bytes), token).await
    }

    /// An agent's upload, asserting 201; the attachment.
    pub async fn agent_uploaded(
        &self,
        token: &str,
        conversation: &str,
        name: &str,
        bytes: Vec<u8>,
    ) -> Value {
        let response = self.agent_upload(token, conversation, name, bytes).await;
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body
    }

    pub async fn visitor_upload(&self, visitor: &Visitor, name: &str, bytes: Vec<u8>) -> Response {
        self.upload_form("/widget/v1/attachments", form(name, bytes), &visitor.token)
            .await
    }

    pub async fn visitor_uploaded(&self, visitor: &Visitor, name: &str, bytes: Vec<u8>) -> Value {
        let response = self.visitor_upload(visitor, name, bytes).await;
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body
    }

    /// GET a link the API gave (root-relative), with no credential.
    pub async fn open_link(&self, link: &str) -> Response {
        self.client
            .get(self.url(link))
            .send()
            .await
            .expect("download request")
    }

    /// Every object the app's local store holds, as paths under it.
    pub fn stored_objects(&self) -> Vec<String> {
        let supportdesk_core::config::StorageLocation::Directory(root) =
            &self.settings.storage.location
        else {
            panic!("a local store was expected");
        };
        supportdesk_test_support::files::files_under(root)
    }
}

/// The attachment ids of a message.
pub fn attachment_ids(message: &Value) -> Vec<Uuid> {
    message["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap().parse().unwrap())
        .collect()
}
