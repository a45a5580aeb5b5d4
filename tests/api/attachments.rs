//! Attachments through the real router: uploads by agents and visitors, files on replies,
//! notes and visitors' messages, signed links and how files are served, and every refusal
//! (size, quota, rate, disguised programs, links expired or for another workspace, a note's
//! file asked for by a visitor), each leaving nothing behind.

use reqwest::StatusCode;
use serde_json::{Value, json};
use supportdesk::attachments::links::LinkKey;
use supportdesk_core::config::SigningSecret;
use supportdesk_core::storage::Variant;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use uuid::Uuid;

use crate::helpers::{JWT_SECRET, Owner, TestApp, assert_problem, spawn_app, spawn_app_with};
use crate::helpers_attachments::{PDF, attachment_ids, elf, form, has_exif, jpeg_with_gps, png};
use crate::helpers_widget::{SITE, Visitor};

/// A workspace, a visitor who wrote in, and their conversation's id.
async fn chat(app: &TestApp, slug: &str) -> (Owner, Visitor, String) {
    let owner = app.owner_with_workspace(slug).await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    let conversation = app.visitor_said(&visitor, "My order page crashes").await;
    (owner, visitor, conversation.to_string())
}

fn link_key() -> LinkKey {
    LinkKey::derive(&SigningSecret::parse(JWT_SECRET.to_owned()).unwrap())
}

fn header<'a>(response: &'a reqwest::Response, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

#[tokio::test]
async fn an_agents_screenshot_reaches_the_visitor_with_links_that_open_it() {
    let app = spawn_app().await;
    let (owner, visitor, conversation) = chat(&app, "files-reply").await;
    let token = &owner.workspace_token;

    let uploaded = app
        .agent_uploaded(token, &conversation, "C:\\shots\\crash.png", png(800, 600))
        .await;
    assert_eq!(uploaded["name"], "crash.png");
    assert_eq!(uploaded["contentType"], "image/png");
    assert_eq!(
        (uploaded["width"].as_i64(), uploaded["height"].as_i64()),
        (Some(800), Some(600))
    );
    assert_eq!(uploaded["hasThumbnail"], true);
    let expires = OffsetDateTime::parse(uploaded["expiresAt"].as_str().unwrap(), &Rfc3339).unwrap();
    let lifetime = expires - OffsetDateTime::now_utc();
    assert!(lifetime <= time::Duration::minutes(5) && lifetime > time::Duration::minutes(4));

    // A reply may be the file alone.
    let reply = app
        .json_ok(
            reqwest::Method::POST,
            &format!("/api/conversations/{conversation}/messages"),
            &json!({ "body": "", "attachmentIds": [uploaded["id"]] }),
            token,
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(reply["body"], "");
    assert_eq!(
        attachment_ids(&reply),
        vec![uploaded["id"].as_str().unwrap().parse::<Uuid>().unwrap()]
    );
    assert!(
        reply["attachments"][0]["url"]
            .as_str()
            .unwrap()
            .starts_with("/files/")
    );

    // The thread and the visitor's widget both show it, with links.
    let thread = app
        .get_ok(
            &format!("/api/conversations/{conversation}/messages"),
            token,
        )
        .await;
    let shown = &thread["messages"][1]["attachments"][0];
    assert_eq!(shown["id"], uploaded["id"]);
    let seen = app.visitor_conversation(&visitor).await;
    let file = &seen["messages"][1]["attachments"][0];
    assert_eq!(file["name"], "crash.png");

    // The visitor opens the thumbnail and the image: no bearer token, shown inline, safe.
    let thumb = app.open_link(file["thumbnailUrl"].as_str().unwrap()).await;
    assert_eq!(thumb.status(), StatusCode::OK);
    assert_eq!(header(&thumb, "content-type"), "image/jpeg");
    let image = app.open_link(file["url"].as_str().unwrap()).await;
    assert_eq!(image.status(), StatusCode::OK);
    assert_eq!(header(&image, "content-type"), "image/png");
    assert!(header(&image, "content-disposition").starts_with("inline; filename=\"crash.png\""));
    assert_eq!(header(&image, "x-content-type-options"), "nosniff");
    assert_eq!(header(&image, "content-security-policy"), "sandbox");
    assert_eq!(
        image.bytes().await.unwrap().as_ref(),
        png(800, 600).as_slice()
    );

    // A fresh link on request, for agents and for the visitor.
    let again = app
        .get_ok(
            &format!(
                "/api/conversations/{conversation}/attachments/{}",
                uploaded["id"].as_str().unwrap()
            ),
            token,
        )
        .await;
    assert_eq!(again["id"], uploaded["id"]);
    let theirs = app
        .get_ok(
            &format!(
                "/widget/v1/attachments/{}",
                uploaded["id"].as_str().unwrap()
            ),
            &visitor.token,
        )
        .await;
    assert!(theirs["url"].is_string());

    // The event log keeps the file's facts, without links that would expire in it.
    let events = app.get_ok("/api/events?after=0", token).await;
    let created = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|e| e["type"] == "message.created")
        .unwrap()
        .clone();
    let logged = &created["data"]["attachments"][0];
    assert_eq!(logged["id"], uploaded["id"]);
    assert_eq!(logged["contentType"], "image/png");
    assert_eq!(logged["size"], uploaded["size"]);
    assert!(logged.get("url").is_none(), "{logged}");

    // Storage use counts it.
    let storage = app.get_ok("/api/settings/storage", token).await;
    assert_eq!(storage["files"], 1);
    assert_eq!(storage["usedBytes"], uploaded["size"]);
    assert_eq!(storage["quotaBytes"], 10_000_000_000_i64);
}

#[tokio::test]
async fn a_visitors_pdf_and_photo_reach_the_agent_and_the_photo_loses_its_location() {
    let app = spawn_app().await;
    let (owner, visitor, conversation) = chat(&app, "files-visitor").await;
    let pdf = app
        .visitor_uploaded(&visitor, "invoice.pdf", PDF.to_vec())
        .await;
    assert_eq!(pdf["contentType"], "application/pdf");
    assert_eq!(pdf["hasThumbnail"], false);
    let photo = app
        .visitor_uploaded(&visitor, "IMG_0001.jpg", jpeg_with_gps(400, 300))
        .await;
    let response = app
        .send(
            reqwest::Method::POST,
            "/widget/v1/messages",
            Some(&json!({ "body": "Here", "attachmentIds": [pdf["id"], photo["id"]] })),
            Some(&visitor.token),
        )
        .await;
    let posted: Value = response.json().await.unwrap();
    assert_eq!(posted["conversationId"], conversation.as_str(), "{posted}");
    assert_eq!(
        posted["message"]["attachments"].as_array().unwrap().len(),
        2
    );

    let thread = app
        .get_ok(
            &format!("/api/conversations/{conversation}/messages"),
            &owner.workspace_token,
        )
        .await;
    let files = thread["messages"][1]["attachments"]
        .as_array()
        .unwrap()
        .clone();
    let download = app.open_link(files[0]["url"].as_str().unwrap()).await;
    assert_eq!(header(&download, "content-type"), "application/pdf");
    assert_eq!(download.bytes().await.unwrap().as_ref(), PDF);
    let forced = app
        .open_link(&format!("{}&download=1", files[0]["url"].as_str().unwrap()))
        .await;
    assert!(header(&forced, "content-disposition").starts_with("attachment;"));
    let stored = app.open_link(files[1]["url"].as_str().unwrap()).await;
    let stored = stored.bytes().await.unwrap();
    assert!(
        !has_exif(&stored),
        "the visitor's photo kept its EXIF block"
    );
    let decoded = image::load_from_memory(&stored).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (400, 300));

    // An agent's photo is theirs to send as it is.
    let kept = app
        .agent_uploaded(
            &owner.workspace_token,
            &conversation,
            "site.jpg",
            jpeg_with_gps(40, 30),
        )
        .await;
    let bytes = app
        .open_link(kept["url"].as_str().unwrap())
        .await
        .bytes()
        .await
        .unwrap();
    assert!(has_exif(&bytes));

    // A file goes on one message only.
    let twice = app
        .send(
            reqwest::Method::POST,
            "/widget/v1/messages",
            Some(&json!({ "body": "again", "attachmentIds": [pdf["id"]] })),
            Some(&visitor.token),
        )
        .await;
    assert_problem(twice, StatusCode::BAD_REQUEST, "validation_failed").await;
}

#[tokio::test]
async fn a_notes_files_never_reach_the_visitor() {
    let app = spawn_app().await;
    let (owner, visitor, conversation) = chat(&app, "files-note").await;
    let token = &owner.workspace_token;
    let file = app
        .agent_uploaded(token, &conversation, "internal.pdf", PDF.to_vec())
        .await;
    app.json_ok(
        reqwest::Method::POST,
        &format!("/api/conversations/{conversation}/notes"),
        &json!({ "body": "see attached", "attachmentIds": [file["id"]] }),
        token,
        StatusCode::CREATED,
    )
    .await;
    let response = app
        .get(
            &format!("/widget/v1/attachments/{}", file["id"].as_str().unwrap()),
            Some(&visitor.token),
        )
        .await;
    assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
    let seen = app.visitor_conversation(&visitor).await;
    assert!(!seen.to_string().contains(file["id"].as_str().unwrap()));
    // A visitor cannot send an agent's upload as theirs either.
    let response = app
        .send(
            reqwest::Method::POST,
            "/widget/v1/messages",
            Some(&json!({ "body": "x", "attachmentIds": [file["id"]] })),
            Some(&visitor.token),
        )
        .await;
    assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
}

#[tokio::test]
async fn programs_scripts_and_markup_are_refused_or_only_downloaded() {
    let app = spawn_app().await;
    let (owner, visitor, conversation) = chat(&app, "files-types").await;
    let token = &owner.workspace_token;

    let disguised = app
        .agent_upload(token, &conversation, "holiday.png", elf())
        .await;
    let problem = assert_problem(
        disguised,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "file_type_refused",
    )
    .await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("application/x-executable"),
        "{problem}"
    );
    let named = app
        .visitor_upload(&visitor, "setup.exe", b"just text".to_vec())
        .await;
    assert_problem(
        named,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "file_type_refused",
    )
    .await;
    // Windows drops a name's trailing dots and spaces when it saves the file.
    for trailing in ["run.bat.", "run.bat . "] {
        let named = app
            .visitor_upload(&visitor, trailing, b"echo hi".to_vec())
            .await;
        assert_problem(
            named,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "file_type_refused",
        )
        .await;
    }
    let script = app
        .visitor_upload(&visitor, "notes.txt", b"#!/bin/sh\necho hi\n".to_vec())
        .await;
    assert_problem(
        script,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "file_type_refused",
    )
    .await;
    assert!(
        app.stored_objects().is_empty(),
        "{:?}",
        app.stored_objects()
    );

    for (name, bytes, sniffed) in [
        (
            "page.png",
            &b"<!DOCTYPE html><html><script>alert(document.cookie)</script></html>"[..],
            "text/html",
        ),
        (
            "logo.png",
            &b"<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>"[..],
            "image/svg+xml",
        ),
    ] {
        let file = app.visitor_uploaded(&visitor, name, bytes.to_vec()).await;
        assert_eq!(file["contentType"], sniffed);
        assert_eq!(file["hasThumbnail"], false);
        let served = app.open_link(file["url"].as_str().unwrap()).await;
        assert_eq!(served.status(), StatusCode::OK);
        assert_eq!(header(&served, "content-type"), sniffed);
        assert!(
            header(&served, "content-disposition").starts_with("attachment;"),
            "{name}"
        );
        assert_eq!(header(&served, "content-security-policy"), "sandbox");
        assert_eq!(header(&served, "x-content-type-options"), "nosniff");
    }

    // An image whose header claims more pixels than allowed is refused unread.
    let mut huge = png(1, 1);
    huge[16..20].copy_from_slice(&30_000u32.to_be_bytes());
    huge[20..24].copy_from_slice(&30_000u32.to_be_bytes());
    let crc = crc32fast::hash(&huge[12..29]);
    huge[29..33].copy_from_slice(&crc.to_be_bytes());
    let refused = app
        .agent_upload(token, &conversation, "huge.png", huge)
        .await;
    assert_problem(refused, StatusCode::UNPROCESSABLE_ENTITY, "image_too_large").await;
}

#[tokio::test]
async fn sizes_quota_and_rate_have_limits_and_a_refusal_stores_nothing() {
    let app = spawn_app_with(&[("STORAGE_WORKSPACE_QUOTA_BYTES", "12000000")]).await;
    let (owner, visitor, conversation) = chat(&app, "files-limits").await;
    let token = &owner.workspace_token;

    let too_big = app
        .visitor_upload(&visitor, "video.bin", vec![7u8; 10 * 1024 * 1024 + 1])
        .await;
    assert_problem(too_big, StatusCode::PAYLOAD_TOO_LARGE, "file_too_large").await;
    let too_big = app
        .agent_upload(
            token,
            &conversation,
            "dump.bin",
            vec![7u8; 25 * 1024 * 1024 + 1],
        )
        .await;
    assert_problem(too_big, StatusCode::PAYLOAD_TOO_LARGE, "file_too_large").await;
    let empty = app
        .agent_upload(token, &conversation, "none.txt", Vec::new())
        .await;
    assert_problem(empty, StatusCode::BAD_REQUEST, "file_empty").await;
    assert!(app.stored_objects().is_empty());

    // 12 MB of quota: 8 MB fits, 8 MB more does not, and leaves nothing stored.
    app.agent_uploaded(token, &conversation, "a.bin", vec![1u8; 8_000_000])
        .await;
    let over = app
        .agent_upload(token, &conversation, "b.bin", vec![2u8; 8_000_000])
        .await;
    assert_problem(
        over,
        StatusCode::PAYLOAD_TOO_LARGE,
        "storage_quota_exceeded",
    )
    .await;
    assert_eq!(app.stored_objects().len(), 1, "{:?}", app.stored_objects());
    let storage = app.get_ok("/api/settings/storage", token).await;
    assert_eq!(storage["usedBytes"], 8_000_000);
    assert_eq!(storage["quotaBytes"], 12_000_000);

    // A visitor sends at most 20 files an hour, the refused one above included.
    for n in 1..20 {
        app.visitor_uploaded(&visitor, &format!("{n}.txt"), b"hello".to_vec())
            .await;
    }
    let limited = app
        .visitor_upload(&visitor, "21.txt", b"hello".to_vec())
        .await;
    assert!(limited.headers().contains_key("retry-after"));
    assert_problem(limited, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}

#[tokio::test]
async fn malformed_uploads_and_messages_are_refused() {
    let app = spawn_app().await;
    let (owner, _visitor, conversation) = chat(&app, "files-malformed").await;
    let token = &owner.workspace_token;
    let path = format!("/api/conversations/{conversation}/attachments");

    let json = app
        .post_json(&path, &json!({ "file": "x" }), Some(token))
        .await;
    assert_problem(json, StatusCode::UNSUPPORTED_MEDIA_TYPE, "invalid_upload").await;
    let wrong_part = reqwest::multipart::Form::new().text("upload", "x");
    let response = app.upload_form(&path, wrong_part, token).await;
    assert_problem(response, StatusCode::BAD_REQUEST, "invalid_upload").await;
    let elsewhere = format!("/api/conversations/{}/attachments", Uuid::new_v4());
    let response = app
        .upload_form(&elsewhere, form("a.txt", b"x".to_vec()), token)
        .await;
    assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;

    let messages = format!("/api/conversations/{conversation}/messages");
    let eleven: Vec<Uuid> = (0..11).map(|_| Uuid::new_v4()).collect();
    let response = app
        .post_json(
            &messages,
            &json!({ "body": "x", "attachmentIds": eleven }),
            Some(token),
        )
        .await;
    assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
    let unknown = app
        .post_json(
            &messages,
            &json!({ "body": "x", "attachmentIds": [Uuid::new_v4()] }),
            Some(token),
        )
        .await;
    assert_problem(unknown, StatusCode::BAD_REQUEST, "validation_failed").await;
    let empty = app
        .post_json(&messages, &json!({ "body": " " }), Some(token))
        .await;
    assert_problem(empty, StatusCode::BAD_REQUEST, "validation_failed").await;
    // Nothing was written by the refusals.
    let thread = app.get_ok(&messages, token).await;
    assert_eq!(thread["messages"].as_array().unwrap().len(), 1);

    // A file of one conversation cannot go on another's message.
    let other = app
        .start_conversation(token, "someone@example.org", "Hello")
        .await;
    let file = app
        .agent_uploaded(token, &conversation, "a.txt", b"x".to_vec())
        .await;
    let response = app
        .post_json(
            &format!(
                "/api/conversations/{}/messages",
                other["id"].as_str().unwrap()
            ),
            &json!({ "body": "x", "attachmentIds": [file["id"]] }),
            Some(token),
        )
        .await;
    assert_problem(response, StatusCode::BAD_REQUEST, "validation_failed").await;
}

#[tokio::test]
async fn links_work_for_five_minutes_for_their_own_workspace_and_file_only() {
    let app = spawn_app().await;
    let (owner, _visitor, conversation) = chat(&app, "files-links").await;
    let (other, _, other_conversation) = chat(&app, "files-links-other").await;
    let file = app
        .agent_uploaded(&owner.workspace_token, &conversation, "a.png", png(10, 10))
        .await;
    let id: Uuid = file["id"].as_str().unwrap().parse().unwrap();
    let url = file["url"].as_str().unwrap();
    assert_eq!(app.open_link(url).await.status(), StatusCode::OK);

    // Expired a second ago, though correctly signed.
    let expired = link_key().link(
        owner.workspace_id,
        id,
        Variant::Original,
        OffsetDateTime::now_utc() - time::Duration::seconds(1),
    );
    assert_problem(
        app.open_link(&expired).await,
        StatusCode::FORBIDDEN,
        "link_expired",
    )
    .await;
    // The same link with another workspace's id, or the expiry moved.
    let moved = url.replace(
        &owner.workspace_id.to_string(),
        &other.workspace_id.to_string(),
    );
    assert_problem(
        app.open_link(&moved).await,
        StatusCode::FORBIDDEN,
        "link_invalid",
    )
    .await;
    let later = url.replace("expires=", "expires=9");
    assert_problem(
        app.open_link(&later).await,
        StatusCode::FORBIDDEN,
        "link_invalid",
    )
    .await;
    let unsigned = url.split_once('&').unwrap().0;
    assert_problem(
        app.open_link(unsigned).await,
        StatusCode::FORBIDDEN,
        "link_invalid",
    )
    .await;

    // Another workspace's agents cannot mint a link to it.
    let theirs = app
        .get(
            &format!("/api/conversations/{other_conversation}/attachments/{id}"),
            Some(&other.workspace_token),
        )
        .await;
    assert_problem(theirs, StatusCode::NOT_FOUND, "not_found").await;
    let wrong_conversation = app
        .get(
            &format!("/api/conversations/{other_conversation}/attachments/{id}"),
            Some(&owner.workspace_token),
        )
        .await;
    assert_problem(wrong_conversation, StatusCode::NOT_FOUND, "not_found").await;

    // After the workspace is deleted, even a fresh link opens nothing.
    app.delete_workspace(&owner).await;
    let response = app.open_link(url).await;
    assert_problem(response, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn the_hub_announces_files_with_links_to_agents_and_to_the_visitor() {
    let app = spawn_app().await;
    let (owner, visitor, conversation) = chat(&app, "files-hub").await;
    let agent = app.owner_agent(&owner).await;
    let mut team = app.hub(&agent.token).await;
    let mut widget = app.hub(&visitor.token).await;
    team.drain(std::time::Duration::from_millis(300)).await;
    widget.drain(std::time::Duration::from_millis(300)).await;

    // The visitor's PDF reaches the agents live.
    let pdf = app
        .visitor_uploaded(&visitor, "invoice.pdf", PDF.to_vec())
        .await;
    let response = app
        .send(
            reqwest::Method::POST,
            "/widget/v1/messages",
            Some(&json!({ "body": "", "attachmentIds": [pdf["id"]] })),
            Some(&visitor.token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let heard = team.event_named("MessageCreated").await;
    let file = &heard["message"]["attachments"][0];
    assert_eq!(file["id"], pdf["id"]);
    let download = app.open_link(file["url"].as_str().unwrap()).await;
    assert_eq!(download.bytes().await.unwrap().as_ref(), PDF);
    widget.event_named("MessageCreated").await;

    // The agent's screenshot reaches the visitor live, with a thumbnail; a note's file does not.
    let shot = app
        .agent_uploaded(
            &owner.workspace_token,
            &conversation,
            "shot.png",
            png(64, 48),
        )
        .await;
    let secret = app
        .agent_uploaded(
            &owner.workspace_token,
            &conversation,
            "secret.pdf",
            PDF.to_vec(),
        )
        .await;
    app.json_ok(
        reqwest::Method::POST,
        &format!("/api/conversations/{conversation}/notes"),
        &json!({ "body": "internal", "attachmentIds": [secret["id"]] }),
        &owner.workspace_token,
        StatusCode::CREATED,
    )
    .await;
    app.json_ok(
        reqwest::Method::POST,
        &format!("/api/conversations/{conversation}/messages"),
        &json!({ "body": "Like this?", "attachmentIds": [shot["id"]] }),
        &owner.workspace_token,
        StatusCode::CREATED,
    )
    .await;
    let seen = widget.event_named("MessageCreated").await;
    assert_eq!(
        seen["message"]["body"], "Like this?",
        "the note was not heard first: {seen}"
    );
    let file = &seen["message"]["attachments"][0];
    assert_eq!(file["id"], shot["id"]);
    let thumb = app.open_link(file["thumbnailUrl"].as_str().unwrap()).await;
    assert_eq!(thumb.status(), StatusCode::OK);
    let heard = team.event_named("MessageCreated").await;
    assert_eq!(heard["message"]["kind"], "note");
    assert_eq!(heard["message"]["attachments"][0]["id"], secret["id"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_gone_after_sending_its_file_leaves_it_stored_and_recorded_never_half() {
    use supportdesk_core::tenancy::TenantSchema;
    use tokio::io::AsyncWriteExt;

    let app = spawn_app().await;
    let (owner, _visitor, conversation) = chat(&app, "files-gone").await;
    let schema = TenantSchema::for_workspace(owner.workspace_id);

    // The quota's row held, so the upload stops between storing its file and recording it.
    let mut hold = app.db.begin().await.unwrap();
    sqlx::query(schema.sql("SELECT 1 FROM {schema}.storage_usage FOR UPDATE"))
        .execute(&mut *hold)
        .await
        .unwrap();

    let file = vec![b'x'; 300_000];
    let boundary = "gone-boundary";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"gone.txt\"\r\n\
         Content-Type: text/plain\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(&file);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let host = app.address.trim_start_matches("http://").to_owned();
    let head = format!(
        "POST /api/conversations/{conversation}/attachments HTTP/1.1\r\nHost: {host}\r\n\
         Authorization: Bearer {}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\n\
         Content-Length: {}\r\n\r\n",
        owner.workspace_token,
        body.len()
    );
    let mut client = tokio::net::TcpStream::connect(&host).await.unwrap();
    client.write_all(head.as_bytes()).await.unwrap();
    client.write_all(&body).await.unwrap();

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while app.stored_objects().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the file was not stored"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // The client goes away while the upload waits for the quota's row.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    drop(client);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    hold.rollback().await.unwrap();

    // The upload still ends as one: its record names its file and counts it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (files, bytes): (i64, i64) = sqlx::query_as(schema.sql(
            "SELECT (SELECT count(*) FROM {schema}.attachments), \
                    (SELECT bytes FROM {schema}.storage_usage)",
        ))
        .fetch_one(&app.db)
        .await
        .unwrap();
        if files == 1 {
            assert_eq!(bytes, 300_000);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "a stored file without its record: {:?}",
            app.stored_objects()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let id: Uuid = sqlx::query_scalar(schema.sql("SELECT id FROM {schema}.attachments"))
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(
        app.stored_objects(),
        [format!(
            "workspaces/{}/attachments/{id}/original",
            owner.workspace_id
        )]
    );
}
