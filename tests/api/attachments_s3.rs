//! Attachments on an S3-compatible store: the `s3s-fs` server (crates.io), started by the
//! harness with signatures checked. The same uploads, links and refusals as on a local
//! directory, the objects where the keys say, and an API holding a wrong secret refused by the
//! store: 503, nothing recorded.

use reqwest::StatusCode;
use serde_json::json;
use supportdesk_test_support::s3_server::S3Server;

use crate::helpers::{TestApp, assert_problem, spawn_app_with};
use crate::helpers_attachments::{PDF, has_exif, jpeg_with_gps, png};
use crate::helpers_widget::SITE;

async fn app_on(s3: &S3Server, extra: &[(&str, &str)]) -> TestApp {
    let env = s3.env();
    let mut overrides: Vec<(&str, &str)> =
        env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    overrides.extend_from_slice(extra);
    spawn_app_with(&overrides).await
}

/// Every stored object's key under the bucket.
fn keys(s3: &S3Server) -> Vec<String> {
    supportdesk_test_support::files::files_under(&s3.bucket_dir())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_go_to_an_s3_store_and_come_back_through_signed_links() {
    let s3 = S3Server::start();
    let app = app_on(&s3, &[("STORAGE_WORKSPACE_QUOTA_BYTES", "20000000")]).await;
    let owner = app.owner_with_workspace("s3-files").await;
    let site_key = app.widget_site(&owner, &[SITE]).await;
    let visitor = app.visitor(&site_key, None).await;
    let conversation = app.visitor_said(&visitor, "Hello").await.to_string();
    let token = &owner.workspace_token;

    // An agent's screenshot: the original and its thumbnail, keyed by workspace.
    let shot = app
        .agent_uploaded(token, &conversation, "shot.png", png(300, 200))
        .await;
    let id = shot["id"].as_str().unwrap();
    let prefix = format!("workspaces/{}/attachments/{id}", owner.workspace_id);
    assert_eq!(
        keys(&s3),
        [format!("{prefix}/original"), format!("{prefix}/thumbnail")]
    );
    let served = app.open_link(shot["url"].as_str().unwrap()).await;
    assert_eq!(served.status(), StatusCode::OK);
    assert_eq!(
        served.bytes().await.unwrap().as_ref(),
        png(300, 200).as_slice()
    );
    let thumb = app.open_link(shot["thumbnailUrl"].as_str().unwrap()).await;
    assert_eq!(thumb.status(), StatusCode::OK);

    // A visitor's photo, stored without its location; a 12 MB file in parts (multipart upload).
    let photo = app
        .visitor_uploaded(&visitor, "IMG.jpg", jpeg_with_gps(120, 80))
        .await;
    let bytes = app
        .open_link(photo["url"].as_str().unwrap())
        .await
        .bytes()
        .await
        .unwrap();
    assert!(!has_exif(&bytes));
    let big: Vec<u8> = (0..12_000_000u32).map(|i| (i % 251) as u8).collect();
    let stored = app
        .agent_uploaded(token, &conversation, "dump.bin", big.clone())
        .await;
    assert_eq!(stored["size"], 12_000_000);
    let back = app
        .open_link(stored["url"].as_str().unwrap())
        .await
        .bytes()
        .await
        .unwrap();
    assert!(
        back.as_ref() == big.as_slice(),
        "the 12 MB file came back changed"
    );

    // Over the quota: refused, and nothing of it stays in the bucket.
    let before = keys(&s3);
    let over = app
        .agent_upload(token, &conversation, "more.bin", vec![3u8; 9_000_000])
        .await;
    assert_problem(
        over,
        StatusCode::PAYLOAD_TOO_LARGE,
        "storage_quota_exceeded",
    )
    .await;
    assert_eq!(keys(&s3), before);

    // The visitor's PDF on a message, read back by the agent.
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
    let fresh = app
        .get_ok(
            &format!(
                "/api/conversations/{conversation}/attachments/{}",
                pdf["id"].as_str().unwrap()
            ),
            token,
        )
        .await;
    let download = app.open_link(fresh["url"].as_str().unwrap()).await;
    assert_eq!(download.bytes().await.unwrap().as_ref(), PDF);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_refuses_the_apis_signature_stores_nothing_and_says_so() {
    let s3 = S3Server::start();
    let app = app_on(
        &s3,
        &[("AWS_SECRET_ACCESS_KEY", "not-the-stores-secret-0123456789")],
    )
    .await;
    let owner = app.owner_with_workspace("s3-refused").await;
    let conversation = app
        .start_conversation(&owner.workspace_token, "c@example.org", "Hello")
        .await;
    let refused = app
        .agent_upload(
            &owner.workspace_token,
            conversation["id"].as_str().unwrap(),
            "a.txt",
            b"hello".to_vec(),
        )
        .await;
    assert_problem(refused, StatusCode::SERVICE_UNAVAILABLE, "unavailable").await;
    assert!(keys(&s3).is_empty());
    let storage = app
        .get_ok("/api/settings/storage", &owner.workspace_token)
        .await;
    assert_eq!(storage["files"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_senders_of_small_files_do_not_keep_other_uploads_from_the_store() {
    use futures::StreamExt;
    use reqwest::multipart::{Form, Part};

    let s3 = S3Server::start();
    let app = app_on(&s3, &[]).await;
    let owner = app.owner_with_workspace("s3-slow").await;
    let conversation = app
        .start_conversation(&owner.workspace_token, "c@example.org", "Hello")
        .await;
    let conversation = conversation["id"].as_str().unwrap().to_owned();
    let path = format!("/api/conversations/{conversation}/attachments");

    // More slow senders than the API has transfer slots: each declares a 1 MB text file,
    // sends its first 16 KiB and waits.
    const SIZE: usize = 1_000_000;
    let mut senders = Vec::new();
    let mut pending = Vec::new();
    for n in 0..supportdesk::attachments::upload::TRANSFERS + 1 {
        let (send, receive) = tokio::sync::mpsc::channel::<Vec<u8>>(4);
        send.send(vec![b'a'; 16 * 1024]).await.unwrap();
        let body = tokio_stream_of(receive).map(Ok::<_, std::io::Error>);
        let part = Part::stream_with_length(reqwest::Body::wrap_stream(body), SIZE as u64)
            .file_name(format!("slow-{n}.txt"));
        let request = app
            .client
            .post(app.url(&path))
            .bearer_auth(&owner.workspace_token)
            .multipart(Form::new().part("file", part))
            .send();
        senders.push(send);
        pending.push(tokio::spawn(request));
    }
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    // Meanwhile an image (spooled, then copied to the store in a slot) goes through.
    let image = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        app.agent_uploaded(
            &owner.workspace_token,
            &conversation,
            "shot.png",
            png(40, 30),
        ),
    )
    .await
    .expect("an upload while slow senders send");
    assert_eq!(image["contentType"], "image/png");

    // The slow files arrive whole, all the same.
    for send in &senders {
        send.send(vec![b'b'; SIZE - 16 * 1024]).await.unwrap();
    }
    drop(senders);
    for request in pending {
        let response = request.await.unwrap().expect("slow upload");
        let status = response.status();
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(status, StatusCode::CREATED, "{body}");
        assert_eq!(body["size"], SIZE);
    }
}

/// The chunks sent on `receive`, as a stream.
fn tokio_stream_of(
    mut receive: tokio::sync::mpsc::Receiver<Vec<u8>>,
) -> impl futures::Stream<Item = Vec<u8>> {
    futures::stream::poll_fn(move |cx| receive.poll_recv(cx))
}
