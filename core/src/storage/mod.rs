//! Object storage for attachments, behind `object_store`'s one interface: a local directory
//! or an S3-compatible store (`config::StorageSettings`). The API writes and reads objects;
//! the worker deletes a deleted workspace's.
//!
//! Every object's key starts with its workspace (`workspaces/{id}/`), so a workspace's objects
//! are one listing away: deleting a workspace never needs its (already dropped) tables to
//! know what it stored, and no key of one workspace can name another's object.
//!
//! A write returns once the object is durable: an S3 store's answer says so, and a local
//! directory syncs each file and its directories first (`durable`).

pub mod durable;

use std::sync::Arc;

use futures::{StreamExt, TryStreamExt};
use object_store::ObjectStore;
use object_store::aws::AmazonS3Builder;
use object_store::path::Path;
use object_store::prefix::PrefixStore;
use secrecy::ExposeSecret;
use uuid::Uuid;

use crate::config::{StorageLocation, StorageSettings};
use durable::DurableDirectory;

/// The store, shared by every request.
pub type Store = Arc<dyn ObjectStore>;

/// The configured store and, when it is a local directory, the directory itself, whose
/// received files are renamed into place rather than copied (`DurableDirectory::adopt`).
pub struct Opened {
    pub store: Store,
    pub directory: Option<Arc<DurableDirectory>>,
}

/// Opens the configured store. A local directory is made when missing.
pub fn open(settings: &StorageSettings) -> anyhow::Result<Store> {
    Ok(open_with_directory(settings)?.store)
}

/// Opens the configured store, keeping hold of a local directory as such.
pub fn open_with_directory(settings: &StorageSettings) -> anyhow::Result<Opened> {
    match &settings.location {
        StorageLocation::Directory(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| anyhow::anyhow!("creating {}: {e}", dir.display()))?;
            // Each write synced before it returns; empty directories go with their last file,
            // so a deleted workspace leaves none.
            let directory = Arc::new(DurableDirectory::new(dir)?);
            Ok(Opened {
                store: directory.clone(),
                directory: Some(directory),
            })
        }
        StorageLocation::S3(s3) => {
            let mut builder = AmazonS3Builder::new()
                .with_bucket_name(&s3.bucket)
                .with_region(&s3.region)
                .with_allow_http(s3.allow_http);
            if let Some(endpoint) = &s3.endpoint {
                // Path-style requests: what MinIO, Ceph and most self-hosted stores serve.
                builder = builder
                    .with_endpoint(endpoint)
                    .with_virtual_hosted_style_request(false);
            }
            if let Some((id, secret)) = &s3.credentials {
                builder = builder
                    .with_access_key_id(id)
                    .with_secret_access_key(secret.expose_secret());
            }
            let store = builder.build()?;
            let store: Store = if s3.prefix.is_empty() {
                Arc::new(store)
            } else {
                Arc::new(PrefixStore::new(store, s3.prefix.as_str()))
            };
            Ok(Opened {
                store,
                directory: None,
            })
        }
    }
}

/// Where everything of one workspace is kept.
pub fn workspace_prefix(workspace_id: Uuid) -> Path {
    Path::from(format!("workspaces/{workspace_id}"))
}

/// The two objects of an attachment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// The file as stored (for a visitor's image: without its location data).
    Original,
    /// A small preview of an image.
    Thumbnail,
}

impl Variant {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Original => "original",
            Self::Thumbnail => "thumbnail",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "original" => Some(Self::Original),
            "thumbnail" => Some(Self::Thumbnail),
            _ => None,
        }
    }
}

/// The key of one object of an attachment.
pub fn attachment_path(workspace_id: Uuid, attachment_id: Uuid, variant: Variant) -> Path {
    Path::from(format!(
        "workspaces/{workspace_id}/attachments/{attachment_id}/{}",
        variant.as_str()
    ))
}

/// Where a received email is kept as it came (`id` is ours, not its Message-ID). Under the
/// workspace's prefix, so deleting the workspace deletes it.
pub fn mail_path(workspace_id: Uuid, id: Uuid) -> Path {
    Path::from(format!("workspaces/{workspace_id}/mail/{id}.eml"))
}

/// Deletes every object of a workspace, `batch` keys at a time (one listing and one delete
/// request each), until none is left. Repeating it after a crash carries on where it
/// stopped: it asks the store what is left, not a record of what was done. Returns how many
/// objects it deleted.
pub async fn delete_workspace_objects(
    store: &dyn ObjectStore,
    workspace_id: Uuid,
    batch: usize,
) -> object_store::Result<u64> {
    let prefix = workspace_prefix(workspace_id);
    let mut deleted = 0u64;
    loop {
        let keys: Vec<Path> = store
            .list(Some(&prefix))
            .take(batch)
            .map_ok(|meta| meta.location)
            .try_collect()
            .await?;
        if keys.is_empty() {
            return Ok(deleted);
        }
        let count = keys.len() as u64;
        let keys = futures::stream::iter(keys.into_iter().map(Ok)).boxed();
        store
            .delete_stream(keys)
            .try_for_each(|_| async { Ok(()) })
            .await
            .or_else(|e| match e {
                // Gone already (another worker, or a retry): what deleting wanted.
                object_store::Error::NotFound { .. } => Ok(()),
                e => Err(e),
            })?;
        deleted += count;
        metrics::counter!("storage_objects_deleted_total").increment(count);
    }
}
