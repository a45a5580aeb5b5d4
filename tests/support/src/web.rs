//! The web apps in browser tests: a Next.js app of `web/` served as `npm start` would (its
//! production build), a plain page on an origin of its own standing in for a customer's site,
//! and where Chromium, the Node driver scripts and the screenshots are.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// The repository's root, found from the package whose tests are running (cargo sets
/// `CARGO_MANIFEST_DIR` for the test process too): two checkouts that share one target
/// directory share this crate's build, so the path it was built from can name the other
/// checkout, whose scripts and web builds are not the ones under test. That path serves only
/// when the variable is not set (a test binary started by hand).
pub fn repo() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .and_then(|dir| {
                dir.ancestors()
                    .find(|d| d.join("Cargo.lock").is_file())
                    .map(Path::to_path_buf)
            })
            .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")))
    })
}

/// Debian's Chromium (`CHROMIUM` overrides).
pub fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// Checks what a browser test needs, naming what to do about a missing piece.
pub fn require_browser_tools(apps: &[&str]) {
    for app in apps {
        assert!(
            repo()
                .join("web")
                .join(app)
                .join(".next/BUILD_ID")
                .is_file(),
            "build web/{app} first: `npm ci` in web/, then `npm run build` in web/{app} (.ci/test does it)"
        );
    }
    assert!(
        repo()
            .join("tests/browser/node_modules/playwright-core")
            .is_dir(),
        "run `npm ci` in tests/browser (.ci/test does it)"
    );
    assert!(
        chromium().is_file(),
        "install Debian's chromium (.ci/test does it)"
    );
}

/// Next's command line for `web/<app>`: the npm workspace `web/` installs it in
/// `web/node_modules`, or in the app's own `node_modules` should its version ever differ.
fn next_bin(app: &str) -> PathBuf {
    let web = repo().join("web");
    let own = web.join(app).join("node_modules/next/dist/bin/next");
    if own.is_file() {
        own
    } else {
        web.join("node_modules/next/dist/bin/next")
    }
}

/// A web app's production server, stopped with its whole process group.
pub struct NextServer {
    child: Child,
    pub origin: String,
}

impl NextServer {
    /// `web/<app>` on `origin`'s port (`http://localhost:<port>`), with `env`; returns once
    /// it answers `/healthz`.
    pub async fn start(app: &str, port: u16, env: &[(&str, &str)]) -> Self {
        let child = Command::new("node")
            .arg(next_bin(app))
            .args(["start", "-p"])
            .arg(port.to_string())
            .current_dir(repo().join("web").join(app))
            .env("PORT", port.to_string())
            .env("NEXT_TELEMETRY_DISABLED", "1")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("node runs the web app");
        let server = Self {
            child,
            origin: format!("http://localhost:{port}"),
        };
        let client = crate::http_client();
        let ready = async {
            loop {
                let healthy = client
                    .get(format!("{}/healthz", server.origin))
                    .send()
                    .await;
                if healthy.is_ok_and(|r| r.status() == reqwest::StatusCode::OK) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(60), ready)
            .await
            .unwrap_or_else(|_| panic!("web/{app} answers /healthz within 60 s"));
        server
    }
}

impl Drop for NextServer {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let _ = self.child.wait();
    }
}

/// A page standing in for a customer's site: `html` at `/` of `http://127.0.0.1:<port>`,
/// until the returned task is aborted or dropped with the runtime.
pub async fn serve_page(html: String) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let origin = format!(
        "http://127.0.0.1:{}",
        listener.local_addr().expect("addr").port()
    );
    let task = tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let html = html.clone();
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request).await;
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{html}",
                    html.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
            });
        }
    });
    (origin, task)
}

/// Where a browser test keeps its screenshots: `<target>/artifacts/<name>/`.
pub fn artifacts(name: &str) -> PathBuf {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo().join("target"), PathBuf::from);
    let dir = target.join("artifacts").join(name);
    std::fs::create_dir_all(&dir).expect("create the artifacts directory");
    dir
}

/// Runs `tests/browser/<script>` with `config` in `<VAR>`; its stdout, or a panic with its
/// output.
pub async fn run_driver(script: &str, variable: &str, config: &str, limit: Duration) -> String {
    try_run_driver(script, variable, config, limit)
        .await
        .unwrap_or_else(|failure| panic!("{failure}"))
}

/// Runs `tests/browser/<script>` with `config` in `<VAR>`; its stdout, or what it printed
/// when it failed or outran `limit`, for a test that adds what it knows of the failure (the
/// state of the stack behind the pages) before it panics.
pub async fn try_run_driver(
    script: &str,
    variable: &str,
    config: &str,
    limit: Duration,
) -> Result<String, String> {
    let run = tokio::process::Command::new("node")
        .arg(script)
        .current_dir(repo().join("tests/browser"))
        .env(variable, config)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(limit, run)
        .await
        .map_err(|_| format!("{script} did not finish within {limit:?}"))?
        .expect("node runs (Node 20 is required)");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!(
            "{script} failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
        ));
    }
    Ok(stdout)
}
