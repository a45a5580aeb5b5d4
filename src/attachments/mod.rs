//! Attachments: files that visitors and agents put on messages. The bytes go to object
//! storage (`supportdesk_core::storage`, keyed by workspace), the facts to the workspace's
//! `attachments` table, and messages, hub events and the event log carry them.
//!
//! - `upload`: receiving a file (streamed, sniffed, checked, thumbnailed, stored, counted).
//! - `sniff`: what a file is, from its bytes, and which types are refused.
//! - `spool_writer`: a received file written to its spool file from the request's chunks.
//! - `images`: size caps, thumbnails, and a visitor's photo without its metadata.
//! - `links`: short-lived signed download links, the only way to a file's bytes.
//! - `download`: `GET /files/...`, serving a file so that it can never act in our pages.
//! - `record`: the table and who may read what.
//! - `routes`: the agents' routes (the widget's are `crate::widget::attachments`).

pub mod download;
pub mod images;
pub mod links;
pub mod record;
mod routes;
pub mod sniff;
mod spool_writer;
pub mod upload;

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use supportdesk_core::config::{SigningSecret, StorageLocation, StorageSettings};
use supportdesk_core::storage::durable::DurableDirectory;
use supportdesk_core::storage::{self, Store};
use tokio::sync::Semaphore;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub use routes::{AGENT_MAX_BYTES, FileUpload};

/// The largest file a visitor may send: 10 MiB.
pub const VISITOR_MAX_BYTES: u64 = 10 * 1024 * 1024;
/// Files on one message.
pub const MAX_PER_MESSAGE: usize = 10;
/// What a multipart request may carry besides its file: boundaries and part headers.
const MULTIPART_OVERHEAD: u64 = 64 * 1024;

/// The store, the link key and the limits every upload and download shares.
pub struct Files {
    pub store: Store,
    /// The store as a local directory, when it is one: a received file is spooled inside it
    /// and renamed into place instead of copied.
    directory: Option<Arc<DurableDirectory>>,
    pub links: links::LinkKey,
    /// Bytes a workspace's files may take.
    pub quota: i64,
    decodes: Semaphore,
    transfers: Arc<Semaphore>,
    /// Whether a small file that needs no decoding goes to the store without a spool file
    /// (S3, where the spool's extra disk write and read are the cost to save). A local
    /// directory always spools, and its spool file becomes the object: nothing is written
    /// twice.
    stream: bool,
}

impl Files {
    pub fn open(settings: &StorageSettings, secret: &SigningSecret) -> anyhow::Result<Self> {
        let opened = storage::open_with_directory(settings)?;
        Ok(Self {
            store: opened.store,
            directory: opened.directory,
            links: links::LinkKey::derive(secret),
            quota: settings.workspace_quota_bytes,
            decodes: Semaphore::new(upload::DECODES),
            transfers: Arc::new(Semaphore::new(upload::TRANSFERS)),
            stream: matches!(settings.location, StorageLocation::S3(_)),
        })
    }
}

/// The body limit of an upload route: the file and its multipart framing.
pub fn upload_limit(max_file: u64) -> DefaultBodyLimit {
    DefaultBodyLimit::max(usize::try_from(max_file + MULTIPART_OVERHEAD).unwrap_or(usize::MAX))
}

/// The agents' routes.
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    let uploads = OpenApiRouter::new()
        .routes(routes!(routes::upload))
        .layer(upload_limit(AGENT_MAX_BYTES));
    OpenApiRouter::new()
        .merge(uploads)
        .routes(routes!(routes::get))
        .routes(routes!(routes::storage))
        .require(state, Rule::members(Permission::HandleConversations))
}

/// `GET /files/...`: no bearer token, the link's signature is the credential.
pub fn files_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(download::download))
}
