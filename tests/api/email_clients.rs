//! Mail as real clients write it, taken in over HTTP and read back as an agent sees it.
//!
//! The messages in `tests/fixtures/email/` have the shapes that break naive readers: Outlook's
//! windows-1252 Word HTML with a pasted screenshot and its "From: / Sent:" history, Apple Mail's
//! HTML split around an attached PDF, Thunderbird's flowed ISO-8859-15 text, a forward with an
//! attached email, a reply under twelve levels of quotes, ISO-2022-JP, and broken MIME. Each
//! test delivers one to a workspace's forwarding address and checks what the REST API then
//! shows: the conversation and its contact, the new words apart from the collapsed history,
//! the characters as written, safe HTML, the files, and the thread a reply joins.

use reqwest::StatusCode;
use serde_json::Value;
use supportdesk_core::config::StorageLocation;
use supportdesk_core::tenancy::TenantSchema;
use uuid::Uuid;

use crate::helpers::{Owner, TestApp};
use crate::helpers_email::{plain, spawn_mail_app};

const OUTLOOK: &[u8] = include_bytes!("../fixtures/email/outlook.eml");
const APPLE_MAIL: &[u8] = include_bytes!("../fixtures/email/apple_mail.eml");
const THUNDERBIRD: &[u8] = include_bytes!("../fixtures/email/thunderbird.eml");
const FORWARDED: &[u8] = include_bytes!("../fixtures/email/forwarded.eml");
const LONG_THREAD: &[u8] = include_bytes!("../fixtures/email/long_thread.eml");
const JAPANESE: &[u8] = include_bytes!("../fixtures/email/japanese.eml");
const MALFORMED: &[u8] = include_bytes!("../fixtures/email/malformed.eml");

/// A fixture as it travels: the files keep `\n` line ends, SMTP carries `\r\n`.
fn on_the_wire(fixture: &[u8]) -> Vec<u8> {
    let mut wire = Vec::with_capacity(fixture.len() + fixture.len() / 40);
    for (i, &byte) in fixture.iter().enumerate() {
        if byte == b'\n' && (i == 0 || fixture[i - 1] != b'\r') {
            wire.push(b'\r');
        }
        wire.push(byte);
    }
    wire
}

/// A workspace of its own and its forwarding address.
async fn workspace(app: &TestApp, slug: &str) -> (Owner, String) {
    let owner = app.owner_with_workspace(slug).await;
    let to = app.inbound_address(&owner).await;
    (owner, to)
}

/// Delivers `raw` exactly as given to `recipient`, asserting 200; the receipt.
async fn deliver_bytes(app: &TestApp, raw: &[u8], recipient: &str) -> Value {
    let response = app.post_mail(raw, Some(recipient)).await;
    let status = response.status();
    let receipt: Value = response.json().await.expect("json");
    assert_eq!(status, StatusCode::OK, "{receipt}");
    assert_eq!(receipt["outcome"], "added", "{receipt}");
    receipt
}

fn conversation_of(receipt: &Value) -> String {
    receipt["conversationId"]
        .as_str()
        .expect("conversationId")
        .to_owned()
}

/// The conversation and its only (or last) message, as the REST API gives them.
async fn conversation_and_last_message(
    app: &TestApp,
    token: &str,
    conversation_id: &str,
) -> (Value, Value, usize) {
    let conversation = app
        .get_ok(&format!("/api/conversations/{conversation_id}"), token)
        .await;
    let messages = app.messages_of(token, conversation_id).await;
    let count = messages.len();
    let last = messages.last().cloned().expect("a message");
    (conversation, last, count)
}

fn text<'a>(value: &'a Value, what: &str) -> &'a str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("{what} is not a string: {value}"))
}

/// The files of a message as (name, sniffed type).
fn files(message: &Value) -> Vec<(String, String)> {
    message["attachments"]
        .as_array()
        .expect("attachments")
        .iter()
        .map(|file| {
            (
                text(&file["name"], "name").to_owned(),
                text(&file["contentType"], "contentType").to_owned(),
            )
        })
        .collect()
}

/// HTML an agent's browser may render: nothing that runs, styles or reaches out by itself.
fn assert_safe(html: &str) {
    let lower = html.to_lowercase();
    for unsafe_part in [
        "<script",
        "javascript:",
        " onclick",
        " onload",
        " onerror",
        "<style",
        " style=",
        "<meta",
        "<link",
        "<iframe",
        "<form",
        "<!--",
    ] {
        assert!(!lower.contains(unsafe_part), "{unsafe_part} in {html}");
    }
}

/// The bytes behind a file's signed link.
async fn download(app: &TestApp, file: &Value) -> Vec<u8> {
    let response = app.open_link(text(&file["url"], "url")).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.bytes().await.expect("file bytes").to_vec()
}

#[tokio::test]
async fn an_outlook_reply_joins_its_thread_with_its_new_words_and_its_pasted_screenshot() {
    let app = spawn_mail_app().await;
    let (owner, to) = workspace(&app, "client-outlook").await;
    let token = &owner.workspace_token;
    // Martin's first message, the one the reply's References start with.
    let first = app
        .deliver(
            &plain(
                "Martin Kowalski <martin.kowalski@contoso-logistics.example>",
                "DB9PR08MB7123C0FFEE11A2B3C4D5E6F7A8B91@DB9PR08MB7123.eurprd08.prod.outlook.com",
                "Invoice 4471 shows the wrong VAT rate",
                "",
                "invoice 4471 charges 19 % VAT although we are a business in Austria.",
            ),
            &to,
        )
        .await;
    let conversation_id = conversation_of(&first);

    let receipt = deliver_bytes(&app, &on_the_wire(OUTLOOK), &to).await;
    assert_eq!(
        receipt["conversationId"],
        conversation_id.as_str(),
        "{receipt}"
    );
    assert_eq!(receipt["opened"], false, "{receipt}");

    let (conversation, message, count) =
        conversation_and_last_message(&app, token, &conversation_id).await;
    assert_eq!(count, 2);
    assert_eq!(
        conversation["subject"],
        "Invoice 4471 shows the wrong VAT rate"
    );
    assert_eq!(
        conversation["contact"]["email"],
        "martin.kowalski@contoso-logistics.example"
    );
    assert_eq!(conversation["contact"]["name"], "Martin Kowalski");

    // The new words, windows-1252 decoded (en dash, euro sign, curly apostrophe, ß).
    let body = text(&message["body"], "body");
    assert!(
        body.starts_with("Hello,\n\nthank you for the quick answer."),
        "{body}"
    );
    assert!(
        body.contains(
            "it still charges 19 % VAT – the total is 1.190,00 € instead of 1.000,00 €. \
             We’re a business in Austria"
        ),
        "{body}"
    );
    assert!(
        body.ends_with(
            "Best regards / Mit freundlichen Grüßen\nMartin Kowalski\n\
             Accounts Payable | Contoso Logistics GmbH"
        ),
        "{body}"
    );
    // Outlook's header block starts the history: collapsed, both earlier messages kept.
    let email = &message["email"];
    assert_eq!(
        email["subject"],
        "RE: Invoice 4471 shows the wrong VAT rate"
    );
    let quoted = text(&email["quoted"], "quoted");
    assert!(
        quoted.starts_with(
            "From: Acme Support <support@acme.test>\nSent: Monday, November 23, 2026 4:12 PM"
        ),
        "{quoted}"
    );
    assert!(quoted.contains("we have issued a credit note"), "{quoted}");
    assert!(
        quoted.contains("invoice 4471 charges 19 % VAT although"),
        "{quoted}"
    );
    assert!(!body.contains("Sent:") && !body.contains("credit note for"));

    // Word's HTML without its styles, conditional comments and Office tags.
    let html = text(&email["html"], "html");
    assert!(
        html.contains("the total is 1.190,00 € instead of 1.000,00 €"),
        "{html}"
    );
    assert!(html.contains("Grüßen"), "{html}");
    assert_safe(html);
    for word_markup in ["<o:p", "MsoNormal", "mso-", "@font-face", "urn:schemas"] {
        assert!(!html.contains(word_markup), "{word_markup} in {html}");
    }
    // The pasted screenshot: stored, listed, and shown where it was pasted.
    assert_eq!(
        files(&message),
        [("image001.png".to_owned(), "image/png".to_owned())]
    );
    let image = &message["attachments"][0];
    assert_eq!(
        (image["width"].as_i64(), image["height"].as_i64()),
        (Some(48), Some(24))
    );
    let image_id = text(&image["id"], "id");
    assert!(
        html.contains(&format!("src=\"attachment:{image_id}\"")),
        "{html}"
    );
    assert!(!html.contains("cid:"), "{html}");
}

#[tokio::test]
async fn an_apple_mail_reply_keeps_the_html_after_its_attached_pdf() {
    let app = spawn_mail_app().await;
    let (owner, to) = workspace(&app, "client-apple").await;
    let token = &owner.workspace_token;
    let receipt = deliver_bytes(&app, &on_the_wire(APPLE_MAIL), &to).await;
    let (conversation, message, _) =
        conversation_and_last_message(&app, token, &conversation_of(&receipt)).await;
    assert_eq!(conversation["subject"], "Re: Order 2026-118 charged twice");
    assert_eq!(
        conversation["contact"]["email"],
        "elodie.fournier@example.fr"
    );
    assert_eq!(conversation["contact"]["name"], "Élodie Fournier");

    assert_eq!(
        message["body"],
        "Hello,\n\nI’ve attached the bank statement: the 349,90 € for order 2026-118 was taken \
         twice on 20 November. Could you refund the second payment to the same card?\n\n\
         Merci d’avance,\nÉlodie"
    );
    let email = &message["email"];
    let quoted = text(&email["quoted"], "quoted");
    assert!(
        quoted.starts_with("> On 24 Nov 2026, at 10:00, Acme Support <support@acme.test> wrote:"),
        "{quoted}"
    );
    assert!(quoted.contains("> Hello Élodie,"), "{quoted}");

    // Apple Mail writes the HTML in two parts, one each side of the PDF: both are shown.
    let html = text(&email["html"], "html");
    assert!(html.contains("I’ve attached the bank statement"), "{html}");
    assert!(html.contains("Merci d’avance"), "{html}");
    assert!(html.contains("<blockquote"), "{html}");
    assert!(
        html.contains("we can only see one payment for order 2026-118"),
        "{html}"
    );
    assert_safe(html);

    // The PDF, its RFC 2231 name decoded.
    assert_eq!(
        files(&message),
        [(
            "Relevé bancaire novembre.pdf".to_owned(),
            "application/pdf".to_owned()
        )]
    );
    let pdf = download(&app, &message["attachments"][0]).await;
    assert!(pdf.starts_with(b"%PDF-1.4"));
}

#[tokio::test]
async fn a_thunderbird_reply_reads_as_written_with_its_signature_collapsed() {
    let app = spawn_mail_app().await;
    let (owner, to) = workspace(&app, "client-thunderbird").await;
    let token = &owner.workspace_token;
    let receipt = deliver_bytes(&app, &on_the_wire(THUNDERBIRD), &to).await;
    let (conversation, message, _) =
        conversation_and_last_message(&app, token, &conversation_of(&receipt)).await;
    assert_eq!(conversation["subject"], "Re: Parcel for order 3307");
    assert_eq!(conversation["contact"]["email"], "juergen.weiss@example.de");
    assert_eq!(conversation["contact"]["name"], "Jürgen Weiß");

    // ISO-8859-15 (the euro sign is its own byte there), flowed lines joined again.
    assert_eq!(
        message["body"],
        "Hello,\n\nthanks for the quick reply. The parcel went to our old address in München \
         (Lindwurmstraße 12) instead of the new one. Could you change the invoice over 249,00 € \
         to the new address and send it again?\n\nThe list of the items we received is \
         attached.\n\nBest regards,\nJürgen"
    );
    let email = &message["email"];
    let quoted = text(&email["quoted"], "quoted");
    assert!(
        quoted.starts_with("-- \nJürgen Weiß\nPurchasing | Weiß & Söhne GmbH"),
        "{quoted}"
    );
    assert!(
        quoted.contains(
            "On 11/24/26 10:00, Acme Support wrote:\n> Hello Jürgen,\n>\n\
             > the parcel for order 3307 was delivered on 20 November, as the tracking shows."
        ),
        "{quoted}"
    );
    assert_eq!(email["html"], Value::Null, "plain text only: {email}");

    assert_eq!(
        files(&message),
        [("received-items.txt".to_owned(), "text/plain".to_owned())]
    );
    let items = download(&app, &message["attachments"][0]).await;
    let items = String::from_utf8(items).expect("UTF-8 text");
    assert!(
        items.contains("Kaffeemühle K2        1   149,00 €"),
        "{items}"
    );
}

#[tokio::test]
async fn a_forwarded_thread_stays_in_the_message_and_the_attached_email_is_listed() {
    let app = spawn_mail_app().await;
    let (owner, to) = workspace(&app, "client-forward").await;
    let token = &owner.workspace_token;
    let receipt = deliver_bytes(&app, &on_the_wire(FORWARDED), &to).await;
    let (conversation, message, _) =
        conversation_and_last_message(&app, token, &conversation_of(&receipt)).await;
    assert_eq!(
        conversation["subject"],
        "Fwd: Damaged delivery - claim 88213"
    );
    assert_eq!(
        conversation["contact"]["email"],
        "sofia.lindqvist@example.se"
    );

    // The customer's words, then what they forwarded, whole: the carrier's answer and even
    // the quote under it are what the agent has to read.
    let body = text(&message["body"], "body");
    assert!(
        body.starts_with("Hi,\n\nour carrier says the damage has to be claimed by you"),
        "{body}"
    );
    assert!(
        body.contains(
            "Thanks,\nSofia\n\n---------- Forwarded message ---------\n\
             From: Nordfrakt Kundservice <kundservice@nordfrakt.example>\n\
             Date: Mon, 23 Nov 2026 at 16:05\nSubject: Re: Damaged delivery - claim 88213"
        ),
        "{body}"
    );
    assert!(
        body.contains("claims for damaged goods must be filed by the sender of the shipment."),
        "{body}"
    );
    assert!(body.contains("Nordfrakt Kundservice, Skärholmen"), "{body}");
    assert!(
        body.contains("> Hello, the parcel (consignment 7731-0042) arrived with a crushed corner"),
        "{body}"
    );
    // Only the sender's own signature is collapsed.
    assert_eq!(
        message["email"]["quoted"],
        "-- \nSofia Lindqvist\nLindqvist Café AB, Göteborg"
    );
    let html = text(&message["email"]["html"], "html");
    assert!(
        html.contains("---------- Forwarded message ---------"),
        "{html}"
    );
    assert!(html.contains("claims for damaged goods"), "{html}");
    assert_safe(html);

    // Outlook's "forward as attachment" gives the email no file name: it is named by its
    // subject, and opens as the email it is.
    let listed = files(&message);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].0, "Skadeanmälan 88213 registrerad.eml");
    let attached = download(&app, &message["attachments"][0]).await;
    let attached = String::from_utf8(attached).expect("UTF-8");
    assert!(
        attached.contains("Message-ID: <88213.1763920684@skador.nordfrakt.example>"),
        "{attached}"
    );
    assert!(
        attached.contains("Skadeanmälan 88213 har registrerats."),
        "{attached}"
    );
}

#[tokio::test]
async fn a_reply_under_twelve_levels_of_quotes_joins_the_thread_its_references_start() {
    let app = spawn_mail_app().await;
    let (owner, to) = workspace(&app, "client-long").await;
    let token = &owner.workspace_token;
    // The first message of the thread: the oldest of the reply's twelve References.
    let first = app
        .deliver(
            &plain(
                "Priya Raman <priya.raman@example.in>",
                "CAH2k0pQ00vN7xYw3Lr8sTb4eUf6gJm1aZc5dKo9iR@mail.gmail.com",
                "Migrating 40 agents from our old helpdesk",
                "",
                "We would like to move our 40 agents from our old helpdesk to Acme.",
            ),
            &to,
        )
        .await;
    let conversation_id = conversation_of(&first);

    let receipt = deliver_bytes(&app, &on_the_wire(LONG_THREAD), &to).await;
    assert_eq!(
        receipt["conversationId"],
        conversation_id.as_str(),
        "{receipt}"
    );
    assert_eq!(receipt["opened"], false, "{receipt}");
    let (conversation, message, count) =
        conversation_and_last_message(&app, token, &conversation_id).await;
    assert_eq!(count, 2);
    assert_eq!(
        conversation["subject"],
        "Migrating 40 agents from our old helpdesk"
    );

    // The two new lines on top; all twelve levels below them kept, collapsed.
    assert_eq!(
        message["body"],
        "Friday 27 November at 14:00 IST works for us.\n\
         Please send the calendar invite to me and to ravi.kumar@example.in."
    );
    let quoted = text(&message["email"]["quoted"], "quoted");
    assert!(
        quoted
            .starts_with("On Tue, Nov 24, 2026 at 9:12 AM Acme Support <support@acme.test> wrote:"),
        "{quoted}"
    );
    let deepest: Vec<&str> = quoted
        .lines()
        .filter(|line| line.starts_with(&format!("{} ", ">".repeat(12))))
        .collect();
    assert_eq!(
        deepest,
        [
            ">>>>>>>>>>>> We would like to move our 40 agents from our old helpdesk to Acme.",
            ">>>>>>>>>>>> Can you help us plan the migration?"
        ]
    );
    let html = text(&message["email"]["html"], "html");
    assert_eq!(html.matches("<blockquote").count(), 12, "{html}");
    assert_safe(html);
}

#[tokio::test]
async fn a_japanese_email_in_iso_2022_jp_reads_in_japanese() {
    let app = spawn_mail_app().await;
    let (owner, to) = workspace(&app, "client-japanese").await;
    let token = &owner.workspace_token;
    let receipt = deliver_bytes(&app, &on_the_wire(JAPANESE), &to).await;
    let (conversation, message, _) =
        conversation_and_last_message(&app, token, &conversation_of(&receipt)).await;
    assert_eq!(
        conversation["subject"], "請求書の金額について",
        "{conversation}"
    );
    assert_eq!(
        conversation["contact"]["email"],
        "yamada.taro@example.co.jp"
    );
    assert_eq!(conversation["contact"]["name"], "山田 太郎");
    let body = text(&message["body"], "body");
    assert!(
        body.starts_with("Acme サポート ご担当者様\n\nいつもお世話になっております。"),
        "{body}"
    );
    assert!(
        body.contains("11月分の請求書（請求番号 INV-2026-1124）の金額が、"),
        "{body}"
    );
    assert!(body.contains("株式会社山田商事　経理部"), "{body}");
    assert!(
        !body.contains('\u{1b}'),
        "undecoded escape sequences: {body}"
    );
    assert_eq!(message["email"]["subject"], "請求書の金額について");
}

#[tokio::test]
async fn a_malformed_email_is_taken_with_what_can_be_read_and_its_original_kept() {
    let app = spawn_mail_app().await;
    let (owner, to) = workspace(&app, "client-malformed").await;
    let token = &owner.workspace_token;
    let raw = on_the_wire(MALFORMED);
    let receipt = deliver_bytes(&app, &raw, &to).await;
    let (conversation, message, count) =
        conversation_and_last_message(&app, token, &conversation_of(&receipt)).await;
    assert_eq!(count, 1);
    assert_eq!(conversation["subject"], "Re: order 5531 - broken part");
    assert_eq!(conversation["contact"]["email"], "lars.oyen@example.no");
    let body = text(&message["body"], "body");
    assert!(
        body.starts_with(
            "Hello, the photo of the broken part is attached. The hinge snapped after two days."
        ),
        "{body}"
    );

    // The original, byte for byte, where the message's email details say.
    let message_id: Uuid = text(&message["id"], "id").parse().expect("uuid");
    let schema = TenantSchema::for_workspace(owner.workspace_id);
    let raw_key: String = sqlx::query_scalar(
        schema.sql("SELECT raw_key FROM {schema}.email_messages WHERE message_id = $1"),
    )
    .bind(message_id)
    .fetch_one(&app.db)
    .await
    .expect("the email's details");
    let StorageLocation::Directory(root) = &app.settings.storage.location else {
        panic!("a local store was expected");
    };
    let kept = std::fs::read(root.join(&raw_key)).expect("the original is stored");
    assert_eq!(kept, raw);
}
