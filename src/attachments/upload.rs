//! Receiving a file: `multipart/form-data` with one part named `file`, its size counted as it
//! arrives, never held whole in memory. Its type is sniffed from its first bytes and a program
//! or script refused before the rest is taken. Then:
//!
//! - on S3, a file that is not an image, in a request of at most one part (5 MiB, S3's
//!   smallest, by its `Content-Length`), is gathered in memory and stored with one request
//!   while one of [`TRANSFERS`] slots is free: no spool file written and read back, which is
//!   most of what an upload costs beside the store's own `put`. A sender slower than
//!   [`GATHER_WITHIN`] gives its slot back and is spooled;
//! - everything else goes to a spool file first: an image's size is checked there, its
//!   thumbnail made and a visitor's photo cleaned of metadata. On a local directory the spool
//!   file is made inside it and renamed into place once checked (`DurableDirectory::adopt`),
//!   so each byte is written once, as the store's own `put` writes it. On S3 it is an unnamed
//!   temporary file (gone with the process, whatever happens) copied to the store in parts
//!   once a slot is free, so a slow client never holds a slot, nor more than a few MiB of
//!   memory, while it sends.
//!
//! The record is written last, counted against the workspace's quota in the same transaction.
//! A refusal at any step leaves nothing behind: a spool file goes with its handle, stored
//! objects and the parts of a multipart upload are deleted again. Once the whole file has
//! arrived, storing and recording it finish on a task of their own, whether or not the client
//! waits for the answer.
//!
//! Memory is bounded per upload, not by the file's size: a spooling upload holds the
//! request's read buffers (about 3 MiB, measured by `benches/attachments.rs`; handing the
//! parser the body 256 KiB at a time did not lower it), two batches of which the spool writer
//! keeps until written (`spool_writer`); a gathered one holds its file (at most 5 MiB) and
//! at most [`TRANSFERS`] gather or copy at once; at most [`DECODES`] images are decoded at
//! once.

use std::io::SeekFrom;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::Multipart;
use axum::extract::multipart::Field;
use axum::http::{HeaderMap, StatusCode};
use object_store::ObjectStoreExt;
use object_store::PutPayload;
use object_store::path::Path;
use supportdesk_core::storage::{Store, Variant, attachment_path};
use supportdesk_core::tenancy::TenantSchema;
use tokio::io::{AsyncReadExt, AsyncSeekExt};
use tokio::sync::OwnedSemaphorePermit;
use uuid::Uuid;

use super::Files;
use super::images::{self, ImageError};
use super::record::{self, Attachment, NewAttachment, Uploader};
use super::sniff::{self, HEAD, Kind};
use super::spool_writer::{BATCH, SpoolWriter};
use crate::error::{Error, Result};
use crate::state::AppState;

/// Copies to the store at once, per process.
pub const TRANSFERS: usize = 4;
/// Images decoded at once, per process.
pub const DECODES: usize = 2;
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
    /// The request's `Content-Length`, when it declared one.
    pub declared_bytes: Option<u64>,
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

/// The request's `Content-Length`, when it declared one.
pub fn declared_bytes(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(axum::http::header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
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
/// characters; "file" when nothing is left. Dots and spaces at its end go too: Windows drops
/// them when the file is saved, so `run.bat.` would be kept as `run.bat`, and the name is
/// checked for a program's extension as it will be saved.
pub fn clean_name(name: Option<&str>) -> String {
    let base = name.unwrap_or("").rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = base.chars().filter(|c| !c.is_control()).take(255).collect();
    let clean = clean
        .trim_start_matches(|c: char| c == '.' || c.is_whitespace())
        .trim_end_matches(|c: char| c == '.' || c.is_whitespace())
        .to_owned();
    if clean.is_empty() {
        "file".to_owned()
    } else {
        clean
    }
}

/// The file part as it arrives, counted against the uploader's size cap and the room left
/// in the workspace.
struct Incoming<'a> {
    field: Field<'a>,
    max_bytes: u64,
    room: u64,
    quota: i64,
    size: u64,
}

impl Incoming<'_> {
    /// The next chunk; a 413 once the file passes the uploader's cap.
    async fn next(&mut self) -> Result<Option<Bytes>> {
        let chunk = match self.field.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => return Ok(None),
            Err(e) => {
                return Err(status(
                    StatusCode::BAD_REQUEST,
                    "invalid_upload",
                    e.body_text(),
                ));
            }
        };
        self.size += chunk.len() as u64;
        if self.size > self.max_bytes {
            return Err(status(
                StatusCode::PAYLOAD_TOO_LARGE,
                "file_too_large",
                format!(
                    "files may be at most {} MiB",
                    self.max_bytes / (1024 * 1024)
                ),
            ));
        }
        Ok(Some(chunk))
    }

    fn over_room(&self) -> bool {
        self.size > self.room
    }

    /// Takes the rest of a file that will not be kept, so the client reads our answer rather
    /// than a reset connection (the cap still bounds it), and answers that the workspace is
    /// full.
    async fn refuse_over_quota(&mut self) -> Error {
        loop {
            match self.next().await {
                Ok(Some(_)) => {}
                Ok(None) => return quota_exceeded(self.quota),
                Err(e) => return e,
            }
        }
    }

    /// Writes the chunks read so far and then the rest of the file to `sink`, flushed. `None`
    /// when the file passed the workspace's room (what was written is the caller's to drop).
    async fn pour(
        &mut self,
        first: Vec<Bytes>,
        sink: &mut impl Sink,
    ) -> Result<Option<()>, Poured> {
        for chunk in first {
            sink.take(chunk).await.map_err(Poured::Sink)?;
        }
        while let Some(chunk) = self.next().await.map_err(Poured::Refused)? {
            if self.over_room() {
                return Ok(None);
            }
            sink.take(chunk).await.map_err(Poured::Sink)?;
        }
        if self.over_room() {
            return Ok(None);
        }
        sink.flush().await.map_err(Poured::Sink)?;
        Ok(Some(()))
    }
}

/// Where a receiving file goes: a spool file or the store.
trait Sink {
    async fn take(&mut self, chunk: Bytes) -> std::io::Result<()>;
    async fn flush(&mut self) -> std::io::Result<()>;
}

impl Sink for SpoolWriter {
    async fn take(&mut self, chunk: Bytes) -> std::io::Result<()> {
        SpoolWriter::take(self, chunk).await
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        SpoolWriter::flush(self).await
    }
}

/// A file small enough to go to the store in one request, gathered in memory as it arrives
/// and stored with one `put` at its end. The chunks are kept as received (the store's client
/// hashes and sends a payload of many chunks as it is), so the file is not copied again.
struct Gathered {
    chunks: Vec<Bytes>,
    size: usize,
    limit: usize,
}

impl Gathered {
    fn new(limit: usize) -> Self {
        Self {
            chunks: Vec::new(),
            size: 0,
            limit,
        }
    }

    async fn store(self, store: &Store, path: &Path) -> object_store::Result<()> {
        store
            .put(path, PutPayload::from_iter(self.chunks))
            .await
            .map(drop)
    }
}

impl Sink for Gathered {
    async fn take(&mut self, chunk: Bytes) -> std::io::Result<()> {
        if self.size + chunk.len() > self.limit {
            // The request said it was smaller: the server ends its body at that length, so
            // only a framing overhead beyond the file could get here.
            return Err(std::io::Error::other(
                "the file is larger than its request declared",
            ));
        }
        self.size += chunk.len();
        self.chunks.push(chunk);
        Ok(())
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Why pouring a file stopped.
enum Poured {
    /// The upload is refused (too large, a broken body).
    Refused(Error),
    /// Writing failed.
    Sink(std::io::Error),
}

/// A received file on disk, waiting to be stored.
enum Spool {
    /// In the store's own directory, to be renamed into place; deleted when dropped.
    InStore(tempfile::NamedTempFile),
    /// An unnamed temporary file, to be copied to the store; gone with its handle.
    Unnamed(std::fs::File),
}

impl Spool {
    /// A new spool file for `files`' store.
    fn new(files: &Files) -> std::io::Result<Self> {
        match &files.directory {
            Some(directory) => directory.incoming().map(Self::InStore),
            None => tempfile::tempfile().map(Self::Unnamed),
        }
    }

    fn file(&mut self) -> &mut std::fs::File {
        match self {
            Self::InStore(named) => named.as_file_mut(),
            Self::Unnamed(file) => file,
        }
    }
}

/// What was stored of a file.
struct Stored {
    size: u64,
    dimensions: Option<(u32, u32)>,
    thumbnail_type: Option<&'static str>,
}

/// Receives, checks, stores and records one file.
///
/// On S3, a small file that is not an image goes to the store in one request while a transfer
/// slot is free; anything else is spooled first (an image is decoded from there, and a large
/// file's parts are copied from there).
pub async fn receive(
    state: &AppState,
    upload: Upload<'_>,
    mut multipart: Multipart,
) -> Result<Attachment> {
    let files = &state.files;
    let quota = files.quota;
    // Refused before the bytes come when the workspace is full already.
    let (used, _) = {
        let mut conn = state.reads.get(upload.schema).await?;
        record::usage(&mut conn, upload.schema).await?
    };
    if used >= quota {
        return Err(quota_exceeded(quota));
    }

    let field = file_part(&mut multipart).await?;
    let name = clean_name(field.file_name());
    let mut incoming = Incoming {
        field,
        max_bytes: upload.max_bytes,
        room: u64::try_from(quota - used).unwrap_or(0),
        quota,
        size: 0,
    };
    // The first bytes decide the type, before the rest is taken.
    let mut first = Vec::new();
    let mut head = Vec::with_capacity(HEAD);
    while head.len() < HEAD {
        let Some(chunk) = incoming.next().await? else {
            break;
        };
        let take = (HEAD - head.len()).min(chunk.len());
        head.extend_from_slice(&chunk[..take]);
        first.push(chunk);
    }
    if incoming.size == 0 {
        return Err(status(
            StatusCode::BAD_REQUEST,
            "file_empty",
            "the file is empty",
        ));
    }
    let sniffed = sniff::sniff(&head, &name).map_err(|refusal| {
        status(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "file_type_refused",
            refusal.to_string(),
        )
    })?;

    let id = Uuid::now_v7();
    // Small enough for one request to the store, by what the request declared.
    let small = upload
        .declared_bytes
        .is_some_and(|declared| declared <= PART as u64);
    let direct = match sniffed.kind {
        Kind::Pdf | Kind::Download if files.stream && small => {
            files.transfers.clone().try_acquire_owned().ok()
        }
        Kind::Image(_) | Kind::Pdf | Kind::Download => None,
    };
    let received = match direct {
        Some(slot) => match gather(&mut incoming, first).await? {
            Gather::Whole(gathered) => Received::Gathered(gathered, slot),
            Gather::Slow(chunks) => {
                // A slow sender does not keep the slot: what came so far goes to a spool file.
                drop(slot);
                Received::Spooled(spool(files, &mut incoming, chunks).await?)
            }
        },
        None => Received::Spooled(spool(files, &mut incoming, first).await?),
    };
    let size = incoming.size;
    // The request's buffers go before the wait for a transfer slot, which many spooled
    // uploads may share.
    drop(incoming);
    drop(multipart);
    let finish = Finish {
        state: state.clone(),
        workspace_id: upload.workspace_id,
        schema: upload.schema.clone(),
        new: NewAttachment {
            id,
            conversation_id: upload.conversation_id,
            uploader: upload.uploader,
            name,
            content_type: sniffed.content_type,
            size: i64::try_from(size).unwrap_or(i64::MAX),
            dimensions: None,
            inline: sniffed.kind.inline(),
            thumbnail_type: None,
        },
        kind: sniffed.kind,
        strip_metadata: upload.strip_metadata,
    };
    // The whole file is here: storing and recording it run to their end on a task of their
    // own, since the request's future is dropped when its client goes away, and stopping
    // between the two would leave an object that no record names (nor counts in the quota).
    tokio::spawn(finish.run(received)).await.map_err(internal)?
}

/// A received file, ready to store.
enum Received {
    /// In memory, holding a transfer slot.
    Gathered(Gathered, OwnedSemaphorePermit),
    Spooled(Spool),
}

/// What storing and recording a received file needs, owned.
struct Finish {
    state: AppState,
    workspace_id: Uuid,
    schema: TenantSchema,
    /// The record; its size, dimensions and thumbnail as received, until stored.
    new: NewAttachment,
    kind: Kind,
    strip_metadata: bool,
}

impl Finish {
    /// Stores the file, then records it counted against the workspace's quota; deletes what
    /// was stored when either is refused or fails.
    async fn run(mut self, received: Received) -> Result<Attachment> {
        let files = &self.state.files;
        let quota = files.quota;
        let original = attachment_path(self.workspace_id, self.new.id, Variant::Original);
        let thumbnail = attachment_path(self.workspace_id, self.new.id, Variant::Thumbnail);
        match received {
            Received::Gathered(gathered, _slot) => {
                if let Err(e) = gathered.store(&files.store, &original).await {
                    // Whatever the store kept of a failed request.
                    forget(&files.store, &[&original]).await;
                    return Err(store_failed(e));
                }
            }
            Received::Spooled(spool) => {
                let stored = store_spooled(
                    &self.state,
                    self.strip_metadata,
                    self.kind,
                    spool,
                    &original,
                    &thumbnail,
                )
                .await?;
                self.new.size = i64::try_from(stored.size).unwrap_or(i64::MAX);
                self.new.dimensions = stored.dimensions;
                self.new.thumbnail_type = stored.thumbnail_type;
            }
        }

        // Counted against the quota, or refused: then the transaction is gone (and its
        // lock on the workspace's usage with it) before the objects are deleted.
        let recorded = async {
            let mut tx = supportdesk_core::db::begin(&self.state.db, None).await?;
            match record::insert(&mut tx, &self.schema, &self.new, quota).await? {
                Some(attachment) => Ok((tx, attachment)),
                None => Err(quota_exceeded(quota)),
            }
        }
        .await;
        let (tx, attachment) = match recorded {
            Ok(recorded) => recorded,
            Err(e) => {
                forget(&files.store, &[&original, &thumbnail]).await;
                return Err(e);
            }
        };
        if let Err(e) = tx.commit().await {
            // The commit may have happened all the same (an answer lost on the way): the
            // objects stay, an orphan at worst, which the workspace's deletion removes,
            // rather than a record naming a deleted file.
            tracing::warn!(error = %e, %original, "committing an upload's record failed; its objects are kept");
            return Err(e.into());
        }
        metrics::counter!("attachments_stored_total").increment(1);
        metrics::counter!("attachments_stored_bytes_total")
            .increment(u64::try_from(self.new.size).unwrap_or(0));
        Ok(attachment.linked(&files.links, self.workspace_id))
    }
}

/// How long a small file may take to arrive while it holds a transfer slot; a slower sender
/// is spooled instead, so a few slow clients cannot keep other uploads from the store.
const GATHER_WITHIN: Duration = Duration::from_secs(1);

/// A small file gathered in memory, or, when it came too slowly, the chunks so far.
enum Gather {
    Whole(Gathered),
    Slow(Vec<Bytes>),
}

/// Gathers a small file (at most [`PART`]) for one request to the store, for at most
/// [`GATHER_WITHIN`].
async fn gather(incoming: &mut Incoming<'_>, first: Vec<Bytes>) -> Result<Gather> {
    let mut gathered = Gathered::new(PART);
    // Cancel-safe: a chunk is taken from the body and handed to `gathered` in one poll.
    let poured = tokio::time::timeout(GATHER_WITHIN, incoming.pour(first, &mut gathered)).await;
    match poured {
        Err(_) => Ok(Gather::Slow(gathered.chunks)),
        Ok(Ok(Some(()))) => Ok(Gather::Whole(gathered)),
        Ok(Ok(None)) => Err(incoming.refuse_over_quota().await),
        Ok(Err(Poured::Refused(e))) => Err(e),
        Ok(Err(Poured::Sink(e))) => Err(store_failed(e)),
    }
}

/// Receives the rest of the file into a spool file (deleted if the upload goes no further).
async fn spool(files: &Files, incoming: &mut Incoming<'_>, first: Vec<Bytes>) -> Result<Spool> {
    let mut spool = Spool::new(files).map_err(internal)?;
    let handle = spool.file().try_clone().map_err(internal)?;
    let becomes_the_object = matches!(spool, Spool::InStore(_));
    let mut writer = SpoolWriter::new(handle, becomes_the_object);
    // `pour` flushes: every write has reached the file before it is read or renamed.
    match incoming.pour(first, &mut writer).await {
        Ok(Some(())) => Ok(spool),
        Ok(None) => Err(incoming.refuse_over_quota().await),
        Err(Poured::Refused(e)) => Err(e),
        Err(Poured::Sink(e)) => Err(internal(e)),
    }
}

/// Checks and stores a spooled file: an image's size checked, its thumbnail made and a
/// visitor's photo cleaned, then the file copied to the store once a transfer slot is free.
async fn store_spooled(
    state: &AppState,
    strip: bool,
    kind: Kind,
    mut spool: Spool,
    original: &Path,
    thumbnail: &Path,
) -> Result<Stored> {
    let files = &state.files;
    let processed = match kind {
        Kind::Image(format) => {
            let _decoding = files.decodes.acquire().await.map_err(internal)?;
            let (file, processed) = tokio::task::spawn_blocking(move || {
                let processed = images::process(spool.file(), format, strip);
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
    let (file, dimensions, thumb) = match processed {
        Some(p) => (
            p.cleaned.map_or(spool, Spool::Unnamed),
            Some(p.dimensions),
            Some((p.thumbnail, p.thumbnail_type)),
        ),
        None => (spool, None, None),
    };
    let stored = async {
        let size = store_spool(files, original, file).await?;
        if let Some((bytes, _)) = &thumb {
            files
                .store
                .put(thumbnail, bytes.clone().into())
                .await
                .map_err(store_failed)?;
        }
        Ok::<u64, Error>(size)
    }
    .await;
    match stored {
        Ok(size) => Ok(Stored {
            size,
            dimensions,
            thumbnail_type: thumb.map(|(_, t)| t),
        }),
        Err(e) => {
            forget(&files.store, &[original, thumbnail]).await;
            Err(e)
        }
    }
}

/// A file that came inside another message (an email's attachment), stored and waiting to be
/// recorded for its uploader ([`Carried::recorded_as`], then [`record::insert`] in the
/// caller's transaction; [`forget_stored`] when that fails).
#[derive(Debug)]
pub struct Carried {
    pub id: Uuid,
    pub name: String,
    content_type: String,
    size: u64,
    dimensions: Option<(u32, u32)>,
    inline: bool,
    thumbnail_type: Option<&'static str>,
}

impl Carried {
    pub fn recorded_as(&self, uploader: Uploader) -> NewAttachment {
        NewAttachment {
            id: self.id,
            conversation_id: None,
            uploader,
            name: self.name.clone(),
            content_type: self.content_type.clone(),
            size: i64::try_from(self.size).unwrap_or(i64::MAX),
            dimensions: self.dimensions,
            inline: self.inline,
            thumbnail_type: self.thumbnail_type,
        }
    }
}

/// Checks and stores a file that came inside another message, already in memory, as a
/// visitor's upload is (type sniffed, programs refused, images capped, thumbnailed and
/// cleaned of metadata). `Ok(Err(reason))` when it is refused.
pub async fn store_carried(
    state: &AppState,
    workspace_id: Uuid,
    name: &str,
    bytes: Vec<u8>,
    max_bytes: u64,
) -> Result<std::result::Result<Carried, String>> {
    let name = clean_name(Some(name));
    if bytes.is_empty() {
        return Ok(Err(format!("{name}: the file is empty")));
    }
    if bytes.len() as u64 > max_bytes {
        return Ok(Err(format!(
            "{name}: files may be at most {} MiB",
            max_bytes / (1024 * 1024)
        )));
    }
    let head = &bytes[..bytes.len().min(HEAD)];
    let sniffed = match sniff::sniff(head, &name) {
        Ok(sniffed) => sniffed,
        Err(refusal) => return Ok(Err(format!("{name}: {refusal}"))),
    };
    let mut spool = Spool::new(&state.files).map_err(internal)?;
    let spool = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        spool.file().write_all(&bytes)?;
        Ok::<_, std::io::Error>(spool)
    })
    .await
    .map_err(internal)?
    .map_err(internal)?;
    let id = Uuid::now_v7();
    let original = attachment_path(workspace_id, id, Variant::Original);
    let thumbnail = attachment_path(workspace_id, id, Variant::Thumbnail);
    let stored = match store_spooled(state, true, sniffed.kind, spool, &original, &thumbnail).await
    {
        Ok(stored) => stored,
        Err(Error::Body { detail, .. }) => return Ok(Err(format!("{name}: {detail}"))),
        Err(e) => return Err(e),
    };
    Ok(Ok(Carried {
        id,
        name,
        content_type: sniffed.content_type,
        size: stored.size,
        dimensions: stored.dimensions,
        inline: sniffed.kind.inline(),
        thumbnail_type: stored.thumbnail_type,
    }))
}

/// Deletes the objects of a stored file that was not recorded after all.
pub async fn forget_stored(state: &AppState, workspace_id: Uuid, id: Uuid) {
    let original = attachment_path(workspace_id, id, Variant::Original);
    let thumbnail = attachment_path(workspace_id, id, Variant::Thumbnail);
    forget(&state.files.store, &[&original, &thumbnail]).await;
}

fn internal(e: impl Into<anyhow::Error>) -> Error {
    Error::Internal(e.into())
}

/// The store refused or failed: logged with its reason, answered 503 (nothing was recorded).
pub fn store_failed(e: impl std::fmt::Display) -> Error {
    tracing::error!(error = %e, "the file store failed");
    Error::Unavailable("the file store is unavailable; try again")
}

/// Makes a spooled file the object at `path`: renamed into place in a local directory, copied
/// otherwise; its size.
async fn store_spool(files: &Files, path: &Path, spool: Spool) -> Result<u64> {
    match (spool, &files.directory) {
        (Spool::InStore(named), Some(directory)) => {
            let size = named.as_file().metadata().map_err(internal)?.len();
            directory.adopt(named, path).await.map_err(store_failed)?;
            Ok(size)
        }
        (Spool::InStore(named), None) => {
            copy_to_store(&files.store, path, named.into_file(), &files.transfers).await
        }
        (Spool::Unnamed(file), _) => {
            copy_to_store(&files.store, path, file, &files.transfers).await
        }
    }
}

/// Copies `file` (from its start) to `path` once a transfer slot is free: in one request when
/// it fits in a part, else in parts of [`PART`], one at a time; the bytes copied. A multipart
/// upload that fails at any step is aborted, so the store keeps no parts of it (an S3 store
/// bills them until they are).
async fn copy_to_store(
    store: &Store,
    path: &Path,
    file: std::fs::File,
    transfers: &tokio::sync::Semaphore,
) -> Result<u64> {
    let _slot = transfers.acquire().await.map_err(internal)?;
    let mut file = tokio::fs::File::from_std(file);
    file.seek(SeekFrom::Start(0)).await.map_err(internal)?;
    let first = read_part(&mut file).await.map_err(internal)?;
    if first.content_length() < PART {
        let size = first.content_length() as u64;
        store.put(path, first).await.map_err(store_failed)?;
        return Ok(size);
    }
    let mut upload = store.put_multipart(path).await.map_err(store_failed)?;
    let sent = async {
        let mut copied = 0;
        let mut part = first;
        // One part in memory at a time: a part is read once the one before it is sent.
        while part.content_length() > 0 {
            copied += part.content_length() as u64;
            upload.put_part(part).await.map_err(store_failed)?;
            part = read_part(&mut file).await.map_err(internal)?;
        }
        upload.complete().await.map_err(store_failed)?;
        Ok::<u64, Error>(copied)
    }
    .await;
    if sent.is_err()
        && let Err(e) = upload.abort().await
    {
        tracing::warn!(error = %e, %path, "aborting a failed multipart upload failed");
    }
    sent
}

/// The next [`PART`] bytes of `file` (fewer at its end, none after it), read in chunks of
/// [`BATCH`], the size the spool's own writes use, rather than one 5 MiB allocation.
async fn read_part(file: &mut tokio::fs::File) -> std::io::Result<PutPayload> {
    let mut chunks = Vec::new();
    let mut size = 0;
    while size < PART {
        let want = BATCH.min(PART - size);
        let mut chunk = Vec::with_capacity(want);
        (&mut *file)
            .take(want as u64)
            .read_to_end(&mut chunk)
            .await?;
        if chunk.is_empty() {
            break;
        }
        size += chunk.len();
        chunks.push(Bytes::from(chunk));
    }
    Ok(chunks.into_iter().collect())
}

/// Deletes objects of a refused upload; a failure is logged, the object is an orphan the
/// workspace's deletion still removes.
async fn forget(store: &Store, paths: &[&Path]) {
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
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use futures::stream::BoxStream;
    use object_store::memory::InMemory;
    use object_store::{
        CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
        PutMultipartOptions, PutOptions, PutPayload, PutResult, UploadPart,
    };

    use super::{PART, Path, clean_name, copy_to_store};

    /// A store whose multipart uploads fail at their second part, telling whether they were
    /// aborted.
    #[derive(Debug, Default)]
    struct SecondPartFails {
        inner: InMemory,
        aborted: Arc<AtomicBool>,
    }

    impl std::fmt::Display for SecondPartFails {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("SecondPartFails")
        }
    }

    #[derive(Debug)]
    struct FailingUpload {
        parts: AtomicUsize,
        aborted: Arc<AtomicBool>,
    }

    #[async_trait::async_trait]
    impl MultipartUpload for FailingUpload {
        fn put_part(&mut self, _data: PutPayload) -> UploadPart {
            let part = self.parts.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move {
                if part == 1 {
                    Err(object_store::Error::Generic {
                        store: "SecondPartFails",
                        source: "the second part failed".into(),
                    })
                } else {
                    Ok(())
                }
            })
        }

        async fn complete(&mut self) -> object_store::Result<PutResult> {
            Ok(PutResult {
                e_tag: None,
                version: None,
            })
        }

        async fn abort(&mut self) -> object_store::Result<()> {
            self.aborted.store(true, Ordering::SeqCst);
            Ok(())
        }
    }

    #[async_trait::async_trait]
    impl ObjectStore for SecondPartFails {
        async fn put_opts(
            &self,
            location: &Path,
            payload: PutPayload,
            opts: PutOptions,
        ) -> object_store::Result<PutResult> {
            self.inner.put_opts(location, payload, opts).await
        }

        async fn put_multipart_opts(
            &self,
            _location: &Path,
            _opts: PutMultipartOptions,
        ) -> object_store::Result<Box<dyn MultipartUpload>> {
            Ok(Box::new(FailingUpload {
                parts: AtomicUsize::new(0),
                aborted: Arc::clone(&self.aborted),
            }))
        }

        async fn get_opts(
            &self,
            location: &Path,
            options: GetOptions,
        ) -> object_store::Result<GetResult> {
            self.inner.get_opts(location, options).await
        }

        fn delete_stream(
            &self,
            locations: BoxStream<'static, object_store::Result<Path>>,
        ) -> BoxStream<'static, object_store::Result<Path>> {
            self.inner.delete_stream(locations)
        }

        fn list(
            &self,
            prefix: Option<&Path>,
        ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
            self.inner.list(prefix)
        }

        async fn list_with_delimiter(
            &self,
            prefix: Option<&Path>,
        ) -> object_store::Result<ListResult> {
            self.inner.list_with_delimiter(prefix).await
        }

        async fn copy_opts(
            &self,
            from: &Path,
            to: &Path,
            options: CopyOptions,
        ) -> object_store::Result<()> {
            self.inner.copy_opts(from, to, options).await
        }
    }

    #[tokio::test]
    async fn a_copy_whose_part_fails_aborts_its_upload() {
        let store = Arc::new(SecondPartFails::default());
        let aborted = Arc::clone(&store.aborted);
        let mut file = tempfile::tempfile().expect("a spool file");
        std::io::Write::write_all(&mut file, &vec![7u8; PART * 2]).expect("written");
        let transfers = tokio::sync::Semaphore::new(1);
        let copied =
            copy_to_store(&(store as super::Store), &Path::from("f"), file, &transfers).await;
        assert!(copied.is_err());
        assert!(aborted.load(Ordering::SeqCst), "the upload was aborted");
    }

    #[test]
    fn names_lose_directories_and_control_characters() {
        assert_eq!(clean_name(Some("C:\\Users\\me\\shot.png")), "shot.png");
        assert_eq!(clean_name(Some("../../etc/passwd")), "passwd");
        assert_eq!(clean_name(Some("a\u{0}b\r\n.txt")), "ab.txt");
        assert_eq!(clean_name(Some("..hidden")), "hidden");
        assert_eq!(clean_name(Some("run.bat.")), "run.bat");
        assert_eq!(clean_name(Some("run.bat . . ")), "run.bat");
        assert_eq!(clean_name(Some(" . ")), "file");
        assert_eq!(clean_name(Some("")), "file");
        assert_eq!(clean_name(None), "file");
        assert_eq!(clean_name(Some(&"x".repeat(300))).chars().count(), 255);
    }
}
