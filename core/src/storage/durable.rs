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

use std::ops::Range;
use std::path::{Path as FsPath, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures::stream::BoxStream;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions, Result, UploadPart,
};

/// The local store, each write synced before it returns.
#[derive(Debug)]
pub struct DurableDirectory {
    inner: LocalFileSystem,
    /// The root, canonical: where syncing directories stops.
    root: Arc<PathBuf>,
}

impl DurableDirectory {
    /// The store over `root` (which must exist); empty directories go with their last file.
    pub fn new(root: &FsPath) -> Result<Self> {
        let inner = LocalFileSystem::new_with_prefix(root)?.with_automatic_cleanup(true);
        let root = std::fs::canonicalize(root).map_err(|e| failed("resolving", root, e))?;
        Ok(Self {
            inner,
            root: Arc::new(root),
        })
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
    tokio::task::spawn_blocking(move || sync_file_and_directories(&file, &root))
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

fn sync_file_and_directories(file: &FsPath, root: &FsPath) -> Result<()> {
    std::fs::File::open(file)
        .and_then(|f| f.sync_all())
        .map_err(|e| failed("syncing", file, e))?;
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
