//! The sending side of the email channel over HTTP: an Owner's own SMTP server in Settings ->
//! Email (checked, its password write-only and sealed at rest, the test email queued), and the
//! recipients an agent chooses for a reply by email (checked, refused where nothing is
//! emailed, and a refusal changes nothing).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::assert_problem;
use crate::helpers_email::spawn_mail_app;

fn server(password: Option<&str>) -> Value {
    let mut server = json!({"host": " SMTP.Example.com ", "port": 587, "tls": true,
                            "user": "mailer@acme.test"});
    if let Some(password) = password {
        server["password"] = json!(password);
    }
    server
}

#[tokio::test]
async fn an_owners_smtp_server_is_checked_and_its_password_never_leaves() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("smtp-settings").await;
    let token = &owner.workspace_token;

    // From needs the support address; a new user needs its password; bad fields say which.
    for (body, field) in [
        (json!({"smtp": server(Some("app-pass-1"))}), "smtp"),
        (
            json!({"address": "help@acme.test", "smtp": server(None)}),
            "smtp.password",
        ),
        (
            json!({"address": "help@acme.test",
                   "smtp": {"host": "bad host!", "port": 0, "tls": true}}),
            "smtp.host",
        ),
        (
            json!({"address": "help@acme.test",
                   "smtp": {"host": "smtp.example.com", "port": 70000, "tls": true}}),
            "smtp.port",
        ),
        (
            json!({"address": "help@acme.test",
                   "smtp": {"host": "smtp.example.com", "port": 25, "tls": false,
                            "password": "no-user"}}),
            "smtp.password",
        ),
    ] {
        let response = app
            .send(Method::PUT, "/api/settings/email", Some(&body), Some(token))
            .await;
        let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert!(problem["errors"][field].is_array(), "{body}: {problem}");
    }
    // Nothing of the refused requests stuck.
    let settings = app.get_ok("/api/settings/email", token).await;
    assert_eq!(settings["address"], Value::Null);
    assert_eq!(settings["smtp"], Value::Null);

    let set = app
        .json_ok(
            Method::PUT,
            "/api/settings/email",
            &json!({"address": "help@acme.test", "smtp": server(Some("app-pass-1"))}),
            token,
            StatusCode::OK,
        )
        .await;
    let smtp = &set["smtp"];
    assert_eq!(smtp["host"], "smtp.example.com");
    assert_eq!(smtp["port"], 587);
    assert_eq!(smtp["user"], "mailer@acme.test");
    assert_eq!(smtp["status"], "untested");
    assert!(smtp.get("password").is_none(), "{smtp}");
    assert!(!set.to_string().contains("app-pass-1"));

    // Sealed at rest: the row holds no trace of the password.
    let (schema,): (String,) =
        sqlx::query_as("SELECT schema_name FROM public.workspaces WHERE id = $1")
            .bind(owner.workspace_id)
            .fetch_one(&app.db)
            .await
            .expect("schema");
    let (sealed,): (Vec<u8>,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT smtp_password_sealed FROM {schema}.email_settings"
    )))
    .fetch_one(&app.db)
    .await
    .expect("sealed password");
    assert!(!sealed.windows(10).any(|w| w == b"app-pass-1"));

    // Left out, the password is kept for the same server and user (TLS may change).
    let mut same_user = server(None);
    same_user["tls"] = json!(false);
    let kept = app
        .json_ok(
            Method::PUT,
            "/api/settings/email",
            &json!({"smtp": same_user}),
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(kept["smtp"]["tls"], false);
    let (after,): (Vec<u8>,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT smtp_password_sealed FROM {schema}.email_settings"
    )))
    .fetch_one(&app.db)
    .await
    .expect("sealed password");
    assert_eq!(after, sealed);

    // Another server or port: the stored password does not follow it.
    let mut elsewhere = server(None);
    elsewhere["port"] = json!(2525);
    let response = app
        .send(
            Method::PUT,
            "/api/settings/email",
            Some(&json!({"smtp": elsewhere})),
            Some(token),
        )
        .await;
    let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    assert!(problem["errors"]["smtp.password"].is_array(), "{problem}");
    assert_eq!(
        app.get_ok("/api/settings/email", token).await["smtp"]["port"],
        587
    );

    // So does a mailbox's: connected with a password, then pointed elsewhere without one.
    let imap = json!({"host": "imap.example.com", "port": 993, "tls": true,
                      "user": "help@acme.test", "password": "imap-pass-1"});
    app.json_ok(
        Method::PUT,
        "/api/settings/email",
        &json!({"imap": imap}),
        token,
        StatusCode::OK,
    )
    .await;
    let response = app
        .send(
            Method::PUT,
            "/api/settings/email",
            Some(
                &json!({"imap": {"host": "imap.attacker.example", "port": 993, "tls": true,
                                  "user": "help@acme.test"}}),
            ),
            Some(token),
        )
        .await;
    let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    assert!(problem["errors"]["imap.password"].is_array(), "{problem}");
    assert_eq!(
        app.get_ok("/api/settings/email", token).await["imap"]["host"],
        "imap.example.com"
    );

    // The test email is queued for the Owner, through the workspace's server.
    let response = app
        .send(Method::POST, "/api/settings/email/test", None, Some(token))
        .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let queued: Value = response.json().await.expect("json");
    assert_eq!(queued["via"], "workspace");
    assert!(queued["to"].as_str().is_some_and(|to| to.contains('@')));
    assert_eq!(
        app.get_ok("/api/settings/email", token).await["smtp"]["status"],
        "testing"
    );
    let (queued_tests,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM public.outbox WHERE kind = 'smtp_test_email'
            AND payload->>'workspaceId' = $1",
    )
    .bind(owner.workspace_id.to_string())
    .fetch_one(&app.db)
    .await
    .expect("outbox");
    assert_eq!(queued_tests, 1);

    // Agents may neither see nor test it; null forgets it.
    let agent = app.member(&owner, "agent").await;
    let response = app
        .send(
            Method::POST,
            "/api/settings/email/test",
            None,
            Some(&agent.workspace_token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let forgotten = app
        .json_ok(
            Method::PUT,
            "/api/settings/email",
            &json!({"smtp": null}),
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(forgotten["smtp"], Value::Null);
    assert_eq!(forgotten["address"], "help@acme.test");
}

#[tokio::test]
async fn an_agent_chooses_the_recipients_of_a_reply_by_email_and_nowhere_else() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("smtp-recipients").await;
    let token = &owner.workspace_token;
    app.set_support_address(token, "help@acme.test").await;
    let inbound = app.inbound_address(&owner).await;
    let receipt = app
        .deliver(
            "From: Carla <carla@example.com>\nTo: help@acme.test\nCc: Boss <boss@example.com>\n\
             Subject: Refund\nMessage-ID: <refund-1@example.com>\n\nPlease refund me.\n",
            &inbound,
        )
        .await;
    let conversation = receipt["conversationId"].as_str().expect("id").to_owned();
    let messages = format!("/api/conversations/{conversation}/messages");

    // Bad recipients: a clear 400, and no reply is added.
    for (body, field) in [
        (json!({"body": "x", "to": []}), "to"),
        (json!({"body": "x", "to": ["not an address"]}), "to"),
        (json!({"body": "x", "cc": ["ok@example.com", "bad@"]}), "cc"),
        (
            json!({"body": "x", "cc": (0..21).map(|i| format!("p{i}@example.com")).collect::<Vec<_>>()}),
            "cc",
        ),
    ] {
        let response = app
            .send(Method::POST, &messages, Some(&body), Some(token))
            .await;
        let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert!(problem["errors"][field].is_array(), "{body}: {problem}");
    }
    // A note is never emailed.
    let response = app
        .send(
            Method::POST,
            &format!("/api/conversations/{conversation}/notes"),
            Some(&json!({"body": "internal", "to": ["carla@example.com"]})),
            Some(token),
        )
        .await;
    assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    assert_eq!(app.messages_of(token, &conversation).await.len(), 1);

    // Left out, the thread's; chosen, the agent's (a known address keeps its name).
    let kept = app
        .json_ok(
            Method::POST,
            &messages,
            &json!({"body": "On it."}),
            token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(kept["email"]["to"][0]["address"], "carla@example.com");
    assert_eq!(kept["email"]["cc"][0]["address"], "boss@example.com");
    let chosen = app
        .json_ok(
            Method::POST,
            &messages,
            &json!({"body": "Refunded.", "to": ["Boss@Example.com"], "cc": []}),
            token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(
        chosen["email"]["to"],
        json!([{"address": "boss@example.com", "name": "Boss"}])
    );
    assert_eq!(chosen["email"]["cc"], json!([]));
    let listed = app.messages_of(token, &conversation).await;
    let last = listed.last().expect("the reply");
    assert_eq!(last["email"]["to"], chosen["email"]["to"]);

    // The workspace's own addresses are never recipients.
    let response = app
        .send(
            Method::POST,
            &messages,
            Some(&json!({"body": "x", "to": ["help@acme.test"]})),
            Some(token),
        )
        .await;
    assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    let own = app
        .json_ok(
            Method::POST,
            &messages,
            &json!({"body": "Copying the team.", "cc": ["help+x@acme.test", inbound, "team@example.com"]}),
            token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(
        own["email"]["cc"],
        json!([{"address": "team@example.com", "name": null}])
    );

    // A chat conversation has no recipients to choose.
    let chat = app
        .json_ok(
            Method::POST,
            "/api/conversations",
            &json!({"contact": {"email": "dan@example.com"}, "body": "Phone call notes"}),
            token,
            StatusCode::CREATED,
        )
        .await;
    let chat_id = chat["id"].as_str().expect("id");
    let response = app
        .send(
            Method::POST,
            &format!("/api/conversations/{chat_id}/messages"),
            Some(&json!({"body": "hi", "to": ["dan@example.com"]})),
            Some(token),
        )
        .await;
    assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    assert_eq!(app.messages_of(token, chat_id).await.len(), 1);
}
