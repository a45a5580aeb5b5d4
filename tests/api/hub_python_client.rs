//! The chat hub with the Python client `signalrcore` (PyPI, pinned in
//! `tests/hub/requirements.txt`): `tests/hub/python_client.py` connects with the client's
//! defaults (its own negotiate, version 0, and the token from `access_token_factory`, which it
//! sends as `Authorization: Bearer`), calls `JoinConversation`, `Typing`, `SendMessage` and
//! `SendNote`, hears `MessageCreated`, and checks a void method's Completion and an error, once
//! with the JSON hub protocol and once with MessagePack. `.ci/test` makes the virtual
//! environment (`ensure_python_venv`) and exports `HUB_PYTHON`, its interpreter.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use crate::helpers::spawn_app;
use crate::helpers_conversations::id;
use crate::helpers_hub::run_client_script;

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
    run_client_script(
        python.as_os_str(),
        "python_client.py",
        &config,
        Duration::from_secs(60),
        &format!("the Python client ({protocol})"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_signalrcore_client_talks_to_the_hub_with_json() {
    python_client_scenario("json").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_signalrcore_client_talks_to_the_hub_with_messagepack() {
    python_client_scenario("messagepack").await;
}
