//! A received email, read once into what the channel needs: who wrote to whom, which thread it
//! belongs to, its text and sanitised HTML, its files, and whether it is noise (an automatic
//! reply, a list, a bounce). `mail-parser` does the MIME work (multipart, transfer encodings,
//! charsets, encoded words); `ammonia` makes the HTML safe to show. Nothing here fails on a
//! malformed message: what cannot be read is left out, and the raw message is kept by the
//! caller.

use std::borrow::Cow;

use mail_parser::decoders::html::html_to_text;
use mail_parser::{Address, HeaderValue, MessageParser, MimeHeaders, PartType};
use sha2::{Digest, Sha256};

/// A mailbox: an address (lower case) and the name shown beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mailbox {
    pub address: String,
    pub name: Option<String>,
}

/// A file the message carries.
#[derive(Debug, Clone)]
pub struct MailFile {
    pub name: String,
    pub bytes: Vec<u8>,
    /// Its `Content-ID`, when the HTML shows it inline (`cid:`).
    pub content_id: Option<String>,
}

/// Why a message is not answered: automatic mail that would start a loop or carry no person's
/// words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Noise {
    /// `Auto-Submitted` other than `no` (RFC 3834): an out-of-office reply, a notification.
    AutoSubmitted(String),
    /// `Precedence: bulk`, `junk` or `list`, or a `List-Id`: mass mail.
    Bulk(String),
    /// A delivery status notification: mail we (or someone) sent did not arrive.
    Bounce,
}

/// What the receiving MTA's `Authentication-Results` say of SPF, DKIM and DMARC.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Authentication {
    pub spf: Option<String>,
    pub dkim: Option<String>,
    pub dmarc: Option<String>,
}

impl Authentication {
    /// DMARC said the `From` domain did not send it.
    pub fn dmarc_failed(&self) -> bool {
        matches!(
            self.dmarc.as_deref(),
            Some("fail" | "reject" | "quarantine")
        )
    }
}

/// A received email.
#[derive(Debug, Clone)]
pub struct InboundMail {
    /// Its `Message-ID` without angle brackets; for a message without one, a stable id made
    /// from its bytes (so the same message twice is still one).
    pub message_id: String,
    pub in_reply_to: Vec<String>,
    /// Oldest first, as the header lists them.
    pub references: Vec<String>,
    pub from: Option<Mailbox>,
    pub reply_to: Option<Mailbox>,
    pub to: Vec<Mailbox>,
    pub cc: Vec<Mailbox>,
    /// Where the receiving MTA delivered it (`X-Original-To`, `Delivered-To`), lower case.
    pub delivered_to: Vec<String>,
    pub subject: String,
    /// The plain text (from the HTML when the sender wrote none).
    pub text: String,
    /// The HTML, sanitised: no script, no styles that could escape, no forms.
    pub html: Option<String>,
    pub files: Vec<MailFile>,
    pub noise: Option<Noise>,
    /// For a bounce: the `Message-ID`s of the mail it reports undelivered.
    pub bounced: Vec<String>,
    pub authentication: Authentication,
    /// The message could not be read as MIME: nothing but the raw bytes is known.
    pub unreadable: bool,
}

/// Reads `raw`. Never fails: an unreadable message comes back `unreadable` with what its
/// headers gave.
pub fn parse(raw: &[u8]) -> InboundMail {
    let parser = MessageParser::new()
        .with_minimal_headers()
        .with_mime_headers()
        .with_address_headers()
        .with_message_ids()
        .with_date_headers();
    let Some(message) = parser.parse(raw) else {
        return unreadable(raw);
    };

    let message_id = message
        .message_id()
        .map(clean_id)
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| derived_id(raw));
    let text = body_text(&message);
    let html = body_html(&message).map(|html| sanitise_html(&html));
    let files = message
        .attachments()
        .filter_map(|part| {
            let bytes = match &part.body {
                PartType::Binary(b) | PartType::InlineBinary(b) => b.to_vec(),
                PartType::Text(t) | PartType::Html(t) => t.as_bytes().to_vec(),
                PartType::Message(m) => m.raw_message().to_vec(),
                PartType::Multipart(_) => return None,
            };
            let name = match (part.attachment_name(), &part.body) {
                (Some(name), _) => name.to_owned(),
                (None, PartType::Message(forwarded)) => forwarded_file_name(forwarded),
                (None, _) => "attachment".to_owned(),
            };
            Some(MailFile {
                name,
                bytes,
                content_id: part.content_id().map(clean_id),
            })
        })
        .collect();
    let bounce = is_bounce(&message);
    let noise = if bounce {
        Some(Noise::Bounce)
    } else {
        noise(&message)
    };
    let bounced = if bounce {
        bounced_ids(&message)
    } else {
        Vec::new()
    };
    InboundMail {
        message_id,
        in_reply_to: ids(message.in_reply_to()),
        references: ids(message.references()),
        from: message.from().and_then(first),
        reply_to: message.reply_to().and_then(first),
        to: message.to().map(all).unwrap_or_default(),
        cc: message.cc().map(all).unwrap_or_default(),
        delivered_to: ["X-Original-To", "Delivered-To"]
            .iter()
            .filter_map(|name| header_text(&message, name))
            .map(|v| clean_id(v).to_lowercase())
            .collect(),
        subject: message.subject().unwrap_or("").trim().to_owned(),
        text,
        html,
        files,
        noise,
        bounced,
        authentication: authentication(&message),
        unreadable: false,
    }
}

/// The plain text the message shows: each of its text parts in order (Apple Mail writes one
/// before and one after a file attached in the middle), a `format=flowed` part with its soft
/// line breaks undone, an HTML-only message's HTML as text.
fn body_text(message: &mail_parser::Message<'_>) -> String {
    let mut text = String::new();
    for part in message.text_bodies() {
        let piece: Cow<'_, str> = match &part.body {
            PartType::Text(plain) => match flowed(part) {
                Some(delsp) => Cow::Owned(unflow(plain, delsp)),
                None => Cow::Borrowed(plain.as_ref()),
            },
            PartType::Html(html) => Cow::Owned(html_to_text(html)),
            // An image shown between the words: listed with the files.
            _ => continue,
        };
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&piece);
    }
    text
}

/// The HTML the message shows, unsanitised: each of its HTML parts in order (Apple Mail splits
/// the HTML around a file attached in the middle, the quoted history in the part after it).
fn body_html(message: &mail_parser::Message<'_>) -> Option<String> {
    let parts: Vec<&str> = message
        .html_bodies()
        .filter(|part| part.is_text_html())
        .filter_map(|part| part.text_contents())
        .collect();
    (!parts.is_empty()).then(|| parts.concat())
}

/// For a `text/plain; format=flowed` part, whether its soft breaks also delete their space
/// (`delsp=yes`); `None` for fixed text.
fn flowed(part: &mail_parser::MessagePart<'_>) -> Option<bool> {
    let content_type = part.content_type()?;
    content_type
        .attribute("format")
        .is_some_and(|format| format.eq_ignore_ascii_case("flowed"))
        .then(|| {
            content_type
                .attribute("delsp")
                .is_some_and(|delsp| delsp.eq_ignore_ascii_case("yes"))
        })
}

/// `format=flowed` text (RFC 3676) as its sender wrote it: a line ending in a space goes on in
/// the next line of the same quote depth, so paragraphs are no longer cut at 72 columns. The
/// space stuffed before a line is dropped; quote marks are written back as `> ` (the
/// signature separator `-- ` keeps its space, being no soft break).
fn unflow(text: &str, delsp: bool) -> String {
    fn push_line(out: &mut Vec<String>, depth: usize, content: &str) {
        let marks = ">".repeat(depth);
        out.push(match (depth, content.is_empty()) {
            (0, _) => content.to_owned(),
            (_, true) => marks,
            (_, false) => format!("{marks} {content}"),
        });
    }
    let mut lines = Vec::new();
    // The paragraph being joined: its quote depth and words so far.
    let mut open: Option<(usize, String)> = None;
    for line in text.lines() {
        let depth = line.bytes().take_while(|&b| b == b'>').count();
        let content = &line[depth..];
        let content = content.strip_prefix(' ').unwrap_or(content);
        let soft = content.ends_with(' ') && content != "-- ";
        let mut paragraph = match open.take() {
            Some((open_depth, words)) if open_depth == depth => words,
            Some((open_depth, words)) => {
                push_line(&mut lines, open_depth, &words);
                String::new()
            }
            None => String::new(),
        };
        if soft {
            paragraph.push_str(if delsp {
                &content[..content.len() - 1]
            } else {
                content
            });
            open = Some((depth, paragraph));
        } else {
            paragraph.push_str(content);
            push_line(&mut lines, depth, &paragraph);
        }
    }
    if let Some((depth, words)) = open {
        push_line(&mut lines, depth, &words);
    }
    let mut unflowed = lines.join("\n");
    if text.ends_with('\n') {
        unflowed.push('\n');
    }
    unflowed
}

/// A forwarded message attached without a file name (as Outlook attaches one) is named by its
/// subject, so agents see what it is and open it as an email.
fn forwarded_file_name(forwarded: &mail_parser::Message<'_>) -> String {
    let subject: String = forwarded
        .subject()
        .unwrap_or("")
        .chars()
        .map(|c| if matches!(c, '/' | '\\') { '-' } else { c })
        .filter(|c| !c.is_control())
        .take(120)
        .collect();
    let subject = subject.trim();
    if subject.is_empty() {
        "forwarded message.eml".to_owned()
    } else {
        format!("{subject}.eml")
    }
}

fn unreadable(raw: &[u8]) -> InboundMail {
    InboundMail {
        message_id: derived_id(raw),
        in_reply_to: Vec::new(),
        references: Vec::new(),
        from: None,
        reply_to: None,
        to: Vec::new(),
        cc: Vec::new(),
        delivered_to: Vec::new(),
        subject: String::new(),
        text: String::new(),
        html: None,
        files: Vec::new(),
        noise: None,
        bounced: Vec::new(),
        authentication: Authentication::default(),
        unreadable: true,
    }
}

/// A message id without its angle brackets and surrounding space.
pub fn clean_id(id: &str) -> String {
    id.trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim()
        .to_owned()
}

fn derived_id(raw: &[u8]) -> String {
    let digest = Sha256::digest(raw);
    format!("{}@no-message-id.invalid", hex::encode(&digest[..16]))
}

fn ids(value: &HeaderValue<'_>) -> Vec<String> {
    let list: Vec<&str> = match value {
        HeaderValue::Text(t) => t.split_whitespace().collect(),
        HeaderValue::TextList(l) => l.iter().map(AsRef::as_ref).collect(),
        _ => Vec::new(),
    };
    list.into_iter()
        .map(clean_id)
        .filter(|id| !id.is_empty())
        .collect()
}

fn mailbox(addr: &mail_parser::Addr<'_>) -> Option<Mailbox> {
    let address = addr.address()?.trim().to_lowercase();
    if !address.contains('@') {
        return None;
    }
    let name = addr
        .name()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_owned);
    Some(Mailbox { address, name })
}

fn first(address: &Address<'_>) -> Option<Mailbox> {
    address.iter().find_map(mailbox)
}

fn all(address: &Address<'_>) -> Vec<Mailbox> {
    address.iter().filter_map(mailbox).collect()
}

/// A top-level header's raw value (unfolded only by trimming), found by its name.
fn header_text<'a>(message: &'a mail_parser::Message<'_>, name: &str) -> Option<&'a str> {
    let header = message
        .headers()
        .iter()
        .find(|h| h.name().eq_ignore_ascii_case(name))?;
    let raw = message
        .raw_message()
        .get(header.offset_start() as usize..header.offset_end() as usize)?;
    std::str::from_utf8(raw).ok().map(str::trim)
}

fn noise(message: &mail_parser::Message<'_>) -> Option<Noise> {
    if let Some(auto) = header_text(message, "Auto-Submitted") {
        let value = auto
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if value != "no" && !value.is_empty() {
            return Some(Noise::AutoSubmitted(value));
        }
    }
    if let Some(precedence) = header_text(message, "Precedence") {
        let value = precedence.to_ascii_lowercase();
        if matches!(value.as_str(), "bulk" | "junk" | "list") {
            return Some(Noise::Bulk(value));
        }
    }
    if header_text(message, "List-Id").is_some() {
        return Some(Noise::Bulk("list".to_owned()));
    }
    // Microsoft's out-of-office replies say so in their own header.
    if let Some(suppress) = header_text(message, "X-Auto-Response-Suppress") {
        let value = suppress.to_ascii_lowercase();
        if value.contains("all") || value.contains("oof") {
            return Some(Noise::AutoSubmitted("auto-replied".to_owned()));
        }
    }
    None
}

/// A delivery status notification (RFC 3464), or a bounce from a mailer daemon that does not
/// use one.
fn is_bounce(message: &mail_parser::Message<'_>) -> bool {
    if message.content_type().is_some_and(|ct| {
        ct.ctype().eq_ignore_ascii_case("multipart")
            && ct
                .subtype()
                .is_some_and(|s| s.eq_ignore_ascii_case("report"))
            && ct
                .attribute("report-type")
                .is_some_and(|r| r.eq_ignore_ascii_case("delivery-status"))
    }) {
        return true;
    }
    let from_daemon = message.from().and_then(first).is_some_and(|m| {
        let local = m.address.split('@').next().unwrap_or("");
        local == "mailer-daemon" || local == "postmaster"
    });
    let null_sender = message
        .return_address()
        .is_some_and(|r| r.trim().is_empty() || r.trim() == "<>");
    from_daemon || null_sender
}

/// The `Message-ID`s of the mail a bounce reports: from its returned message or headers
/// (`message/rfc822` or `text/rfc822-headers`), else any `Message-ID:` line in its text.
fn bounced_ids(message: &mail_parser::Message<'_>) -> Vec<String> {
    let mut found = Vec::new();
    for part in &message.parts {
        match &part.body {
            PartType::Message(inner) => {
                if let Some(id) = inner.message_id() {
                    found.push(clean_id(id));
                }
            }
            PartType::Text(text) | PartType::Html(text) => found.extend(message_id_lines(text)),
            PartType::Binary(bytes) | PartType::InlineBinary(bytes) => {
                found.extend(message_id_lines(&String::from_utf8_lossy(bytes)));
            }
            PartType::Multipart(_) => {}
        }
    }
    found.dedup();
    found
}

fn message_id_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("message-id")
                .then(|| clean_id(value))
        })
        .filter(|id| !id.is_empty())
        .collect()
}

/// SPF, DKIM and DMARC results from the first `Authentication-Results` header (the one the
/// receiving MTA, nearest to us, added).
fn authentication(message: &mail_parser::Message<'_>) -> Authentication {
    let Some(results) = header_text(message, "Authentication-Results") else {
        return Authentication::default();
    };
    let mut auth = Authentication::default();
    for clause in results.split(';').skip(1) {
        let clause = clause.trim();
        let Some((method, rest)) = clause.split_once('=') else {
            continue;
        };
        let result = rest
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        let slot = match method.trim().to_ascii_lowercase().as_str() {
            "spf" => &mut auth.spf,
            "dkim" => &mut auth.dkim,
            "dmarc" => &mut auth.dmarc,
            _ => continue,
        };
        // The first result of a method counts (a DKIM pass beside a failing signature).
        if slot.is_none() || result == "pass" {
            *slot = Some(result);
        }
    }
    auth
}

/// HTML made safe to show: no script, event handlers, frames, forms, styles or `<base>`; links
/// open elsewhere without a referrer; images keep `http(s)`, `cid:` and `data:` sources (the
/// dashboard shows remote ones only when the agent asks).
pub fn sanitise_html(html: &str) -> String {
    ammonia::Builder::default()
        .url_schemes(["http", "https", "mailto", "cid", "data"].into())
        .link_rel(Some("noopener noreferrer nofollow"))
        .add_tag_attributes("img", ["width", "height", "alt"])
        .add_tag_attributes("td", ["colspan", "rowspan", "align"])
        .add_tag_attributes("th", ["colspan", "rowspan", "align"])
        .clean(html)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mail(text: &str) -> InboundMail {
        parse(text.replace('\n', "\r\n").as_bytes())
    }

    #[test]
    fn a_plain_message_gives_its_parts() {
        let m = mail(
            "From: Ann Example <Ann@Example.com>\n\
             To: support@acme.test\n\
             Cc: Bob <bob@example.com>\n\
             Subject: =?UTF-8?B?w4RwZmVs?= and pears\n\
             Message-ID: <abc@example.com>\n\
             In-Reply-To: <ours-1@acme.test>\n\
             References: <first@acme.test> <ours-1@acme.test>\n\
             \n\
             Hello there.\n",
        );
        assert_eq!(m.message_id, "abc@example.com");
        assert_eq!(
            m.from,
            Some(Mailbox {
                address: "ann@example.com".into(),
                name: Some("Ann Example".into())
            })
        );
        assert_eq!(m.to[0].address, "support@acme.test");
        assert_eq!(m.cc[0].address, "bob@example.com");
        assert_eq!(m.subject, "Äpfel and pears");
        assert_eq!(m.in_reply_to, ["ours-1@acme.test"]);
        assert_eq!(m.references, ["first@acme.test", "ours-1@acme.test"]);
        assert_eq!(m.text.trim(), "Hello there.");
        assert_eq!(m.noise, None);
        assert!(!m.unreadable);
    }

    #[test]
    fn a_message_without_an_id_gets_a_stable_one() {
        let raw = "From: a@example.com\n\nHi\n";
        assert_eq!(mail(raw).message_id, mail(raw).message_id);
        assert!(mail(raw).message_id.ends_with("@no-message-id.invalid"));
    }

    #[test]
    fn automatic_mail_is_noise() {
        let auto = mail("From: a@example.com\nAuto-Submitted: auto-replied\n\nAway\n");
        assert_eq!(
            auto.noise,
            Some(Noise::AutoSubmitted("auto-replied".into()))
        );
        let person = mail("From: a@example.com\nAuto-Submitted: no\n\nHi\n");
        assert_eq!(person.noise, None);
        let bulk = mail("From: a@example.com\nPrecedence: Bulk\n\nSale\n");
        assert_eq!(bulk.noise, Some(Noise::Bulk("bulk".into())));
        let list = mail("From: a@example.com\nList-Id: <news.example.com>\n\nNews\n");
        assert_eq!(list.noise, Some(Noise::Bulk("list".into())));
    }

    #[test]
    fn a_bounce_names_the_message_it_returns() {
        let m = mail(
            "From: Mail Delivery System <MAILER-DAEMON@mx.example.com>\n\
             To: support@acme.test\n\
             Subject: Undelivered Mail Returned to Sender\n\
             Content-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\n\
             \n\
             --b\n\
             Content-Type: text/plain\n\
             \n\
             This is the mail system. Your message could not be delivered.\n\
             --b\n\
             Content-Type: message/delivery-status\n\
             \n\
             Reporting-MTA: dns; mx.example.com\n\
             \n\
             Final-Recipient: rfc822; gone@example.com\n\
             Action: failed\n\
             Status: 5.1.1\n\
             --b\n\
             Content-Type: text/rfc822-headers\n\
             \n\
             From: support@acme.test\n\
             Message-ID: <reply-7@acme.test>\n\
             Subject: Re: help\n\
             --b--\n",
        );
        assert_eq!(m.noise, Some(Noise::Bounce));
        assert_eq!(m.bounced, ["reply-7@acme.test"]);
    }

    #[test]
    fn authentication_results_are_read() {
        let m = mail(
            "Authentication-Results: mx.acme.test; spf=pass smtp.mailfrom=example.com;\n \
             dkim=fail header.d=example.com; dmarc=fail (p=reject) header.from=example.com\n\
             From: a@example.com\n\nHi\n",
        );
        assert_eq!(m.authentication.spf.as_deref(), Some("pass"));
        assert_eq!(m.authentication.dkim.as_deref(), Some("fail"));
        assert_eq!(m.authentication.dmarc.as_deref(), Some("fail"));
        assert!(m.authentication.dmarc_failed());
        assert!(
            !mail("From: a@example.com\n\nHi\n")
                .authentication
                .dmarc_failed()
        );
    }

    #[test]
    fn html_loses_script_and_keeps_its_content() {
        let clean = sanitise_html(
            "<p onclick=\"x()\">Hi <b>there</b><script>alert(1)</script></p>\
             <img src=\"cid:logo@x\"><a href=\"javascript:alert(1)\">x</a>\
             <iframe src=\"https://evil.test\"></iframe><form><input></form>",
        );
        assert!(clean.contains("<p>Hi <b>there</b></p>"), "{clean}");
        assert!(clean.contains("src=\"cid:logo@x\""), "{clean}");
        assert!(!clean.contains("script"), "{clean}");
        assert!(!clean.contains("javascript"), "{clean}");
        assert!(!clean.contains("iframe"), "{clean}");
        assert!(!clean.contains("input"), "{clean}");
        assert!(!clean.contains("onclick"), "{clean}");
    }

    #[test]
    fn flowed_text_is_unwrapped_and_keeps_its_quotes_and_signature() {
        let m = mail(
            "From: a@example.com\n\
             Content-Type: text/plain; charset=ISO-8859-15; format=flowed\n\
             Content-Transfer-Encoding: 8bit\n\n\
             The parcel went to our old \n\
             address.\n\
             \n\
             -- \n\
             Ann\n\
             \n\
             On 11/24/26 10:00, Support wrote:\n\
             > It was delivered \n\
             > on Friday.\n\
             >\n\
             >> Where is \n\
             > my parcel?\n\
             \x20From here on.\n",
        );
        assert_eq!(
            m.text,
            "The parcel went to our old address.\n\n-- \nAnn\n\n\
             On 11/24/26 10:00, Support wrote:\n> It was delivered on Friday.\n>\n\
             >> Where is \n> my parcel?\nFrom here on.\n"
        );
        assert_eq!(unflow("Hal-\nlo \nWelt\n", true), "Hal-\nloWelt\n");
        let fixed = mail("From: a@example.com\nContent-Type: text/plain\n\nkept \nas is\n");
        assert_eq!(fixed.text, "kept \r\nas is\r\n");
    }

    #[test]
    fn text_and_html_split_around_an_attached_file_are_joined() {
        // Apple Mail: the HTML alternative is multipart/mixed, the file between two HTML parts.
        let m = mail(
            "From: a@example.com\n\
             Content-Type: multipart/alternative; boundary=\"alt\"\n\n\
             --alt\nContent-Type: text/plain; charset=utf-8\n\nSee the file.\n\n> On x wrote:\n> Hi\n\
             --alt\nContent-Type: multipart/mixed; boundary=\"mix\"\n\n\
             --mix\nContent-Type: text/html; charset=utf-8\n\n<html><body>See the file.</body></html>\n\
             --mix\nContent-Disposition: attachment; filename=a.pdf\nContent-Type: application/pdf\n\n\
             %PDF-1.4\n\
             --mix\nContent-Type: text/html; charset=utf-8\n\n\
             <html><body><blockquote type=\"cite\">On x wrote: Hi</blockquote></body></html>\n\
             --mix--\n--alt--\n",
        );
        let html = m.html.expect("html");
        assert!(html.contains("See the file."), "{html}");
        assert!(
            html.contains("<blockquote>On x wrote: Hi</blockquote>"),
            "{html}"
        );
        assert_eq!(m.files.len(), 1);
        assert_eq!(m.files[0].name, "a.pdf");
        // Plain text split the same way (a plain-text Apple Mail message).
        let m = mail(
            "From: a@example.com\nContent-Type: multipart/mixed; boundary=\"mix\"\n\n\
             --mix\nContent-Type: text/plain; charset=utf-8\n\nBefore the file.\n\
             --mix\nContent-Disposition: attachment; filename=a.pdf\nContent-Type: application/pdf\n\n\
             %PDF-1.4\n\
             --mix\nContent-Type: text/plain; charset=utf-8\n\nAfter it.\n--mix--\n",
        );
        assert_eq!(
            m.text.replace("\r\n", "\n").trim(),
            "Before the file.\nAfter it."
        );
    }

    #[test]
    fn a_forwarded_message_without_a_file_name_is_named_by_its_subject() {
        let forward = |inner_subject: &str| {
            mail(&format!(
                "From: a@example.com\nContent-Type: multipart/mixed; boundary=\"m\"\n\n\
                 --m\nContent-Type: text/plain\n\nSee attached.\n\
                 --m\nContent-Type: message/rfc822\nContent-Disposition: attachment\n\n\
                 From: b@example.com\n{inner_subject}Message-ID: <in@example.com>\n\nInner words\n\
                 --m--\n"
            ))
        };
        let m = forward("Subject: =?utf-8?Q?Claim_88213_/_r=C3=A4kning?=\n");
        assert_eq!(m.files.len(), 1);
        assert_eq!(m.files[0].name, "Claim 88213 - räkning.eml");
        assert!(String::from_utf8_lossy(&m.files[0].bytes).contains("Inner words"));
        assert_eq!(forward("").files[0].name, "forwarded message.eml");
    }

    #[test]
    fn garbage_does_not_crash() {
        let m = parse(b"\x00\xff\xfe not a message at all \r\n\r\n--\r\n");
        assert!(m.from.is_none());
        let m = parse(b"");
        assert!(m.unreadable || m.from.is_none());
    }
}
