//! An S3-compatible object store of the test's own: `s3s-fs` (the s3s project's file-system
//! backend) on a free loopback port, serving a fresh directory, one bucket in it, and checking
//! every request's SigV4 signature against one access key. `.ci/services.sh`
//! (`ensure_s3s_fs`) builds it and names it in `S3S_FS`.
//!
//! s3s-fs keeps a bucket as a directory of its root and an object `KEY` of bucket `B` as the
//! file `root/B/KEY` (its metadata in dot-files at the root), so a test can look at what was
//! stored, or that it is gone, on disk.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The access key the server accepts (`AWS_ACCESS_KEY_ID`).
pub const ACCESS_KEY: &str = "supportdesk-test";
/// Its secret (`AWS_SECRET_ACCESS_KEY`): a request signed with any other is refused (403).
pub const SECRET_KEY: &str = "supportdesk-test-secret-0123456789abcdef";
/// The bucket created at start (`STORAGE_URL=s3://supportdesk-test`).
pub const BUCKET: &str = "supportdesk-test";
pub const REGION: &str = "us-east-1";

/// `S3S_FS`, else where `ensure_s3s_fs` installs it.
pub fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("S3S_FS").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let home = std::env::var_os("HOME").unwrap_or_default();
    Path::new(&home).join(".cache/supportdesk-tools/s3s-fs-0.14.1/bin/s3s-fs")
}

pub struct S3Server {
    pub port: u16,
    /// Holds the data directory and the server's log; removed on drop.
    dir: PathBuf,
    child: Option<Child>,
}

impl S3Server {
    /// Starts the server on a free port with an empty data directory holding [`BUCKET`], and
    /// waits until it accepts connections.
    pub fn start() -> Self {
        let dir =
            std::env::temp_dir().join(format!("supportdesk-s3-{}", uuid::Uuid::new_v4().simple()));
        // A bucket is a directory of the root: this is all CreateBucket does.
        std::fs::create_dir_all(dir.join("data").join(BUCKET)).expect("the S3 data directory");
        let mut server = Self {
            port: crate::free_port(),
            dir,
            child: None,
        };
        server.restart();
        server
    }

    /// Starts the server (again) on the same port and data, and waits until it accepts
    /// connections.
    pub fn restart(&mut self) {
        self.kill();
        let binary = binary();
        assert!(
            binary.is_file(),
            "s3s-fs not found at {} (set S3S_FS): `source .ci/services.sh && ensure_s3s_fs` installs it",
            binary.display()
        );
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path())
            .expect("the s3s-fs log");
        let child = Command::new(&binary)
            .args(["--host", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
            .arg(self.root())
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("the s3s-fs log"))
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", binary.display()));
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                panic!("s3s-fs exited with {status}: {}", self.log());
            }
            assert!(
                Instant::now() < deadline,
                "s3s-fs did not accept connections within 10 s: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn bucket(&self) -> &'static str {
        BUCKET
    }

    pub fn access_key(&self) -> &'static str {
        ACCESS_KEY
    }

    pub fn secret_key(&self) -> &'static str {
        SECRET_KEY
    }

    /// The server's data directory: the bucket is `root()/<bucket>`, an object its file there.
    pub fn root(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// The bucket's directory: object `KEY` is the file `bucket_dir()/KEY`.
    pub fn bucket_dir(&self) -> PathBuf {
        self.root().join(BUCKET)
    }

    /// The settings that point the API or the worker at this store.
    pub fn env(&self) -> Vec<(String, String)> {
        [
            ("STORAGE_URL", format!("s3://{BUCKET}")),
            ("S3_ENDPOINT", self.endpoint()),
            ("S3_REGION", REGION.to_owned()),
            ("S3_ALLOW_HTTP", "true".to_owned()),
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY.to_owned()),
            ("AWS_SECRET_ACCESS_KEY", SECRET_KEY.to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }

    /// What the server wrote to stdout and stderr.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    fn log_path(&self) -> PathBuf {
        self.dir.join("s3s-fs.log")
    }

    /// SIGKILL: the store vanishes mid-request, as in an outage. The data stays for `restart`.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// The store runs, holds the bucket, and refuses a request without a signature.
    #[test]
    fn starts_with_its_bucket_and_checks_signatures() {
        let server = S3Server::start();
        assert!(server.bucket_dir().is_dir());
        let env = server.env();
        assert!(env.contains(&("STORAGE_URL".into(), "s3://supportdesk-test".into())));
        assert!(env.contains(&("S3_ENDPOINT".into(), server.endpoint())));

        let mut stream = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        write!(
            stream,
            "GET /{BUCKET}/anything HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            server.port
        )
        .unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        assert!(reply.starts_with("HTTP/1.1 403"), "{reply}");
        assert!(reply.contains("Signature is required"), "{reply}");

        let dir = server.dir.clone();
        drop(server);
        assert!(!dir.exists(), "dropped with its data");
    }
}
