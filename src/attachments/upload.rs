//! Receiving a file: `multipart/form-data` with one part named `file`, streamed to a spool
//! file (an unnamed temporary file: gone with the process, whatever happens) while its size
//! is counted, never held whole in memory. Then, in order: its type sniffed from its first
//! bytes and refused when it is a program or script; an image's size checked, its thumbnail
//! made and a visitor's photo cleaned of metadata; the file copied to the store in parts; and
//! the record written, counted against the workspace's quota in the same transaction. A
//! refusal at any step leaves nothing behind: the spool file goes with its handle, stored
//! objects are deleted again.
//!
//! Memory is bounded per upload, not by the file's size: a receiving upload holds what the
//! socket has ready and the spool file's write buffer (about 3 MiB each, measured by
//! `benches/attachments.rs`); copying to the store holds one part (5 MiB, S3's smallest) and
//! at most [`TRANSFERS`] copies run at once; at most [`DECODES`] images are decoded at once.

use std::io::{Seek, SeekFrom};

use axum::extract::Multipart;
use axum::extract::multipart::Field;
use axum::http::StatusCode;
use object_store::ObjectStoreExt;
use object_store::buffered::BufWriter;
use object_store::path::Path;
use supportdesk_core::storage::{Store, Variant, attachment_path};
use supportdesk_core::tenancy::TenantSchema;
use tokio::io::{AsyncWriteExt, BufReader};
use uuid::Uuid;

use super::images::{self, ImageError};
use super::record::{self, Attachment, NewAttachment, Uploader};
use super::sniff::{self, HEAD, Kind};
use crate::error::{Error, Result};
use crate::state::AppState;

/// Copies to the store at once, per process.
pub const TRANSFERS: usize = 4;
/// Images decoded at once, per process.
pub const DECODES: usize = 2;
/// What a receiving upload gathers before writing to its spool file.
const SPOOL_BUFFER: usize = 256 * 1024;
/// The part size of a copy to the store.
const PART: usize = 5 * 1024 * 1024;

/// What an upload is for.
pub struct Upload<'a> {
    pub workspace_id: Uuid,
    pub schema: &'a TenantSchema,
    pub uploader: Uploader,
    /// An agent's upload is for a conversation; a visitor's finds one when sent.
    pub conversation_id: Option<Uuid>,
    /// The largest file this uploader may send, in bytes.
    pub max_bytes: u64,
    /// Drop the metadata of images (a visitor's).
    pub strip_metadata: bool,
}

fn status(status: StatusCode, code: &'static str, detail: impl Into<String>) -> Error {
    Error::Body {
        status,
        code,
        detail: detail.into(),
    }
}

fn quota_exceeded(quota: i64) -> Error {
    status(
        StatusCode::PAYLOAD_TOO_LARGE,
        "storage_quota_exceeded",
        format!(
            "the workspace's files would take more than its {} MB; delete a workspace's old \
             conversations or ask the operator for more room",
            quota / 1_000_000
        ),
    )
}

/// The request's multipart body, or a 415 in our error format (axum's rejection is plain
/// text).
pub fn multipart(
    body: std::result::Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<Multipart> {
    body.map_err(|e| Error::Body {
        status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
        code: "invalid_upload",
        detail: format!("expected multipart/form-data with a part named \"file\": {e}"),
    })
}

/// The next part named `file`, or a 400.
async fn file_part(multipart: &mut Multipart) -> Result<Field<'_>> {
    let refused = |detail: String| status(StatusCode::BAD_REQUEST, "invalid_upload", detail);
    match multipart.next_field().await {
        Ok(Some(field)) if field.name() == Some("file") => Ok(field),
        Ok(Some(field)) => Err(refused(format!(
            "expected one part named \"file\", got {:?}",
            field.name().unwrap_or("")
        ))),
        Ok(None) => Err(refused("expected one part named \"file\", got none".into())),
        Err(e) => Err(refused(e.body_text())),
    }
}

/// The sender's file name without any directory or control character, at most 255
/// characters; "file" when nothing is left.
pub fn clean_name(name: Option<&str>) -> String {
    let base = name.unwrap_or("").rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = base.chars().filter(|c| !c.is_control()).take(255).collect();
    let clean = clean.trim().trim_start_matches('.').to_owned();
    if clean.is_empty() {
        "file".to_owned()
    } else {
        clean
    }
}

/// Receives, checks, stores and records one file.
pub async fn receive(
    state: &AppState,
    upload: Upload<'_>,
    mut multipart: Multipart,
) -> Result<Attachment> {
    let quota = state.files.quota;
    // Refused before the bytes come when the workspace is full already.
    let (used, _) = {
        let mut conn = state.reads.get(upload.schema).await?;
        record::usage(&mut conn, upload.schema).await?
    };
    if used >= quota {
        return Err(quota_exceeded(quota));
    }

    let mut field = file_part(&mut multipart).await?;
    let name = clean_name(field.file_name());
    let spool = tempfile::tempfile().map_err(|e| Error::Internal(e.into()))?;
    // Chunks arrive a few KiB at a time; each write of a `tokio::fs::File` is a hand-off to a
    // blocking thread, so they are gathered first.
    let mut spool =
        tokio::io::BufWriter::with_capacity(SPOOL_BUFFER, tokio::fs::File::from_std(spool));
    let mut head = Vec::with_capacity(HEAD);
    let mut size: u64 = 0;
    loop {
        let chunk = match field.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(e) => {
                return Err(status(
                    StatusCode::BAD_REQUEST,
                    "invalid_upload",
                    e.body_text(),
                ));
            }
        };
        size += chunk.len() as u64;
        if size > upload.max_bytes {
            return Err(status(
                StatusCode::PAYLOAD_TOO_LARGE,
                "file_too_large",
                format!(
                    "files may be at most {} MiB",
                    upload.max_bytes / (1024 * 1024)
                ),
            ));
        }
        if head.len() < HEAD {
            let take = (HEAD - head.len()).min(chunk.len());
            head.extend_from_slice(&chunk[..take]);
        }
        spool
            .write_all(&chunk)
            .await
            .map_err(|e| Error::Internal(e.into()))?;
    }
    drop(field);
    drop(multipart);
    if size == 0 {
        return Err(status(
            StatusCode::BAD_REQUEST,
            "file_empty",
            "the file is empty",
        ));
    }
    if used.saturating_add(i64::try_from(size).unwrap_or(i64::MAX)) > quota {
        return Err(quota_exceeded(quota));
    }
    let sniffed = sniff::sniff(&head, &name).map_err(|refusal| {
        status(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "file_type_refused",
            refusal.to_string(),
        )
    })?;
    spool.flush().await.map_err(|e| Error::Internal(e.into()))?;
    let mut spool = spool.into_inner().into_std().await;

    let processed = match sniffed.kind {
        Kind::Image(format) => {
            let _decoding = state.files.decodes.acquire().await.map_err(internal)?;
            let strip = upload.strip_metadata;
            let (file, processed) = tokio::task::spawn_blocking(move || {
                let processed = images::process(&mut spool, format, strip);
                (spool, processed)
            })
            .await
            .map_err(internal)?;
            spool = file;
            Some(processed.map_err(|e| match e {
                ImageError::TooLarge(..) => status(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "image_too_large",
                    e.to_string(),
                ),
                ImageError::Unreadable(_) => status(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "image_unreadable",
                    e.to_string(),
                ),
                ImageError::Io(e) => Error::Internal(e.into()),
            })?)
        }
        Kind::Pdf | Kind::Download => None,
    };

    let id = Uuid::now_v7();
    let original = attachment_path(upload.workspace_id, id, Variant::Original);
    let thumbnail = attachment_path(upload.workspace_id, id, Variant::Thumbnail);
    let (stored_file, dimensions, thumbnail_type) = match processed {
        Some(p) => {
            let file = p.cleaned.unwrap_or(spool);
            (
                file,
                Some(p.dimensions),
                Some((p.thumbnail, p.thumbnail_type)),
            )
        }
        None => (spool, None, None),
    };
    let files = &state.files;
    let stored = async {
        let size = copy_to_store(&files.store, &original, stored_file, &files.transfers).await?;
        if let Some((bytes, _)) = &thumbnail_type {
            files
                .store
                .put(&thumbnail, bytes.clone().into())
                .await
                .map_err(store_failed)?;
        }
        Ok::<u64, Error>(size)
    }
    .await;
    let stored_size = match stored {
        Ok(size) => size,
        Err(e) => {
            forget(&files.store, [&original, &thumbnail]).await;
            return Err(e);
        }
    };

    let new = NewAttachment {
        id,
        conversation_id: upload.conversation_id,
        uploader: upload.uploader,
        name,
        content_type: sniffed.content_type,
        size: i64::try_from(stored_size).unwrap_or(i64::MAX),
        dimensions,
        inline: sniffed.kind.inline(),
        thumbnail_type: thumbnail_type.map(|(_, t)| t),
    };
    let recorded = async {
        let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
        let attachment = record::insert(&mut tx, upload.schema, &new, quota).await?;
        if attachment.is_some() {
            tx.commit().await?;
        }
        Ok::<_, Error>(attachment)
    }
    .await;
    match recorded {
        Ok(Some(attachment)) => {
            metrics::counter!("attachments_stored_total").increment(1);
            metrics::counter!("attachments_stored_bytes_total").increment(stored_size);
            Ok(attachment.linked(&files.links, upload.workspace_id))
        }
        Ok(None) => {
            forget(&files.store, [&original, &thumbnail]).await;
            Err(quota_exceeded(quota))
        }
        Err(e) => {
            forget(&files.store, [&original, &thumbnail]).await;
            Err(e)
        }
    }
}

fn internal(e: impl Into<anyhow::Error>) -> Error {
    Error::Internal(e.into())
}

/// The store refused or failed: logged with its reason, answered 503 (nothing was recorded).
pub fn store_failed(e: impl std::fmt::Display) -> Error {
    tracing::error!(error = %e, "the file store failed");
    Error::Unavailable("the file store is unavailable; try again")
}

/// Copies `file` (from its start) to `path` in parts of [`PART`], one part in flight, once a
/// transfer slot is free; the bytes copied.
async fn copy_to_store(
    store: &Store,
    path: &Path,
    mut file: std::fs::File,
    transfers: &tokio::sync::Semaphore,
) -> Result<u64> {
    let _slot = transfers.acquire().await.map_err(internal)?;
    file.seek(SeekFrom::Start(0)).map_err(internal)?;
    let mut reader = BufReader::with_capacity(256 * 1024, tokio::fs::File::from_std(file));
    let mut writer =
        BufWriter::with_capacity(store.clone(), path.clone(), PART).with_max_concurrency(1);
    match tokio::io::copy_buf(&mut reader, &mut writer).await {
        Ok(copied) => {
            writer.shutdown().await.map_err(store_failed)?;
            Ok(copied)
        }
        Err(e) => {
            // Drops the parts a multipart upload had sent.
            let _ = writer.abort().await;
            Err(store_failed(e))
        }
    }
}

/// Deletes objects of a refused upload; a failure is logged, the object is an orphan the
/// workspace's deletion still removes.
async fn forget(store: &Store, paths: [&Path; 2]) {
    for path in paths {
        match store.delete(path).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => {
                tracing::warn!(error = %e, %path, "deleting a refused upload's object failed");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::clean_name;

    #[test]
    fn names_lose_directories_and_control_characters() {
        assert_eq!(clean_name(Some("C:\\Users\\me\\shot.png")), "shot.png");
        assert_eq!(clean_name(Some("../../etc/passwd")), "passwd");
        assert_eq!(clean_name(Some("a\u{0}b\r\n.txt")), "ab.txt");
        assert_eq!(clean_name(Some("..hidden")), "hidden");
        assert_eq!(clean_name(Some("")), "file");
        assert_eq!(clean_name(None), "file");
        assert_eq!(clean_name(Some(&"x".repeat(300))).chars().count(), 255);
    }
}
