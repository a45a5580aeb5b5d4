//! The notification emails: an agent's digest of what happened in their inbox, and the
//! replies a widget visitor has not seen. Same rules as every email of ours (`render`): fixed
//! subjects, names as quoted [`datum`]s, and messages as [`passage`]s, whose links are broken
//! (the reader answers in the chat or the inbox, where a link is shown as its writer's).

use askama::Template;
use supportdesk_core::outbox::messages::agent_digest::{Digest, DigestItem, NoticeKind};
use supportdesk_core::outbox::messages::visitor_reply::{ShownMessage, VisitorReply};
use time::OffsetDateTime;
use time::macros::format_description;

use super::render::{Email, PRODUCT, Renderer, datum, passage};

pub const DIGEST_SUBJECT: &str = "New activity in your Support Desk inbox";
pub const VISITOR_REPLY_SUBJECT: &str = "You have a new reply in your chat";

/// How much of a message a digest line previews.
const PREVIEW_MAX_CHARS: usize = 200;
/// How much of one message a visitor's email shows.
const MESSAGE_MAX_CHARS: usize = 2_000;
/// The fragment that makes the widget open its chat panel on the customer's page.
pub const CHAT_FRAGMENT: &str = "#supportdesk-chat";
/// The button colour when the workspace's branding sets none (or one we cannot use).
const DEFAULT_COLOR: &str = "#2563eb";

/// One line of a digest, as the templates show it.
struct Line {
    number: i64,
    subject: Option<String>,
    contact: Option<String>,
    what: String,
    preview: Option<String>,
    link: String,
}

#[derive(Template)]
#[template(path = "agent_digest.txt", escape = "none")]
struct DigestText<'a> {
    name: &'a str,
    workspace: &'a str,
    lines: &'a [Line],
    settings_link: &'a str,
    product: &'a str,
}

#[derive(Template)]
#[template(path = "agent_digest.html")]
struct DigestHtml<'a> {
    name: &'a str,
    workspace: &'a str,
    lines: &'a [Line],
    settings_link: &'a str,
    product: &'a str,
}

/// One message of a visitor's email, as the templates show it.
struct Shown {
    who: String,
    at: String,
    /// The text part's lines, indented.
    indented: String,
    body: String,
    unseen: bool,
}

#[derive(Template)]
#[template(path = "visitor_reply.txt", escape = "none")]
struct VisitorText<'a> {
    name: Option<&'a str>,
    team: &'a str,
    number: i64,
    unseen: usize,
    messages: &'a [Shown],
    link: Option<&'a str>,
    product: &'a str,
}

#[derive(Template)]
#[template(path = "visitor_reply.html")]
struct VisitorHtml<'a> {
    name: Option<&'a str>,
    team: &'a str,
    number: i64,
    unseen: usize,
    messages: &'a [Shown],
    link: Option<&'a str>,
    color: &'a str,
    product: &'a str,
}

fn minute(at: OffsetDateTime) -> String {
    at.to_offset(time::UtcOffset::UTC)
        .format(format_description!(
            "[year]-[month]-[day] [hour]:[minute] UTC"
        ))
        .unwrap_or_default()
}

/// What happened, in our words, with the actor as a quoted datum.
fn what(item: &DigestItem) -> String {
    let actor = item.actor.as_deref().map(datum).filter(|a| !a.is_empty());
    match (item.kind, actor) {
        (NoticeKind::Assigned, Some(actor)) => {
            format!("\"{actor}\" assigned this conversation to you.")
        }
        (NoticeKind::Assigned, None) => "This conversation was assigned to you.".to_owned(),
        (NoticeKind::NewConversation, _) => "A new conversation was started.".to_owned(),
        (NoticeKind::ContactReply, _) => {
            "The contact wrote again in a conversation assigned to you.".to_owned()
        }
        (NoticeKind::Mention, Some(actor)) => format!("\"{actor}\" mentioned you in a note."),
        (NoticeKind::Mention, None) => "You were mentioned in a note.".to_owned(),
    }
}

/// A colour from the workspace's branding, if it is a plain `#rrggbb`.
pub(super) fn brand_color(color: Option<&str>) -> &str {
    match color {
        Some(c)
            if c.len() == 7
                && c.starts_with('#')
                && c[1..].bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            c
        }
        _ => DEFAULT_COLOR,
    }
}

/// The link back to the chat: the visitor's last page with its fragment replaced by the one
/// that opens the chat panel.
pub fn chat_link(page_url: &str) -> String {
    let page = page_url.split('#').next().unwrap_or(page_url);
    format!("{page}{CHAT_FRAGMENT}")
}

impl Renderer {
    /// An agent's digest: one line per notice, each linking to `APP_URL/inbox/{id}`.
    pub fn agent_digest(&self, digest: &Digest) -> anyhow::Result<Email> {
        let lines: Vec<Line> = digest
            .items
            .iter()
            .map(|item| Line {
                number: item.number,
                subject: item.subject.as_deref().map(datum).filter(|s| !s.is_empty()),
                contact: item.contact.as_deref().map(datum).filter(|s| !s.is_empty()),
                what: what(item),
                preview: item
                    .preview
                    .as_deref()
                    .map(|p| passage(p, PREVIEW_MAX_CHARS).replace('\n', " "))
                    .filter(|p| !p.is_empty()),
                link: format!("{}/inbox/{}", self.app_url(), item.conversation_id),
            })
            .collect();
        let name = &datum(&digest.display_name);
        let workspace = &datum(&digest.workspace_name);
        let settings_link = &format!("{}/profile", self.app_url());
        let text = DigestText {
            name,
            workspace,
            lines: &lines,
            settings_link,
            product: PRODUCT,
        }
        .render()?;
        let html = DigestHtml {
            name,
            workspace,
            lines: &lines,
            settings_link,
            product: PRODUCT,
        }
        .render()?;
        Ok(Email {
            to: digest.email.clone(),
            subject: DIGEST_SUBJECT.to_owned(),
            text,
            html,
        })
    }

    /// The visitor's unseen replies, with the conversation's latest messages around them
    /// (never a note), the team's name and colour, and the link back to the chat when the
    /// visitor's page is known.
    pub fn visitor_reply(&self, reply: &VisitorReply) -> anyhow::Result<Email> {
        let messages: Vec<Shown> = reply.messages.iter().map(shown).collect();
        let unseen = messages.iter().filter(|m| m.unseen).count();
        let team_name = reply
            .brand_name
            .as_deref()
            .filter(|n| !n.trim().is_empty())
            .unwrap_or(&reply.workspace_name);
        let team = &datum(team_name);
        let name = reply.visitor_name.as_deref().map(datum);
        let name = name.as_deref().filter(|n| !n.is_empty());
        let link = reply.page_url.as_deref().map(chat_link);
        let link = link.as_deref();
        let text = VisitorText {
            name,
            team,
            number: reply.number,
            unseen,
            messages: &messages,
            link,
            product: PRODUCT,
        }
        .render()?;
        let html = VisitorHtml {
            name,
            team,
            number: reply.number,
            unseen,
            messages: &messages,
            link,
            color: brand_color(reply.brand_color.as_deref()),
            product: PRODUCT,
        }
        .render()?;
        Ok(Email {
            to: reply.email.clone(),
            subject: VISITOR_REPLY_SUBJECT.to_owned(),
            text,
            html,
        })
    }
}

fn shown(message: &ShownMessage) -> Shown {
    let who = if message.from_team {
        message
            .author
            .as_deref()
            .map(datum)
            .filter(|a| !a.is_empty())
            .unwrap_or_else(|| "The team".to_owned())
    } else {
        "You".to_owned()
    };
    let body = passage(&message.body, MESSAGE_MAX_CHARS);
    let indented = body
        .lines()
        .map(|line| format!("    {line}"))
        .collect::<Vec<_>>()
        .join("\n");
    Shown {
        who,
        at: minute(message.created_at),
        indented,
        body,
        unseen: message.unseen,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use supportdesk_core::tenancy::TenantSchema;
    use time::macros::datetime;
    use uuid::Uuid;

    fn renderer() -> Renderer {
        Renderer::new(
            "https://desk.example.com/",
            "Support Desk <no-reply@desk.example.com>",
        )
        .unwrap()
    }

    fn schema() -> TenantSchema {
        TenantSchema::for_workspace(Uuid::nil())
    }

    #[test]
    fn a_digest_lists_each_notice_with_its_link_and_never_names_anyone_in_the_subject() {
        let id = Uuid::now_v7();
        let item = |kind, actor: Option<&str>| DigestItem {
            kind,
            conversation_id: id,
            number: 12,
            subject: Some("Refund".into()),
            contact: Some("Carla".into()),
            preview: Some("Where is my order?\nSee www.evil.example".into()),
            actor: actor.map(str::to_owned),
            at: datetime!(2026-11-26 22:00 UTC),
        };
        let digest = Digest {
            email: "tom@example.com".into(),
            display_name: "Tom".into(),
            workspace_name: "Acme".into(),
            schema: schema(),
            items: vec![
                item(NoticeKind::Assigned, Some("Olivia")),
                item(NoticeKind::Mention, Some("Olivia")),
                item(NoticeKind::ContactReply, None),
            ],
        };
        let email = renderer().agent_digest(&digest).unwrap();
        assert_eq!(email.subject, DIGEST_SUBJECT);
        let link = format!("https://desk.example.com/inbox/{id}");
        assert_eq!(email.text.matches(&link).count(), 3, "{}", email.text);
        assert!(
            email.html.contains(&format!("href=\"{link}\"")),
            "{}",
            email.html
        );
        for part in [&email.text, &email.html] {
            assert!(part.contains("#12"), "{part}");
            assert!(part.contains("assigned this conversation to you"), "{part}");
            assert!(part.contains("mentioned you in a note"), "{part}");
            assert!(part.contains("Where is my order?"), "{part}");
            assert!(!part.contains("evil.example"), "{part}");
        }
    }

    fn message(from_team: bool, body: &str, unseen: bool) -> ShownMessage {
        ShownMessage {
            from_team,
            author: from_team.then(|| "Olivia".to_owned()),
            body: body.into(),
            created_at: datetime!(2026-11-26 22:00 UTC),
            unseen,
        }
    }

    fn reply(page_url: Option<&str>) -> VisitorReply {
        VisitorReply {
            email: "carla@example.org".into(),
            visitor_name: Some("Carla".into()),
            workspace_name: "Acme".into(),
            brand_name: Some("Acme Help".into()),
            brand_color: Some("#ff0000\"><script>".into()),
            page_url: page_url.map(str::to_owned),
            number: 7,
            schema: schema(),
            messages: vec![
                message(false, "My order?", false),
                message(true, "It ships today.\n\nTrack it in your account.", true),
            ],
        }
    }

    #[test]
    fn a_visitor_email_links_back_to_the_chat_on_their_page() {
        let email = renderer()
            .visitor_reply(&reply(Some("https://shop.example/orders?id=3#top")))
            .unwrap();
        assert_eq!(email.subject, VISITOR_REPLY_SUBJECT);
        let link = "https://shop.example/orders?id=3#supportdesk-chat";
        assert!(email.text.contains(link), "{}", email.text);
        assert!(
            email.html.contains(&format!("href=\"{link}\"")),
            "{}",
            email.html
        );
        for part in [&email.text, &email.html] {
            assert!(part.contains("Acme Help"), "{part}");
            assert!(part.contains("It ships today"), "{part}");
            assert!(part.contains("My order?"), "{part}");
            assert!(part.contains("reply to this email"), "{part}");
        }
        assert!(!email.html.contains("<script>"), "{}", email.html);
        assert!(email.html.contains(DEFAULT_COLOR), "{}", email.html);
    }

    #[test]
    fn without_a_known_page_the_visitor_is_told_to_answer_by_email() {
        let email = renderer().visitor_reply(&reply(None)).unwrap();
        for part in [&email.text, &email.html] {
            assert!(!part.contains(CHAT_FRAGMENT), "{part}");
            assert!(part.contains("reply to this email"), "{part}");
            assert!(!part.contains("Continue the chat"), "{part}");
        }
    }

    #[test]
    fn the_chat_link_replaces_the_page_fragment() {
        assert_eq!(
            chat_link("https://a.example/x#y"),
            "https://a.example/x#supportdesk-chat"
        );
        assert_eq!(
            chat_link("https://a.example/"),
            "https://a.example/#supportdesk-chat"
        );
    }

    #[test]
    fn a_passage_keeps_its_lines_but_no_links() {
        assert_eq!(passage("a\r\n\n\n\nb  c", 100), "a\n\nb c");
        assert_eq!(
            passage("see http://x.example", 100),
            "see http\u{2236}//x\u{2024}example"
        );
        assert_eq!(passage("abcdef", 3), "abc…");
    }
}
