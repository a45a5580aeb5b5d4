//! The email channel over HTTP: mail the MTA posts to `/inbound/email` becomes conversations
//! (with its HTML made safe, its history collapsed and its files stored), replies thread both
//! ways, and noise, loops, duplicates, bounces and forged senders are handled as the channel
//! promises.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{assert_problem, spawn_app, spawn_app_with};
use crate::helpers_email::{INBOUND_SECRET, plain, spawn_mail_app};

/// A message as Gmail writes one: text and HTML alternatives in a non-UTF-8 charset, an inline
/// image the HTML shows by `cid:`, a PDF attached, and the history quoted below.
fn gmail_like(message_id: &str) -> String {
    let png = supportdesk_test_support::files::png(32, 24);
    let png64 = base64_lines(&png);
    let pdf64 = base64_lines(supportdesk_test_support::files::PDF);
    format!(
        "From: =?ISO-8859-1?Q?Ren=E9e_M=FCller?= <Renee@Example.com>\n\
         To: Acme Support <support@acme.test>\n\
         Cc: Boss <boss@example.com>\n\
         Subject: =?ISO-8859-1?Q?Drucker_kaputt_=FCberall?=\n\
         Message-ID: <{message_id}>\n\
         Date: Tue, 24 Nov 2026 10:00:00 +0100\n\
         MIME-Version: 1.0\n\
         Content-Type: multipart/mixed; boundary=\"mixed\"\n\
         \n\
         --mixed\n\
         Content-Type: multipart/related; boundary=\"related\"\n\
         \n\
         --related\n\
         Content-Type: multipart/alternative; boundary=\"alt\"\n\
         \n\
         --alt\n\
         Content-Type: text/plain; charset=ISO-8859-1\n\
         Content-Transfer-Encoding: quoted-printable\n\
         \n\
         Der Drucker druckt nur noch Striche. Gr=FC=DFe\n\
         \n\
         On Mon, 23 Nov 2026 at 09:00, Acme Support <support@acme.test> wrote:\n\
         > How can we help?\n\
         --alt\n\
         Content-Type: text/html; charset=ISO-8859-1\n\
         Content-Transfer-Encoding: quoted-printable\n\
         \n\
         <div>Der Drucker druckt nur noch Striche. Gr=FC=DFe<img src=3D\"cid:shot@mail\"></div>\
         <script>alert(1)</script><a href=3D\"javascript:alert(2)\" onclick=3D\"x()\">hier</a>\n\
         --alt--\n\
         --related\n\
         Content-Type: image/png; name=\"shot.png\"\n\
         Content-Transfer-Encoding: base64\n\
         Content-ID: <shot@mail>\n\
         Content-Disposition: inline; filename=\"shot.png\"\n\
         \n\
         {png64}\n\
         --related--\n\
         --mixed\n\
         Content-Type: application/pdf; name=\"invoice.pdf\"\n\
         Content-Transfer-Encoding: base64\n\
         Content-Disposition: attachment; filename=\"invoice.pdf\"\n\
         \n\
         {pdf64}\n\
         --mixed--\n"
    )
}

fn base64_lines(bytes: &[u8]) -> String {
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    encoded
        .as_bytes()
        .chunks(76)
        .map(|line| String::from_utf8_lossy(line).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

fn id_of(value: &Value) -> String {
    value.as_str().expect("id").to_owned()
}

#[tokio::test]
async fn a_new_email_opens_a_conversation_with_its_text_html_and_files() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("mail-new").await;
    let to = app.inbound_address(&owner).await;
    assert!(
        to.starts_with("mail-new.") && to.ends_with("@desk.test"),
        "{to}"
    );

    let receipt = app.deliver(&gmail_like("g-1@mail.example.com"), &to).await;
    assert_eq!(receipt["outcome"], "added", "{receipt}");
    assert_eq!(receipt["opened"], true);
    let conversation_id = id_of(&receipt["conversationId"]);

    let token = &owner.workspace_token;
    let conversation = app
        .get_ok(&format!("/api/conversations/{conversation_id}"), token)
        .await;
    assert_eq!(conversation["channel"], "email", "{conversation}");
    assert_eq!(conversation["subject"], "Drucker kaputt überall");
    assert_eq!(conversation["contact"]["email"], "renee@example.com");
    assert_eq!(conversation["contact"]["name"], "Renée Müller");

    let messages = app.messages_of(token, &conversation_id).await;
    assert_eq!(messages.len(), 1);
    let message = &messages[0];
    assert_eq!(message["kind"], "incoming");
    assert_eq!(
        message["body"],
        "Der Drucker druckt nur noch Striche. Grüße"
    );
    let email = &message["email"];
    assert_eq!(email["from"]["address"], "renee@example.com");
    assert_eq!(email["cc"][0]["address"], "boss@example.com");
    assert!(
        email["quoted"]
            .as_str()
            .is_some_and(|q| q.contains("How can we help?")),
        "{email}"
    );
    let html = email["html"].as_str().expect("html");
    assert!(html.contains("Grüße"), "{html}");
    let image_id = message["attachments"][0]["id"].as_str().expect("id");
    assert!(
        html.contains(&format!("src=\"attachment:{image_id}\"")),
        "{html}"
    );
    for unsafe_part in ["<script", "javascript:", "onclick"] {
        assert!(!html.contains(unsafe_part), "{html}");
    }
    let files: Vec<&str> = message["attachments"]
        .as_array()
        .expect("attachments")
        .iter()
        .map(|a| a["name"].as_str().expect("name"))
        .collect();
    assert_eq!(files, ["shot.png", "invoice.pdf"], "{message}");
    let image = &message["attachments"][0];
    assert_eq!(image["contentType"], "image/png");
    assert!(image["thumbnailUrl"].is_string(), "{image}");

    // Recorded in the log, in order.
    let events = app.get_ok("/api/events?after=0&limit=100", token).await;
    let types: Vec<&str> = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["type"].as_str().expect("type"))
        .collect();
    let tail: Vec<&str> = types.iter().rev().take(3).rev().copied().collect();
    assert_eq!(
        tail,
        ["contact.created", "conversation.created", "message.created"]
    );
}

#[tokio::test]
async fn files_a_full_workspace_cannot_keep_are_named_in_the_message_and_not_left_stored() {
    let app = spawn_app_with(&[
        ("INBOUND_EMAIL_SECRET", INBOUND_SECRET),
        ("STORAGE_WORKSPACE_QUOTA_BYTES", "1"),
    ])
    .await;
    let owner = app.owner_with_workspace("mail-full").await;
    let to = app.inbound_address(&owner).await;

    let receipt = app
        .deliver(&gmail_like("full-1@mail.example.com"), &to)
        .await;
    assert_eq!(receipt["outcome"], "added", "{receipt}");
    let token = &owner.workspace_token;
    let messages = app
        .messages_of(token, &id_of(&receipt["conversationId"]))
        .await;
    let message = &messages[0];
    assert_eq!(message["attachments"], json!([]), "{message}");
    let body = message["body"].as_str().expect("body");
    for name in ["shot.png", "invoice.pdf"] {
        assert!(
            body.contains(&format!("{name}: the workspace's storage is full")),
            "{body}"
        );
    }
    // The inline image points nowhere rather than at a file that does not exist.
    let html = message["email"]["html"].as_str().expect("html");
    assert!(!html.contains("attachment:"), "{html}");
    // The original email is kept; neither file is.
    let stored = app.stored_objects();
    assert!(
        stored.iter().all(|key| !key.contains("/attachments/")),
        "{stored:?}"
    );
    assert!(stored.iter().any(|key| key.ends_with(".eml")), "{stored:?}");
}

#[tokio::test]
async fn replies_thread_both_ways_and_never_by_subject_alone() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("mail-thread").await;
    let token = &owner.workspace_token;
    let to = app.inbound_address(&owner).await;
    app.set_support_address(token, "Support@Acme.test").await;
    let first = app
        .deliver(
            &plain(
                "Carla <carla@example.com>",
                "c-1@example.com",
                "Login broken",
                "",
                "I cannot log in.",
            ),
            &to,
        )
        .await;
    let conversation_id = id_of(&first["conversationId"]);
    let number = app
        .get_ok(&format!("/api/conversations/{conversation_id}"), token)
        .await["number"]
        .as_i64()
        .expect("number");

    // The agent answers: queued as an email in the thread.
    let reply = app
        .json_ok(
            Method::POST,
            &format!("/api/conversations/{conversation_id}/messages"),
            &json!({ "body": "Try resetting your password." }),
            token,
            StatusCode::CREATED,
        )
        .await;
    let email = &reply["email"];
    assert_eq!(email["delivery"]["status"], "pending", "{reply}");
    assert_eq!(email["to"][0]["address"], "carla@example.com");
    assert_eq!(email["from"]["address"], "support@acme.test");
    assert_eq!(email["subject"], format!("Re: Login broken [#{number}]"));
    let queued: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM public.outbox WHERE kind = 'conversation_email'
          AND payload->>'messageId' = $1",
    )
    .bind(reply["id"].as_str().expect("id"))
    .fetch_one(&app.db)
    .await
    .expect("outbox");
    assert_eq!(queued, 1);
    let reply_id: Uuid = reply["id"].as_str().expect("id").parse().expect("uuid");
    let ours = format!("{}@desk.test", reply_id.simple());

    let same = |receipt: &Value| {
        assert_eq!(receipt["outcome"], "added", "{receipt}");
        assert_eq!(
            receipt["conversationId"],
            conversation_id.as_str(),
            "{receipt}"
        );
        assert_eq!(receipt["opened"], false, "{receipt}");
    };
    // By In-Reply-To.
    same(
        &app.deliver(
            &plain(
                "carla@example.com",
                "c-2@example.com",
                "Re: Login broken",
                &format!("In-Reply-To: <{ours}>\nReferences: <c-1@example.com> <{ours}>\n"),
                "Still broken.",
            ),
            &to,
        )
        .await,
    );
    // A client that dropped In-Reply-To still sends References.
    same(
        &app.deliver(
            &plain(
                "carla@example.com",
                "c-3@example.com",
                "Re: Login broken",
                "References: <c-1@example.com> <unknown@elsewhere>\n",
                "Any news?",
            ),
            &to,
        )
        .await,
    );
    // Only the reply token of the address it was sent to.
    same(
        &app.deliver(
            &plain(
                "carla@example.com",
                "c-4@example.com",
                "new words",
                "",
                "Hello again.",
            )
            .replace(
                "To: support@acme.test",
                &format!("To: support+{}@acme.test", reply_id.simple()),
            ),
            &to,
        )
        .await,
    );
    // Only the subject's reference, from the conversation's contact.
    same(
        &app.deliver(
            &plain(
                "carla@example.com",
                "c-5@example.com",
                &format!("Re: Login broken [#{number}]"),
                "",
                "And again.",
            ),
            &to,
        )
        .await,
    );
    // The same reference from someone else, and the same subject alone: new conversations.
    for (from, id, subject) in [
        (
            "mallory@example.net",
            "m-1@example.net",
            format!("Re: Login broken [#{number}]"),
        ),
        (
            "carla@example.com",
            "c-6@example.com",
            "Re: Login broken".to_owned(),
        ),
    ] {
        let receipt = app.deliver(&plain(from, id, &subject, "", "Hi"), &to).await;
        assert_eq!(receipt["opened"], true, "{receipt}");
        assert_ne!(receipt["conversationId"], conversation_id.as_str());
    }
    let messages = app.messages_of(token, &conversation_id).await;
    assert_eq!(messages.len(), 6, "{messages:?}");
}

#[tokio::test]
async fn duplicates_loops_and_automatic_mail_are_dropped() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("mail-noise").await;
    let token = &owner.workspace_token;
    let to = app.inbound_address(&owner).await;
    app.set_support_address(token, "support@acme.test").await;
    let raw = plain("dan@example.com", "d-1@example.com", "Hi", "", "Hello");
    assert_eq!(app.deliver(&raw, &to).await["outcome"], "added");
    assert_eq!(app.deliver(&raw, &to).await["outcome"], "duplicate");

    for (headers, from) in [
        ("Auto-Submitted: auto-replied\n", "dan@example.com"),
        ("Precedence: bulk\n", "news@example.com"),
        ("List-Id: <list.example.com>\n", "list@example.com"),
        ("", "support@acme.test"),
        ("", "mail-noise.x@desk.test"),
    ] {
        let id = format!("{}@example.com", Uuid::new_v4());
        let receipt = app
            .deliver(&plain(from, &id, "Out of office", headers, "Away"), &to)
            .await;
        assert_eq!(receipt["outcome"], "ignored", "{headers}{from}: {receipt}");
        assert!(receipt["reason"].is_string());
    }
    // Our own Message-ID come back.
    let ours = format!("{}@desk.test", Uuid::new_v4().simple());
    let receipt = app
        .deliver(&plain("dan@example.com", &ours, "Re: Hi", "", "loop"), &to)
        .await;
    assert_eq!(receipt["outcome"], "ignored", "{receipt}");

    let conversations = app.get_ok("/api/conversations?assignee=all", token).await;
    assert_eq!(conversations["conversations"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_bounce_marks_the_reply_it_returns_as_undelivered() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("mail-bounce").await;
    let token = &owner.workspace_token;
    let to = app.inbound_address(&owner).await;
    let first = app
        .deliver(
            &plain("gone@example.com", "b-1@example.com", "Help", "", "Hi"),
            &to,
        )
        .await;
    let conversation_id = id_of(&first["conversationId"]);
    let reply = app
        .json_ok(
            Method::POST,
            &format!("/api/conversations/{conversation_id}/messages"),
            &json!({ "body": "Hello!" }),
            token,
            StatusCode::CREATED,
        )
        .await;
    let reply_id: Uuid = reply["id"].as_str().unwrap().parse().unwrap();
    let bounce = format!(
        "From: Mail Delivery System <MAILER-DAEMON@mx.example.com>\n\
         To: {to}\nSubject: Undelivered Mail Returned to Sender\n\
         Message-ID: <bounce-1@mx.example.com>\nMIME-Version: 1.0\n\
         Content-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\n\n\
         --b\nContent-Type: text/plain\n\n<gone@example.com>: user unknown\n\
         --b\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; mx.example.com\n\n\
         Final-Recipient: rfc822; gone@example.com\nAction: failed\nStatus: 5.1.1\n\
         --b\nContent-Type: text/rfc822-headers\n\n\
         Message-ID: <{}@desk.test>\nSubject: Re: Help\n--b--\n",
        reply_id.simple()
    );
    let receipt = app.deliver(&bounce, &to).await;
    assert_eq!(receipt, json!({ "outcome": "bounce", "undelivered": 1 }));
    let messages = app.messages_of(token, &conversation_id).await;
    let delivery = &messages[1]["email"]["delivery"];
    assert_eq!(delivery["status"], "failed", "{delivery}");
    assert!(
        delivery["error"]
            .as_str()
            .is_some_and(|e| e.contains("user unknown")),
        "{delivery}"
    );
    assert_eq!(messages.len(), 2, "a bounce is not a message");
}

#[tokio::test]
async fn a_sender_failing_dmarc_is_flagged_and_kept_apart_from_the_known_contact() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("mail-dmarc").await;
    let token = &owner.workspace_token;
    let to = app.inbound_address(&owner).await;
    let known = app
        .start_conversation(token, "ceo@example.com", "Hello from us")
        .await;
    let forged = plain(
        "CEO <ceo@example.com>",
        "f-1@evil.example",
        "Wire the money",
        "Authentication-Results: mx.desk.test; spf=fail smtp.mailfrom=evil.example;\n \
         dkim=none; dmarc=fail (p=reject) header.from=example.com\n",
        "Urgent.",
    );
    let receipt = app.deliver(&forged, &to).await;
    let conversation = app
        .get_ok(
            &format!("/api/conversations/{}", id_of(&receipt["conversationId"])),
            token,
        )
        .await;
    assert_ne!(conversation["contact"]["id"], known["contact"]["id"]);
    assert_eq!(
        conversation["contact"]["email"],
        Value::Null,
        "{conversation}"
    );
    assert_eq!(conversation["contact"]["claimedEmail"], "ceo@example.com");
    let messages = app
        .messages_of(token, &id_of(&receipt["conversationId"]))
        .await;
    let email = &messages[0]["email"];
    assert_eq!(email["dmarcFailed"], true, "{email}");
    assert_eq!(email["senderChecks"]["dmarc"], "fail");
    assert_eq!(email["senderChecks"]["spf"], "fail");
}

#[tokio::test]
async fn a_resolved_conversation_reopens_when_the_customer_answers() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("mail-reopen").await;
    let token = &owner.workspace_token;
    let to = app.inbound_address(&owner).await;
    let first = app
        .deliver(
            &plain("eve@example.com", "e-1@example.com", "Q", "", "Question"),
            &to,
        )
        .await;
    let conversation_id = id_of(&first["conversationId"]);
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{conversation_id}/status"),
        &json!({ "status": "resolved" }),
        token,
        StatusCode::OK,
    )
    .await;
    let answer = plain(
        "eve@example.com",
        "e-2@example.com",
        "Re: Q",
        "In-Reply-To: <e-1@example.com>\n",
        "One more thing",
    );
    let receipt = app.deliver(&answer, &to).await;
    assert_eq!(receipt["conversationId"], conversation_id.as_str());
    let conversation = app
        .get_ok(&format!("/api/conversations/{conversation_id}"), token)
        .await;
    assert_eq!(conversation["status"], "open");
}

#[tokio::test]
async fn one_sender_opens_at_most_twenty_conversations_an_hour() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("mail-flood").await;
    let to = app.inbound_address(&owner).await;
    for n in 0..20 {
        let receipt = app
            .deliver(
                &plain(
                    "flood@example.com",
                    &format!("fl-{n}@example.com"),
                    "Spam",
                    "",
                    "x",
                ),
                &to,
            )
            .await;
        assert_eq!(receipt["outcome"], "added", "{n}: {receipt}");
    }
    let receipt = app
        .deliver(
            &plain("flood@example.com", "fl-20@example.com", "Spam", "", "x"),
            &to,
        )
        .await;
    assert_eq!(receipt["outcome"], "ignored", "{receipt}");
    // Another sender is not held back.
    let receipt = app
        .deliver(
            &plain("calm@example.com", "calm-1@example.com", "Hi", "", "x"),
            &to,
        )
        .await;
    assert_eq!(receipt["outcome"], "added", "{receipt}");
}

#[tokio::test]
async fn large_and_malformed_messages_are_taken_and_refusals_are_clear() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("mail-edge").await;
    let token = &owner.workspace_token;
    let to = app.inbound_address(&owner).await;

    // About 20 MB on the wire: a 14 MiB file, base64-encoded.
    let big = vec![0x5a_u8; 14 * 1024 * 1024];
    let mut data = b"%PDF-1.4\n".to_vec();
    data.extend_from_slice(&big);
    let raw = format!(
        "From: big@example.com\nTo: {to}\nSubject: Logs\nMessage-ID: <big-1@example.com>\n\
         MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"m\"\n\n\
         --m\nContent-Type: text/plain\n\nLogs attached.\n\
         --m\nContent-Type: application/pdf; name=\"logs.pdf\"\nContent-Transfer-Encoding: base64\n\
         Content-Disposition: attachment; filename=\"logs.pdf\"\n\n{}\n--m--\n",
        base64_lines(&data)
    );
    assert!(raw.len() > 19_000_000, "{}", raw.len());
    let receipt = app.deliver(&raw, &to).await;
    let messages = app
        .messages_of(token, &id_of(&receipt["conversationId"]))
        .await;
    assert_eq!(messages[0]["attachments"][0]["size"], data.len());

    // Broken MIME: a boundary that never comes, garbage headers. Taken, not a crash.
    let broken = "From: odd@example.com\nSubject: \u{1}\u{2}\nMessage-ID: <odd-1@example.com>\n\
                  Content-Type: multipart/mixed; boundary=\"never\"\n\nno parts here \u{0}\n";
    let receipt = app.deliver(broken, &to).await;
    assert_eq!(receipt["outcome"], "added", "{receipt}");

    // A program inside is not stored; the message says so.
    let exe = format!(
        "From: exe@example.com\nSubject: Tool\nMessage-ID: <exe-1@example.com>\nMIME-Version: 1.0\n\
         Content-Type: multipart/mixed; boundary=\"m\"\n\n--m\nContent-Type: text/plain\n\nRun this\n\
         --m\nContent-Type: image/png; name=\"cute.png\"\nContent-Transfer-Encoding: base64\n\n{}\n--m--\n",
        base64_lines(&supportdesk_test_support::files::elf())
    );
    let receipt = app.deliver(&exe, &to).await;
    let messages = app
        .messages_of(token, &id_of(&receipt["conversationId"]))
        .await;
    assert_eq!(messages[0]["attachments"], json!([]));
    assert!(
        messages[0]["body"]
            .as_str()
            .is_some_and(|b| b.contains("A file was not accepted: cute.png")),
        "{}",
        messages[0]
    );

    // Refusals.
    let no_sender = "Subject: x\nMessage-ID: <ns-1@example.com>\n\nbody\n";
    assert_problem(
        app.post_mail(no_sender.as_bytes(), Some(&to)).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "email_without_sender",
    )
    .await;
    let unknown = to.replacen('.', ".wrongtag", 1);
    assert_problem(
        app.post_mail(b"From: a@example.com\n\nhi\n", Some(&unknown))
            .await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    let wrong_type = app
        .client
        .post(app.url("/inbound/email"))
        .bearer_auth(INBOUND_SECRET)
        .header("Content-Type", "text/plain")
        .body("From: a@example.com\n\nhi\n")
        .send()
        .await
        .unwrap();
    assert_problem(
        wrong_type,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "invalid_email",
    )
    .await;
    for secret in [None, Some("wrong-secret")] {
        let mut request = app
            .client
            .post(app.url("/inbound/email"))
            .header("Content-Type", "message/rfc822")
            .header("X-Original-To", &to)
            .body("From: a@example.com\n\nhi\n");
        if let Some(secret) = secret {
            request = request.bearer_auth(secret);
        }
        assert_eq!(
            request.send().await.unwrap().status(),
            StatusCode::UNAUTHORIZED
        );
    }
    let too_big = vec![b'a'; 41 * 1024 * 1024];
    assert_eq!(
        app.post_mail(&too_big, Some(&to)).await.status(),
        StatusCode::PAYLOAD_TOO_LARGE
    );
}

#[tokio::test]
async fn without_a_secret_the_route_takes_no_mail() {
    let app = spawn_app().await;
    let response = app
        .client
        .post(app.url("/inbound/email"))
        .bearer_auth(INBOUND_SECRET)
        .header("Content-Type", "message/rfc822")
        .body("From: a@example.com\n\nhi\n")
        .send()
        .await
        .unwrap();
    assert_problem(response, StatusCode::NOT_FOUND, "inbound_email_disabled").await;
}

#[tokio::test]
async fn owners_set_the_support_address_and_agents_may_not() {
    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("mail-settings").await;
    let token = &owner.workspace_token;
    let settings = app.get_ok("/api/settings/email", token).await;
    assert_eq!(settings["address"], Value::Null);
    let set = app
        .json_ok(
            Method::PUT,
            "/api/settings/email",
            &json!({ "address": " Help@Acme.TEST " }),
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(set["address"], "help@acme.test");
    assert_eq!(set["inboundAddress"], settings["inboundAddress"]);
    // What a request leaves out stays.
    let kept = app
        .json_ok(
            Method::PUT,
            "/api/settings/email",
            &json!({}),
            token,
            StatusCode::OK,
        )
        .await;
    assert_eq!(kept["address"], "help@acme.test");
    for (body, field) in [
        (json!({ "address": "not an address" }), "address"),
        (json!({ "address": "x@desk.test" }), "address"),
    ] {
        let response = app
            .send(Method::PUT, "/api/settings/email", Some(&body), Some(token))
            .await;
        let problem = assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
        assert!(problem["errors"][field].is_array(), "{problem}");
    }
    let response = app
        .send(
            Method::PUT,
            "/api/settings/email",
            Some(&json!({ "address": "a@b.test", "imap": {} })),
            Some(token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let agent = app.member(&owner, "agent").await;
    let response = app
        .get("/api/settings/email", Some(&agent.workspace_token))
        .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        app.get_ok("/api/settings/email", token).await["address"],
        "help@acme.test"
    );
}

#[tokio::test]
async fn the_pipe_command_takes_a_message_from_standard_input() {
    use std::io::Write;
    use std::process::Stdio;

    let app = spawn_mail_app().await;
    let owner = app.owner_with_workspace("mail-pipe").await;
    let to = app.inbound_address(&owner).await;
    let storage = match &app.settings.storage.location {
        supportdesk_core::config::StorageLocation::Directory(dir) => {
            format!("file://{}", dir.display())
        }
        supportdesk_core::config::StorageLocation::S3(_) => unreachable!("a local test store"),
    };
    let run = |recipient: &str, raw: &str| {
        let mut child = crate::process::supportdesk(app.database_url())
            .env("REDIS_NAMESPACE", &app.settings.redis.namespace)
            .env("STORAGE_URL", &storage)
            .args(["mail", "receive", "--recipient", recipient])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("supportdesk");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(raw.replace('\n', "\r\n").as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let done = run(
        &to,
        &plain(
            "piped@example.com",
            "p-1@example.com",
            "Piped",
            "",
            "Through the pipe.",
        ),
    );
    assert_eq!(
        done.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let receipt: Value = serde_json::from_slice(&done.stdout).expect("a receipt on stdout");
    assert_eq!(receipt["outcome"], "added", "{receipt}");
    let messages = app
        .messages_of(&owner.workspace_token, &id_of(&receipt["conversationId"]))
        .await;
    assert_eq!(messages[0]["body"], "Through the pipe.");

    // No such address: EX_NOUSER, the MTA bounces. No sender: EX_DATAERR.
    let unknown = run(
        "nobody.0000000000@desk.test",
        &plain("a@example.com", "p-2@example.com", "x", "", "x"),
    );
    assert_eq!(unknown.status.code(), Some(67));
    let no_sender = run(&to, "Subject: x\nMessage-ID: <p-3@example.com>\n\nx\n");
    assert_eq!(no_sender.status.code(), Some(65));
}
