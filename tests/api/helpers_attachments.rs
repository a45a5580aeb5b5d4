//! Fixtures for the attachment tests: files of each kind, uploads as agents and visitors, and
//! downloads through the links the API signs.

use image::DynamicImage;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use reqwest::multipart::{Form, Part};
use reqwest::{Response, StatusCode};
use serde_json::Value;
use uuid::Uuid;

use crate::helpers::TestApp;
use crate::helpers_widget::Visitor;

/// A PNG of `w`x`h` pixels (a screenshot).
pub fn png(w: u32, h: u32) -> Vec<u8> {
    let mut bytes = Vec::new();
    DynamicImage::new_rgb8(w, h)
        .write_with_encoder(PngEncoder::new(&mut bytes))
        .unwrap();
    bytes
}

/// A JPEG photo of `w`x`h` with an EXIF block giving where it was taken (GPS).
pub fn jpeg_with_gps(w: u32, h: u32) -> Vec<u8> {
    let mut plain = Vec::new();
    DynamicImage::new_rgb8(w, h)
        .write_with_encoder(JpegEncoder::new_with_quality(&mut plain, 90))
        .unwrap();
    // TIFF, big-endian: IFD0 with GPSInfo (0x8825) -> a GPS IFD with GPSLatitudeRef = "N".
    let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
    tiff.extend_from_slice(&[0, 1, 0x88, 0x25, 0, 4, 0, 0, 0, 1, 0, 0, 0, 26, 0, 0, 0, 0]);
    tiff.extend_from_slice(&[0, 1, 0, 1, 0, 2, 0, 0, 0, 2, b'N', 0, 0, 0, 0, 0, 0, 0]);
    let mut app1 = b"Exif\0\0".to_vec();
    app1.extend_from_slice(&tiff);
    let len = u16::try_from(app1.len() + 2).unwrap();
    let mut out = plain[..2].to_vec();
    out.extend_from_slice(&[0xff, 0xe1]);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&app1);
    out.extend_from_slice(&plain[2..]);
    out
}

pub fn has_exif(bytes: &[u8]) -> bool {
    bytes.windows(6).any(|w| w == b"Exif\0\0")
}

/// A minimal PDF.
pub const PDF: &[u8] = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";

/// The start of an x86-64 ELF executable.
pub fn elf() -> Vec<u8> {
    let mut bytes = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0\x3e\0\x01\0\0\0".to_vec();
    bytes.resize(4096, 0);
    bytes
}

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
        let mut found = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    found.push(path.strip_prefix(root).unwrap().display().to_string());
                }
            }
        }
        found.sort();
        found
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
