//! IMAP mailboxes against a real server: Dovecot, started by the test with a mailbox of its
//! own. The API watches a connected mailbox with IDLE: what waited is taken, new mail arrives
//! in seconds, a restart of the watcher neither loses nor repeats a message, nothing is
//! deleted from the mailbox, and wrong credentials show in Settings until they are fixed.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use supportdesk_test_support::dovecot::Dovecot;

use crate::helpers::{Owner, TestApp};
use crate::helpers_email::{plain, spawn_mail_app};

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
