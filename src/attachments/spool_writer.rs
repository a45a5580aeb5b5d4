//! Writing a received file to its spool file from the request's own chunks.
//!
//! Why not `tokio::io::BufWriter<tokio::fs::File>`: it copies every byte twice (into our
//! buffer, then into the `tokio::fs::File`'s own before its blocking write). Here the chunks
//! the multipart parser hands out (slices of the request's read buffers) are kept as they
//! are, a batch of about [`BATCH`] bytes is written with one vectored `write` on a blocking
//! thread, and the next batch is gathered meanwhile: receiving and writing still overlap, and
//! memory stays about two batches an upload.
//!
//! What made local uploads faster was not that (measured alone, it left their throughput
//! where it was: docs/performance.md) but this: a spool file that becomes the object (a local
//! directory's) is synced before it counts, and its batches are handed to the disk as they
//! are written (`posix_fadvise(DONTNEED)`, which on Linux starts their write-back, as
//! PostgreSQL's `backend_flush_after` does with `sync_file_range`), so the final sync waits
//! for the last batch rather than for the whole file.

use std::fs::File;
use std::io::{self, IoSlice, Write};
use std::num::NonZeroU64;

use axum::body::Bytes;
use tokio::task::JoinHandle;

/// What is gathered before a write.
pub const BATCH: usize = 256 * 1024;

type Writing = JoinHandle<(File, io::Result<()>)>;

/// A spool file being written, one batch on a blocking thread while the next is gathered.
pub struct SpoolWriter {
    /// The file, while no write is in flight.
    file: Option<File>,
    writing: Option<Writing>,
    batch: Vec<Bytes>,
    batched: usize,
    /// Where the next batch goes in the file.
    offset: u64,
    /// Whether written batches are handed to the disk at once (a file that will be synced).
    write_back: bool,
}

impl SpoolWriter {
    /// A writer at the start of `file`; `write_back` for a file that will be synced.
    pub fn new(file: File, write_back: bool) -> Self {
        Self {
            file: Some(file),
            writing: None,
            batch: Vec::new(),
            batched: 0,
            offset: 0,
            write_back,
        }
    }

    /// Keeps `chunk` for the next write, and starts that write once a batch is gathered.
    pub async fn take(&mut self, chunk: Bytes) -> io::Result<()> {
        self.batched += chunk.len();
        self.batch.push(chunk);
        if self.batched >= BATCH {
            self.send().await?;
        }
        Ok(())
    }

    /// Writes what is gathered and waits until every write has reached the file.
    pub async fn flush(&mut self) -> io::Result<()> {
        if !self.batch.is_empty() {
            self.send().await?;
        }
        self.settle().await
    }

    /// Waits for the write in flight, if any, and takes the file back.
    async fn settle(&mut self) -> io::Result<()> {
        if let Some(writing) = self.writing.take() {
            let (file, written) = writing.await.map_err(io::Error::other)?;
            self.file = Some(file);
            written?;
        }
        Ok(())
    }

    /// Starts writing the gathered batch once the previous write is done.
    async fn send(&mut self) -> io::Result<()> {
        self.settle().await?;
        let mut file = self
            .file
            .take()
            .ok_or_else(|| io::Error::other("the spool file was lost by an earlier write"))?;
        let batch = std::mem::take(&mut self.batch);
        let (offset, len) = (self.offset, self.batched as u64);
        self.offset += len;
        self.batched = 0;
        let write_back = self.write_back;
        self.writing = Some(tokio::task::spawn_blocking(move || {
            let written = write_all(&mut file, &batch);
            if write_back && written.is_ok() {
                // Advice only: a kernel that ignores it leaves the work to the final sync.
                let _ = rustix::fs::fadvise(
                    &file,
                    offset,
                    NonZeroU64::new(len),
                    rustix::fs::Advice::DontNeed,
                );
            }
            (file, written)
        }));
        Ok(())
    }
}

/// Writes every chunk, in order, with as few system calls as the kernel allows.
fn write_all(file: &mut File, chunks: &[Bytes]) -> io::Result<()> {
    let mut slices: Vec<IoSlice<'_>> = chunks.iter().map(|c| IoSlice::new(c)).collect();
    let mut rest = &mut slices[..];
    IoSlice::advance_slices(&mut rest, 0);
    while !rest.is_empty() {
        match file.write_vectored(rest) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut rest, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Seek, SeekFrom};

    use super::*;

    /// Chunks of uneven sizes, some empty, adding up to more than three batches.
    fn chunks() -> Vec<Bytes> {
        (0..900usize)
            .map(|i| {
                let len = (i * 7919) % 2000;
                Bytes::from((0..len).map(|j| (i + j) as u8).collect::<Vec<u8>>())
            })
            .collect()
    }

    #[tokio::test]
    async fn every_chunk_reaches_the_file_in_order() {
        let file = tempfile::tempfile().unwrap();
        let mut writer = SpoolWriter::new(file.try_clone().unwrap(), true);
        let chunks = chunks();
        let expected: Vec<u8> = chunks.iter().flat_map(|c| c.iter().copied()).collect();
        assert!(expected.len() > 3 * BATCH);
        for chunk in chunks {
            writer.take(chunk).await.unwrap();
        }
        writer.flush().await.unwrap();

        let mut written = Vec::new();
        let mut file = file;
        file.seek(SeekFrom::Start(0)).unwrap();
        file.read_to_end(&mut written).unwrap();
        assert_eq!(written.len(), expected.len());
        assert!(written == expected, "the file holds the chunks in order");
    }

    #[tokio::test]
    async fn a_failed_write_is_reported() {
        // A handle opened for reading only: every write fails.
        let path = tempfile::NamedTempFile::new().unwrap();
        let read_only = File::open(path.path()).unwrap();
        let mut writer = SpoolWriter::new(read_only, false);
        writer.take(Bytes::from(vec![1u8; BATCH])).await.unwrap();
        assert!(writer.flush().await.is_err());
    }

    #[test]
    fn the_vectored_write_takes_many_small_slices() {
        let mut file = tempfile::tempfile().unwrap();
        // More slices than one `writev` takes (IOV_MAX is 1024 on Linux).
        let chunks: Vec<Bytes> = (0..3000u32)
            .map(|i| Bytes::from(i.to_le_bytes().to_vec()))
            .collect();
        write_all(&mut file, &chunks).unwrap();
        let mut written = Vec::new();
        file.seek(SeekFrom::Start(0)).unwrap();
        file.read_to_end(&mut written).unwrap();
        let expected: Vec<u8> = (0..3000u32).flat_map(u32::to_le_bytes).collect();
        assert_eq!(written, expected);
    }
}
