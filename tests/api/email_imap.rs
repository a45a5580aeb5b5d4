//! IMAP mailboxes against a real server: Dovecot, started by the test with a mailbox of its
//! own. The API watches a connected mailbox with IDLE: what waited is taken, new mail arrives
//! in seconds, a restart of the watcher neither loses nor repeats a message, nothing is
//! deleted from the mailbox, wrong credentials show in Settings until they are fixed, and a
//! process killed while taking a mailbox loses and repeats nothing: another takes over.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use supportdesk_test_support::database::TestDatabase;
use supportdesk_test_support::dovecot::Dovecot;
use supportdesk_test_support::process::KillOnDrop;
use supportdesk_test_support::{free_port, test_env};

use crate::helpers::{Owner, TestApp};
use crate::helpers_email::{plain, spawn_mail_app};
use crate::process::wait_healthy;

const USER: &str = "support@acme.test";
const PASSWORD: &str = "app-password-0123";

fn imap(server: &Dovecot, password: Option<&str>) -> Value {
    let mut imap = json!({
        "host": "127.0.0.1", "port": server.port, "tls": false, "user": USER,
    });
    if let Some(password) = password {
        imap["password"] = json!(password);
    }
    imap
}

/// Waits until `check` holds for the email settings; the settings.
async fn settings_until(app: &TestApp, owner: &Owner, check: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let settings = app
            .get_ok("/api/settings/email", &owner.workspace_token)
            .await;
        if check(&settings) {
            return settings;
        }
        assert!(Instant::now() < deadline, "settings stayed {settings}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The subjects of the workspace's conversations, once there are `n` of them.
async fn conversations(app: &TestApp, owner: &Owner, n: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let list = app
            .get_ok(
                "/api/conversations?assignee=all&limit=100",
                &owner.workspace_token,
            )
            .await;
        let subjects: Vec<String> = list["conversations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["subject"].as_str().unwrap_or("").to_owned())
            .collect();
        if subjects.len() >= n {
            return subjects;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {n} conversations: {subjects:?}",
            subjects.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn mail(n: u32) -> Vec<u8> {
    plain(
        &format!("customer{n}@example.com"),
        &format!("imap-{n}@example.com"),
        &format!("Question {n}"),
        "",
        &format!("Message number {n}."),
    )
    .replace('\n', "\r\n")
    .into_bytes()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mailbox_is_watched_with_idle_and_nothing_is_lost_repeated_or_deleted() {
    let server = Dovecot::start(USER, PASSWORD);
    for n in 1..=3 {
        server.deliver(&mail(n));
    }
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("imap-watch").await;
    let set = app
        .json_ok(
            Method::PUT,
            "/api/settings/email",
            &json!({ "imap": imap(&server, Some(PASSWORD)) }),
            &owner.workspace_token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(set["imap"]["user"], USER);
    assert!(set["imap"].get("password").is_none(), "{set}");

    // What waited is taken; the mailbox reports connected.
    let mut subjects = conversations(&app, &owner, 3).await;
    subjects.sort();
    assert_eq!(subjects, ["Question 1", "Question 2", "Question 3"]);
    settings_until(&app, &owner, |s| s["imap"]["status"] == "connected").await;

    // New mail arrives while the watcher IDLEs.
    server.deliver(&mail(4));
    conversations(&app, &owner, 4).await;

    // Settings saved again (the same server and folder): the watcher starts over from where
    // it stood, so nothing is taken twice.
    app.json_ok(
        Method::PUT,
        "/api/settings/email",
        &json!({ "imap": imap(&server, None) }),
        &owner.workspace_token,
        StatusCode::OK,
    )
    .await;
    server.deliver(&mail(5));
    let subjects = conversations(&app, &owner, 5).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let again = conversations(&app, &owner, 5).await;
    assert_eq!(
        again.len(),
        5,
        "a message was taken twice: {again:?} (before {subjects:?})"
    );
    assert_eq!(server.count(), 5, "the mailbox keeps its mail");

    // A watcher stopped between taking a message and recording its UID (a crash) takes it
    // again: as if every record were lost, the whole folder comes again, and each message is
    // a duplicate by its Message-ID.
    sqlx::query("UPDATE public.email_mailboxes SET last_uid = 0")
        .execute(&app.db)
        .await
        .unwrap();
    app.json_ok(
        Method::PUT,
        "/api/settings/email",
        &json!({ "imap": imap(&server, None) }),
        &owner.workspace_token,
        StatusCode::OK,
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let last: i64 = sqlx::query_scalar("SELECT last_uid FROM public.email_mailboxes")
            .fetch_one(&app.db)
            .await
            .unwrap();
        if last == 5 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the folder was not taken again: {last}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        conversations(&app, &owner, 5).await.len(),
        5,
        "a message taken twice"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_credentials_show_in_settings_until_they_are_fixed() {
    let server = Dovecot::start(USER, PASSWORD);
    server.deliver(&mail(1));
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("imap-login").await;
    app.json_ok(
        Method::PUT,
        "/api/settings/email",
        &json!({ "imap": imap(&server, Some("not-the-password")) }),
        &owner.workspace_token,
        StatusCode::OK,
    )
    .await;
    let failing = settings_until(&app, &owner, |s| s["imap"]["status"] == "failing").await;
    let error = failing["imap"]["lastError"].as_str().unwrap_or("");
    assert!(error.contains("login"), "{failing}");
    assert!(
        !error.contains("not-the-password"),
        "a password in an error: {error}"
    );
    // The Owner is emailed once for this failure, however often it is tried again.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let alerts: Vec<Value> = sqlx::query_scalar(
        "SELECT payload FROM public.outbox WHERE kind = 'mailbox_failing_email'",
    )
    .fetch_all(&app.db)
    .await
    .unwrap();
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0]["userId"], owner.user_id.to_string());

    app.json_ok(
        Method::PUT,
        "/api/settings/email",
        &json!({ "imap": imap(&server, Some(PASSWORD)) }),
        &owner.workspace_token,
        StatusCode::OK,
    )
    .await;
    settings_until(&app, &owner, |s| s["imap"]["status"] == "connected").await;
    assert_eq!(conversations(&app, &owner, 1).await, ["Question 1"]);

    // The password is never shown, and sealed at rest.
    let stored: Vec<u8> = sqlx::query_scalar("SELECT password_sealed FROM public.email_mailboxes")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert!(
        !stored
            .windows(PASSWORD.len())
            .any(|w| w == PASSWORD.as_bytes())
    );

    // A first connection needs a password; bad fields are named; null disconnects.
    let other = app.owner_with_workspace("imap-bad").await;
    for (body, field) in [
        (json!({ "imap": imap(&server, None) }), "imap.password"),
        (
            json!({ "imap": {"host": "", "port": 0, "tls": true, "user": ""} }),
            "imap.host",
        ),
    ] {
        let response = app
            .send(
                Method::PUT,
                "/api/settings/email",
                Some(&body),
                Some(&other.workspace_token),
            )
            .await;
        let problem: Value = response.json().await.unwrap();
        assert!(problem["errors"][field].is_array(), "{problem}");
    }
    let cleared = app
        .json_ok(
            Method::PUT,
            "/api/settings/email",
            &json!({ "imap": null }),
            &owner.workspace_token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(cleared["imap"], Value::Null);
}

/// An API process over `database_url` with the tests' settings, serving on `port`: one that
/// can be killed.
fn api_process(database_url: &str, port: u16) -> KillOnDrop {
    Command::new(env!("CARGO_BIN_EXE_supportdesk"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(test_env(database_url, &[]))
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(KillOnDrop)
        .expect("start the API")
}

/// (messages, distinct Message-IDs, conversations) taken from the mailbox so far.
async fn taken(db: &sqlx::PgPool, schema: &str) -> (i64, i64, i64) {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT count(*), count(DISTINCT e.rfc_message_id), count(DISTINCT e.conversation_id)
           FROM {schema}.email_messages e"
    )))
    .fetch_one(db)
    .await
    .expect("count")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_killed_mid_fetch_loses_and_repeats_nothing() {
    const TOTAL: i64 = 600;
    let server = Dovecot::start(USER, PASSWORD);
    for n in 1..=TOTAL {
        server.deliver(&mail(u32::try_from(n).expect("small")));
    }
    let database = TestDatabase::migrated().await;
    let db = database.pool().await;
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut first = api_process(&database.url, port);
    wait_healthy(&base).await;

    // An Owner connects the mailbox through the first process, which starts taking it.
    let client = reqwest::Client::new();
    let call = async |method: Method, path: &str, token: Option<&str>, body: Value| -> Value {
        let mut request = client.request(method, format!("{base}{path}")).json(&body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.expect("request");
        assert!(
            response.status().is_success(),
            "{path}: {}",
            response.status()
        );
        response.json().await.expect("json")
    };
    let user = call(
        Method::POST,
        "/auth/register",
        None,
        json!({"email": "owner@acme.test", "password": "Correct-Horse-9", "fullName": "Olivia"}),
    )
    .await;
    let user = user["token"].as_str().expect("token").to_owned();
    let workspace = call(
        Method::POST,
        "/workspaces",
        Some(&user),
        json!({"name": "Acme", "slug": "imap-kill"}),
    )
    .await;
    let workspace_id = workspace["id"].as_str().expect("id").to_owned();
    let selected = call(
        Method::POST,
        &format!("/workspaces/{workspace_id}/select"),
        Some(&user),
        json!({}),
    )
    .await;
    let token = selected["token"].as_str().expect("token").to_owned();
    call(
        Method::PUT,
        "/api/settings/email",
        Some(&token),
        json!({ "imap": imap(&server, Some(PASSWORD)) }),
    )
    .await;
    let (schema,): (String,) =
        sqlx::query_as("SELECT schema_name FROM public.workspaces WHERE id = $1::uuid")
            .bind(&workspace_id)
            .fetch_one(&db)
            .await
            .expect("schema");

    // Killed (SIGKILL: no drain, no lease given back) while it is taking the mailbox.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (messages, _, _) = taken(&db, &schema).await;
        if messages >= 20 {
            break;
        }
        assert!(Instant::now() < deadline, "nothing taken: {}", server.log());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    first.kill().expect("kill");
    first.wait().expect("reaped");
    let (at_kill, _, _) = taken(&db, &schema).await;
    assert!(
        at_kill < TOTAL,
        "the process finished before it was killed ({at_kill} of {TOTAL}): not a mid-fetch kill"
    );

    // Another process takes the mailbox over once the dead one's lease lapses, and takes the
    // rest: every message once.
    let second_port = free_port();
    let _second = api_process(&database.url, second_port);
    wait_healthy(&format!("http://127.0.0.1:{second_port}")).await;
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let (messages, _, _) = taken(&db, &schema).await;
        if messages >= TOTAL {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{messages} of {TOTAL} taken after the restart (killed at {at_kill})"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        taken(&db, &schema).await,
        (TOTAL, TOTAL, TOTAL),
        "killed at {at_kill}"
    );
    let last_uid: i64 = sqlx::query_scalar("SELECT last_uid FROM public.email_mailboxes")
        .fetch_one(&db)
        .await
        .expect("last uid");
    assert_eq!(last_uid, TOTAL);
    assert_eq!(
        server.count(),
        usize::try_from(TOTAL).expect("small"),
        "nothing deleted"
    );
}
