//! A deleted workspace's files go with it: the worker deletes every object under the
//! workspace's prefix, in batches, before dropping its data, and a worker killed half-way
//! finishes the job after a restart, leaving nothing behind. Another workspace's files stay.

use std::time::{Duration, Instant};

use futures::TryStreamExt;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use reqwest::Method;
use serde_json::{Value, json};
use supportdesk_core::storage::{self, Store};
use uuid::Uuid;

use crate::harness::{Stack, signal, stack_without_worker, wait_exit};

/// A workspace with one real upload (through the API) and `extra` more objects under its
/// prefix; its id and workspace token.
async fn workspace_with_files(
    stack: &Stack,
    store: &Store,
    slug: &str,
    extra: usize,
) -> (Uuid, String) {
    let (id, token) = stack.workspace(slug).await;
    let (status, conversation) = stack
        .call(
            Method::POST,
            "/api/conversations",
            Some(&token),
            Some(json!({"contact": {"email": "c@example.org"}, "body": "Hello"})),
        )
        .await;
    assert_eq!(status, 201, "{conversation}");
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(b"meeting notes".to_vec()).file_name("notes.txt"),
    );
    let response = stack
        .client
        .post(format!(
            "{}/api/conversations/{}/attachments",
            stack.api,
            conversation["id"].as_str().unwrap()
        ))
        .bearer_auth(&token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    for n in 0..extra {
        let path = Path::from(format!(
            "workspaces/{id}/attachments/{}/original",
            Uuid::new_v4()
        ));
        store
            .put(&path, PutPayload::from(format!("file {n}")))
            .await
            .unwrap();
    }
    (id, token)
}

async fn objects(store: &Store, workspace_id: Uuid) -> usize {
    let prefix = storage::workspace_prefix(workspace_id);
    let listed: Vec<_> = store.list(Some(&prefix)).try_collect().await.unwrap();
    listed.len()
}

async fn workspace_gone(stack: &Stack, id: Uuid) -> bool {
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM public.workspaces WHERE id = $1")
        .bind(id)
        .fetch_one(&stack.db)
        .await
        .unwrap();
    rows == 0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_workspaces_files_are_all_deleted_even_across_a_killed_worker() {
    // One object per delete request, so the deletion takes long enough to be interrupted.
    // A short claim: the killed worker's claim must lapse before the job can run again.
    let stack =
        stack_without_worker(&[("STORAGE_DELETE_BATCH", "1"), ("JOB_CLAIM_SECS", "3")]).await;
    let settings =
        supportdesk_core::config::Settings::load_from(None, Some(stack.env.clone())).unwrap();
    let store = storage::open(&settings.storage).unwrap();
    let (doomed, token) = workspace_with_files(&stack, &store, "doomed", 150).await;
    let (kept, _) = workspace_with_files(&stack, &store, "kept", 3).await;
    let before = objects(&store, doomed).await;
    assert_eq!(before, 151);
    // Watched with plain directory reads: cheap enough to look every millisecond without
    // taking the cores from the tests running beside this one.
    let supportdesk_core::config::StorageLocation::Directory(root) = &settings.storage.location
    else {
        panic!("a local store was expected");
    };
    let files = root.join(format!("workspaces/{doomed}"));
    let on_disk = || supportdesk_test_support::files::files_under(&files).len();

    let (deleted, body): (u16, Value) = stack
        .call(Method::DELETE, "/api/workspace", Some(&token), None)
        .await;
    assert_eq!(deleted, 202, "{body}");

    // The worker starts deleting; it is killed (SIGKILL) half-way.
    let mut worker = stack.worker_process(&[("STORAGE_DELETE_BATCH", "1")]);
    let deadline = Instant::now() + Duration::from_secs(30);
    let left_at_kill = loop {
        if on_disk() < before {
            signal(&worker, "-KILL");
            wait_exit(&mut worker, Duration::from_secs(5));
            break objects(&store, doomed).await;
        }
        assert!(Instant::now() < deadline, "the worker deleted nothing");
        tokio::time::sleep(Duration::from_millis(1)).await;
    };
    assert!(
        left_at_kill > 0,
        "the deletion finished before the worker could be killed"
    );
    assert!(
        !workspace_gone(&stack, doomed).await,
        "the row went before the files"
    );

    // Restarted, the worker finishes the job: no object left, the workspace gone.
    let _worker = stack.worker_process(&[]);
    let deadline = Instant::now() + Duration::from_secs(90);
    while !(objects(&store, doomed).await == 0 && workspace_gone(&stack, doomed).await) {
        assert!(
            Instant::now() < deadline,
            "{} objects left, workspace gone: {}",
            objects(&store, doomed).await,
            workspace_gone(&stack, doomed).await
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The other workspace's files are untouched.
    assert_eq!(objects(&store, kept).await, 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_no_message_took_are_discarded_after_a_day_and_sent_ones_stay() {
    let stack = stack_without_worker(&[]).await;
    let settings =
        supportdesk_core::config::Settings::load_from(None, Some(stack.env.clone())).unwrap();
    let store = storage::open(&settings.storage).unwrap();
    let (workspace, token) = workspace_with_files(&stack, &store, "sweep", 0).await;
    let (_, list) = stack
        .call(Method::GET, "/api/conversations", Some(&token), None)
        .await;
    let conversation = list["conversations"][0]["id"].as_str().unwrap().to_owned();
    let upload = |name: &'static str| {
        let form = reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(name.as_bytes().to_vec()).file_name(name),
        );
        stack
            .client
            .post(format!(
                "{}/api/conversations/{conversation}/attachments",
                stack.api
            ))
            .bearer_auth(&token)
            .multipart(form)
            .send()
    };
    let sent: Value = upload("sent.txt").await.unwrap().json().await.unwrap();
    let (status, _) = stack
        .call(
            Method::POST,
            &format!("/api/conversations/{conversation}/messages"),
            Some(&token),
            Some(json!({"body": "attached", "attachmentIds": [sent["id"]]})),
        )
        .await;
    assert_eq!(status, 201);
    let schema = format!("ws_{}", workspace.simple());
    // Every upload so far (the unsent one from the setup and the sent one) is two days old.
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE {schema}.attachments SET created_at = now() - interval '2 days'"
    )))
    .execute(&stack.db)
    .await
    .unwrap();
    let fresh = upload("fresh.txt").await.unwrap();
    assert_eq!(fresh.status(), 201);
    assert_eq!(objects(&store, workspace).await, 3);

    let discarded = supportdesk_worker::unsent_files::sweep_all(
        &stack.db,
        &store,
        supportdesk_worker::unsent_files::KEPT,
    )
    .await
    .unwrap();
    assert_eq!(discarded, 1, "only the old unsent upload goes");
    assert_eq!(objects(&store, workspace).await, 2);
    let left: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT name FROM {schema}.attachments ORDER BY name"
    )))
    .fetch_all(&stack.db)
    .await
    .unwrap();
    assert_eq!(left, ["fresh.txt", "sent.txt"]);
    let (status, usage) = stack
        .call(Method::GET, "/api/settings/storage", Some(&token), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(usage["files"], 2, "{usage}");
    assert_eq!(
        usage["usedBytes"],
        ("sent.txt".len() + "fresh.txt".len()) as i64,
        "{usage}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_workspaces_files_go_from_an_s3_store_too() {
    let s3 = supportdesk_test_support::s3_server::S3Server::start();
    let env = s3.env();
    let mut overrides: Vec<(&str, &str)> =
        env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    overrides.push(("STORAGE_DELETE_BATCH", "7"));
    let mut stack = stack_without_worker(&overrides).await;
    let settings =
        supportdesk_core::config::Settings::load_from(None, Some(stack.env.clone())).unwrap();
    let store = storage::open(&settings.storage).unwrap();
    let (doomed, token) = workspace_with_files(&stack, &store, "doomed-s3", 30).await;
    let (kept, _) = workspace_with_files(&stack, &store, "kept-s3", 2).await;
    assert_eq!(objects(&store, doomed).await, 31);
    let (deleted, _) = stack
        .call(Method::DELETE, "/api/workspace", Some(&token), None)
        .await;
    assert_eq!(deleted, 202);
    stack.start_worker().await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !(objects(&store, doomed).await == 0 && workspace_gone(&stack, doomed).await) {
        assert!(
            Instant::now() < deadline,
            "{} objects left",
            objects(&store, doomed).await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(objects(&store, kept).await, 3);
}
