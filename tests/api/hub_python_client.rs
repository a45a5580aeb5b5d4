//! The chat hub with the Python client `signalrcore` (PyPI, pinned in
//! `tests/hub/requirements.txt`): `tests/hub/python_client.py` connects with the client's
//! defaults (its own negotiate, version 0, and the token from `access_token_factory`, which it
//! sends as `Authorization: Bearer`), calls `JoinConversation`, `Typing`, `SendMessage` and
//! `SendNote`, hears `MessageCreated`, and checks a void method's Completion and an error, once
//! with the JSON hub protocol and once with MessagePack. `.ci/test` makes the virtual
//! environment (`ensure_python_venv`) and exports `HUB_PYTHON`, its interpreter.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;

use crate::helpers::spawn_app;
use crate::helpers_conversations::id;

/// The virtual environment's interpreter: `HUB_PYTHON`, or where `.ci/test` makes it.
fn python() -> PathBuf {
    let python = std::env::var_os("HUB_PYTHON").map_or_else(
        || {
            let home = std::env::var_os("HOME").expect("HOME is set");
            Path::new(&home).join(".cache/supportdesk-venv/bin/python")
        },
        PathBuf::from,
    );
    assert!(
        python.is_file(),
        "{} is missing: make the virtual environment with tests/hub/requirements.txt \
         (.ci/test does it: ensure_python_venv in .ci/services.sh)",
        python.display()
    );
    python
}

async fn python_client_scenario(protocol: &str) {
    let python = python();
    let app = spawn_app().await;
    let owner = app
        .owner_with_workspace(&format!("python-{protocol}"))
        .await;
    let conversation = app
        .start_conversation(&owner.workspace_token, "ivy@example.org", "Hi there")
        .await;
    let config = json!({
        "api": app.address,
        "token": owner.workspace_token,
        "conversationId": id(&conversation),
        "protocol": protocol,
    });
    let run = tokio::process::Command::new(python)
        .arg("python_client.py")
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hub"))
        .env("HUB_TEST_CONFIG", config.to_string())
        .env("PYTHONUNBUFFERED", "1")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the Python client finished within a minute")
        .expect("the virtual environment's python runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("all passed"),
        "the Python client ({protocol}) failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_signalrcore_client_talks_to_the_hub_with_json() {
    python_client_scenario("json").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_signalrcore_client_talks_to_the_hub_with_messagepack() {
    python_client_scenario("messagepack").await;
}
