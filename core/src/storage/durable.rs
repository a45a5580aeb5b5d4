//! A local directory whose writes are on disk when they return.
//!
//! Why: `object_store`'s local store writes a file under a temporary name and renames it into
//! place, but syncs neither the file nor its directories. After a power cut or a crash of the
//! node, an attachment the API had answered for (and recorded in PostgreSQL, which does sync)
//! could be missing or empty, and so could a received email the mailbox was told it may
//! forget. An S3 store's answer means the object is durable; this gives a directory the same
//! meaning: a `put`, a completed multipart upload, a copy or a rename returns once the file's
//! data and every directory from the file's up to the store's root are synced. Reads, lists
//! and deletes are the local store's own.
//!
//! A file received whole before it is stored (an upload) is written once: it is spooled in
//! the directory's own [`INCOMING`] folder ([`DurableDirectory::incoming`]) and, once checked,
//! renamed into place ([`DurableDirectory::adopt`]) instead of being copied into a new file.
//! On the local store a copy is a second page-cache write of every byte, which is what the
//! store's own `put` costs; a rename costs nothing beside it. A spool file left by a process
//! that died is removed when a process next opens the directory, once it is a day old.

use std::ops::Range;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path as FsPath, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use bytes::Bytes;
use futures::stream::BoxStream;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions, Result, UploadPart,
};

/// The folder under the root where received files wait to be adopted. Its name starts with a
/// dot, which no object key made by `storage` does, so no listing of a workspace sees it.
pub const INCOMING: &str = ".incoming";

/// How old a file in [`INCOMING`] must be before opening the directory removes it: older
/// than any upload still being received (another process may share the directory).
const ABANDONED_AFTER: Duration = Duration::from_secs(24 * 60 * 60);

/// The local store, each write synced before it returns.
#[derive(Debug)]
pub struct DurableDirectory {
    inner: LocalFileSystem,
    /// The root, canonical: where syncing directories stops.
    root: Arc<PathBuf>,
}

impl DurableDirectory {
    /// The store over `root` (which must exist); empty directories go with their last file.
    /// Spool files abandoned by a process that died are removed.
    pub fn new(root: &FsPath) -> Result<Self> {
        let inner = LocalFileSystem::new_with_prefix(root)?.with_automatic_cleanup(true);
        let root = std::fs::canonicalize(root).map_err(|e| failed("resolving", root, e))?;
        let incoming = root.join(INCOMING);
        std::fs::create_dir_all(&incoming).map_err(|e| failed("creating", &incoming, e))?;
        remove_abandoned(&incoming, SystemTime::now(), ABANDONED_AFTER)
            .map_err(|e| failed("cleaning", &incoming, e))?;
        Ok(Self {
            inner,
            root: Arc::new(root),
        })
    }

    /// A new spool file in [`INCOMING`], on the store's own file system, deleted when dropped
    /// unless it is adopted. Created with the mode the store gives its files.
    pub fn incoming(&self) -> std::io::Result<tempfile::NamedTempFile> {
        tempfile::Builder::new()
            .prefix("upload-")
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(self.root.join(INCOMING))
    }

    /// Makes `file` (from [`Self::incoming`], written and flushed) the object at `location`,
    /// durable when this returns: the file is synced, renamed into place (replacing any object
    /// there, as a `put` does), and its directories synced. When the rename cannot be done
    /// (a directory under the root mounted from another file system), the file is copied.
    pub async fn adopt(&self, file: tempfile::NamedTempFile, location: &Path) -> Result<()> {
        let target = self.inner.path_to_filesystem(location)?;
        let root = Arc::clone(&self.root);
        on_blocking_thread(move || adopt_file(file, &target, &root)).await
    }

    /// Syncs the file of `location`, then its directory and each one above it up to the root
    /// (a new object may have made several).
    async fn sync(&self, location: &Path) -> Result<()> {
        sync_on_blocking_thread(
            self.inner.path_to_filesystem(location)?,
            Arc::clone(&self.root),
        )
        .await
    }
}

async fn sync_on_blocking_thread(file: PathBuf, root: Arc<PathBuf>) -> Result<()> {
    on_blocking_thread(move || sync_file_and_directories(&file, &root)).await
}

/// Runs file system work on a blocking thread.
async fn on_blocking_thread(work: impl FnOnce() -> Result<()> + Send + 'static) -> Result<()> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| object_store::Error::Generic {
            store: "DurableDirectory",
            source: Box::new(e),
        })?
}

fn failed(doing: &str, path: &FsPath, e: std::io::Error) -> object_store::Error {
    object_store::Error::Generic {
        store: "DurableDirectory",
        source: format!("{doing} {}: {e}", path.display()).into(),
    }
}

/// How many times a rename into place is tried when the target's directory vanished.
const ADOPT_TRIES: usize = 3;

fn adopt_file(mut file: tempfile::NamedTempFile, target: &FsPath, root: &FsPath) -> Result<()> {
    file.as_file()
        .sync_all()
        .map_err(|e| failed("syncing", file.path(), e))?;
    let mut tries = 1;
    loop {
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| failed("creating", parent, e))?;
        }
        match file.persist(target) {
            Ok(_) => return sync_directories(target, root),
            // The store removes a directory with its last file: deleting another object can
            // take the target's directory between its creation and the rename. The store's
            // own `put` tries again the same way.
            Err(e) if e.error.kind() == std::io::ErrorKind::NotFound && tries < ADOPT_TRIES => {
                tries += 1;
                file = e.file;
            }
            Err(e) if e.error.kind() == std::io::ErrorKind::CrossesDevices => {
                return copy_into_place(e.file.path(), target, root);
            }
            Err(e) => return Err(failed("renaming into", target, e.error)),
        }
    }
}

/// Copies `from` under a temporary name beside `target`, syncs the copy, renames it into place
/// (as `put` does) and syncs the directories: a crash leaves the old object or the whole new
/// one, never a part of it.
fn copy_into_place(from: &FsPath, target: &FsPath, root: &FsPath) -> Result<()> {
    let beside = target.with_extension(format!("incoming-{}", uuid::Uuid::new_v4()));
    let copied = std::fs::copy(from, &beside)
        .and_then(|_| std::fs::File::open(&beside)?.sync_all())
        .and_then(|()| std::fs::rename(&beside, target));
    if let Err(error) = copied {
        let _ = std::fs::remove_file(&beside);
        return Err(failed("copying into", target, error));
    }
    sync_directories(target, root)
}

/// Removes the files in `dir` last modified more than `age` before `now`. Only reading `dir`
/// can fail: an entry that cannot be judged or removed (gone already, removed by another
/// process starting beside this one, not a file) is logged and left, so it never keeps a
/// process from starting.
fn remove_abandoned(dir: &FsPath, now: SystemTime, age: Duration) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let removed = entry.and_then(|entry| {
            let path = entry.path();
            let modified = entry.metadata()?.modified()?;
            if now.duration_since(modified).is_ok_and(|idle| idle > age) {
                std::fs::remove_file(&path)?;
                tracing::info!(file = %path.display(), "removed an abandoned upload");
            }
            Ok(())
        });
        match removed {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::warn!(error = %e, dir = %dir.display(), "an abandoned upload was left");
            }
        }
    }
    Ok(())
}

fn sync_file_and_directories(file: &FsPath, root: &FsPath) -> Result<()> {
    std::fs::File::open(file)
        .and_then(|f| f.sync_all())
        .map_err(|e| failed("syncing", file, e))?;
    sync_directories(file, root)
}

/// Syncs the directory of `file` and each one above it up to `root`.
fn sync_directories(file: &FsPath, root: &FsPath) -> Result<()> {
    let mut directory = file.parent();
    while let Some(dir) = directory {
        if !dir.starts_with(root) {
            break;
        }
        // Opening a directory read-only and syncing it is how its entries are made durable
        // on Linux.
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| failed("syncing", dir, e))?;
        if dir == root {
            break;
        }
        directory = dir.parent();
    }
    Ok(())
}

impl std::fmt::Display for DurableDirectory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DurableDirectory({})", self.root.display())
    }
}

#[async_trait]
#[deny(clippy::missing_trait_methods)]
impl ObjectStore for DurableDirectory {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        let put = self.inner.put_opts(location, payload, opts).await?;
        self.sync(location).await?;
        Ok(put)
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        let upload = self.inner.put_multipart_opts(location, opts).await?;
        Ok(Box::new(DurableUpload {
            upload,
            file: self.inner.path_to_filesystem(location)?,
            root: Arc::clone(&self.root),
        }))
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.inner.get_opts(location, options).await
    }

    async fn get_ranges(&self, location: &Path, ranges: &[Range<u64>]) -> Result<Vec<Bytes>> {
        self.inner.get_ranges(location, ranges).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Path>,
        offset: &Path,
    ) -> BoxStream<'static, Result<ObjectMeta>> {
        self.inner.list_with_offset(prefix, offset)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await?;
        self.sync(to).await
    }

    async fn rename_opts(&self, from: &Path, to: &Path, options: RenameOptions) -> Result<()> {
        self.inner.rename_opts(from, to, options).await?;
        self.sync(to).await
    }
}

/// A multipart upload to the directory, synced when it completes.
#[derive(Debug)]
struct DurableUpload {
    upload: Box<dyn MultipartUpload>,
    file: PathBuf,
    root: Arc<PathBuf>,
}

#[async_trait]
impl MultipartUpload for DurableUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        self.upload.put_part(data)
    }

    async fn complete(&mut self) -> Result<PutResult> {
        let put = self.upload.complete().await?;
        sync_on_blocking_thread(self.file.clone(), Arc::clone(&self.root)).await?;
        Ok(put)
    }

    async fn abort(&mut self) -> Result<()> {
        self.upload.abort().await
    }
}

#[cfg(test)]
mod tests {
    use futures::TryStreamExt;
    use object_store::{ObjectStoreExt, WriteMultipart};

    use super::*;

    fn store() -> (tempfile::TempDir, DurableDirectory) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = DurableDirectory::new(dir.path()).expect("the store");
        (dir, store)
    }

    async fn read(store: &DurableDirectory, path: &Path) -> Bytes {
        let object = store.get(path).await.expect("get");
        object.bytes().await.expect("bytes")
    }

    #[tokio::test]
    async fn a_put_is_read_back_and_lands_under_the_root() {
        let (dir, store) = store();
        let path = Path::from("workspaces/w/attachments/a/original");
        store
            .put(&path, PutPayload::from_static(b"hello"))
            .await
            .expect("put");
        let read = read(&store, &path).await;
        assert_eq!(&read[..], b"hello");
        let on_disk = std::fs::read(dir.path().join("workspaces/w/attachments/a/original"))
            .expect("the file under the root");
        assert_eq!(on_disk, b"hello");
    }

    #[tokio::test]
    async fn a_multipart_upload_is_whole_once_complete_and_gone_once_aborted() {
        let (_dir, store) = store();
        let path = Path::from("workspaces/w/big");
        let mut upload = WriteMultipart::new(store.put_multipart(&path).await.expect("an upload"));
        upload.write(&[1u8; 3000]);
        upload.write(&[2u8; 3000]);
        upload.finish().await.expect("complete");
        let read = read(&store, &path).await;
        assert_eq!(read.len(), 6000);
        assert_eq!((read[0], read[5999]), (1, 2));

        let aborted = Path::from("workspaces/w/aborted");
        let mut upload = store.put_multipart(&aborted).await.expect("an upload");
        upload
            .put_part(PutPayload::from_static(b"part"))
            .await
            .expect("a part");
        upload.abort().await.expect("abort");
        assert!(matches!(
            store.head(&aborted).await,
            Err(object_store::Error::NotFound { .. })
        ));
    }

    #[tokio::test]
    async fn deleting_the_last_file_leaves_no_empty_directory() {
        let (dir, store) = store();
        let path = Path::from("workspaces/w/attachments/a/original");
        store
            .put(&path, PutPayload::from_static(b"x"))
            .await
            .expect("put");
        store.delete(&path).await.expect("delete");
        let listed: Vec<ObjectMeta> = store.list(None).try_collect().await.expect("list");
        assert!(listed.is_empty());
        assert!(!dir.path().join("workspaces/w").exists());
    }

    #[tokio::test]
    async fn an_adopted_spool_file_is_the_object_and_leaves_nothing_behind() {
        let (dir, store) = store();
        let path = Path::from("workspaces/w/attachments/a/original");
        let mut spool = store.incoming().expect("a spool file");
        std::io::Write::write_all(&mut spool, b"received").expect("written");
        assert!(
            spool
                .path()
                .starts_with(dir.path().canonicalize().expect("canonical"))
        );
        store.adopt(spool, &path).await.expect("adopted");
        assert_eq!(&read(&store, &path).await[..], b"received");
        let put = Path::from("workspaces/w/attachments/b/original");
        store
            .put(&put, PutPayload::from_static(b"put"))
            .await
            .expect("put");
        let mode = |p: &str| {
            let meta = std::fs::metadata(dir.path().join(p)).expect("the file");
            meta.permissions().mode() & 0o777
        };
        assert_eq!(
            mode("workspaces/w/attachments/a/original"),
            mode("workspaces/w/attachments/b/original"),
            "an adopted file has the mode of a put one"
        );
        let left = std::fs::read_dir(dir.path().join(INCOMING)).expect("the incoming folder");
        assert_eq!(left.count(), 0);
        let listed: Vec<ObjectMeta> = store.list(None).try_collect().await.expect("list");
        assert_eq!(
            listed.len(),
            2,
            "the incoming folder is not listed as objects"
        );

        // A dropped spool file goes with its handle.
        let spool = store.incoming().expect("a spool file");
        let spooled = spool.path().to_owned();
        drop(spool);
        assert!(!spooled.exists());
    }

    #[test]
    fn only_spool_files_older_than_a_day_are_abandoned() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let now = SystemTime::now();
        let old = dir.path().join("upload-old");
        let fresh = dir.path().join("upload-fresh");
        for file in [&old, &fresh] {
            std::fs::write(file, b"x").expect("a file");
        }
        std::fs::File::options()
            .write(true)
            .open(&old)
            .and_then(|f| f.set_modified(now - ABANDONED_AFTER - Duration::from_secs(60)))
            .expect("aged");
        // A folder is not a spool file: left, and no reason to refuse to start.
        std::fs::create_dir(dir.path().join("a-folder")).expect("a folder");
        std::fs::File::open(dir.path().join("a-folder"))
            .and_then(|f| f.set_modified(now - ABANDONED_AFTER - Duration::from_secs(60)))
            .expect("aged");
        remove_abandoned(dir.path(), now, ABANDONED_AFTER).expect("cleaned");
        assert!(!old.exists());
        assert!(fresh.exists());
        assert!(dir.path().join("a-folder").exists());
    }

    #[test]
    fn a_copy_into_place_replaces_the_object_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        std::fs::create_dir_all(root.join("w")).expect("a directory");
        std::fs::write(root.join("received"), b"new").expect("a spool file");
        std::fs::write(root.join("w/object"), b"old").expect("an object");
        copy_into_place(&root.join("received"), &root.join("w/object"), &root).expect("copied");
        assert_eq!(std::fs::read(root.join("w/object")).expect("read"), b"new");
        let names: Vec<_> = std::fs::read_dir(root.join("w"))
            .expect("listed")
            .map(|e| e.expect("an entry").file_name())
            .collect();
        assert_eq!(names, ["object"]);
        // A target whose directory is not there: refused, nothing made.
        assert!(copy_into_place(&root.join("received"), &root.join("gone/object"), &root).is_err());
        assert!(!root.join("gone").exists());
    }

    #[test]
    fn syncing_stops_at_the_root_and_fails_for_a_missing_file() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        std::fs::create_dir_all(root.join("a/b")).expect("directories");
        std::fs::write(root.join("a/b/f"), b"x").expect("a file");
        sync_file_and_directories(&root.join("a/b/f"), &root).expect("synced");
        assert!(sync_file_and_directories(&root.join("a/b/missing"), &root).is_err());
    }
}
