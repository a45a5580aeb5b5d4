//! Rendering the product's emails: a plain-text and an HTML part from templates (askama, which
//! escapes every value in the HTML part: names are user input), with links built on `APP_URL`.
//!
//! Names other people chose (a workspace's, an inviter's, the account's own, which whoever
//! registered an address chose) are shown as data, never as part of our sentences: HTML
//! escaping stops markup, not words. A workspace named "Your account is suspended, verify at
//! http://evil.example/login" would otherwise read, in our own email from our own domain, as
//! our instruction with a clickable link. So subjects never carry user input, and a name in a
//! body passes through [`datum`]: one line, at most [`DATUM_MAX_CHARS`] characters, without
//! invisible or direction-changing characters, and with nothing a mail client would turn into
//! a link (see [`datum`] for how), in the text and the HTML part alike; templates put it after
//! a label ("Workspace:") and in quotes.

use askama::Template;
use lettre::Message;
use lettre::message::{Mailbox, MultiPart};
use supportdesk_core::outbox::messages::conversation_email::Thread;
use supportdesk_core::outbox::messages::mailbox_failing::MailboxFailing;
use supportdesk_core::role::Role;
use time::OffsetDateTime;
use time::macros::format_description;
use uuid::Uuid;

pub const PRODUCT: &str = "Support Desk";

/// The invitation's subject: fixed, so no user input reaches the one line every inbox shows.
pub const INVITATION_SUBJECT: &str = "You are invited to a workspace on Support Desk";
pub const PASSWORD_RESET_SUBJECT: &str = "Reset your Support Desk password";

/// The longest a user-chosen name is shown in an email, in characters; longer ones are cut
/// and end with `…`. Long enough for any real name, too short for a paragraph.
pub const DATUM_MAX_CHARS: usize = 60;

/// Shown for '.' and for the other full stops some software reads as one in a domain name
/// (U+3002, U+FF0E, U+FF61): U+2024 ONE DOT LEADER looks like a full stop, but no mail
/// client's link detection takes it for one, so no host name survives.
const DOT: char = '\u{2024}';
/// Shown for ':' and the full-width colon (U+FF1A): U+2236 RATIO looks like a colon, but no
/// scheme (`http:`, `mailto:`, `javascript:`) survives, so "://" is broken too.
const COLON: char = '\u{2236}';

/// A user-chosen name made safe to show as a datum in an email (both parts; the HTML part
/// escapes it on top):
/// - one line: line breaks, tabs and other control characters become one space, and the
///   ends are trimmed, so a name cannot start a paragraph of its own;
/// - invisible and direction-changing characters (zero-width spaces and joiners, the soft
///   hyphen, bidi embeddings, overrides and isolates, the BOM) are dropped, so what is shown
///   is what was typed and in that order;
/// - at most [`DATUM_MAX_CHARS`] characters, then `…`;
/// - no links: full stops become [`DOT`] and colons [`COLON`], so neither a host name
///   ("evil.example", "www.evil.example") nor a scheme ("http://", "mailto:") is left for a
///   mail client to link (the text still reads the same to a person);
/// - `"` becomes `'`, so a name cannot close the quotes the templates put around it.
pub fn datum(value: &str) -> String {
    clean(value, DATUM_MAX_CHARS, false)
}

/// Someone's message shown in an email (a preview, a reply): as a [`datum`], but keeping its
/// line breaks (at most one blank line in a row) and up to `max_chars` characters. Its links
/// are broken like a datum's: the email is ours, the words are theirs, and the reader answers
/// in the chat, where a link is shown as the writer's.
pub fn passage(value: &str, max_chars: usize) -> String {
    clean(value, max_chars, true)
}

fn clean(value: &str, max_chars: usize, keep_lines: bool) -> String {
    enum Gap {
        None,
        Space,
        Lines(usize),
    }
    let mut out = String::new();
    let mut shown = 0;
    let mut gap = Gap::None;
    for c in value.chars() {
        if is_invisible(c) || (keep_lines && c == '\r') {
            continue;
        }
        if keep_lines && c == '\n' {
            if !out.is_empty() {
                gap = Gap::Lines(match gap {
                    Gap::Lines(n) => (n + 1).min(2),
                    _ => 1,
                });
            }
            continue;
        }
        if c.is_whitespace() || c.is_control() {
            if !out.is_empty() && matches!(gap, Gap::None) {
                gap = Gap::Space;
            }
            continue;
        }
        let spacing = match gap {
            Gap::None => 0,
            Gap::Space => 1,
            Gap::Lines(n) => n,
        };
        if shown + spacing + 1 > max_chars {
            out.push('…');
            return out;
        }
        match gap {
            Gap::None => {}
            Gap::Space => out.push(' '),
            Gap::Lines(n) => out.extend(std::iter::repeat_n('\n', n)),
        }
        gap = Gap::None;
        out.push(match c {
            '.' | '\u{3002}' | '\u{ff0e}' | '\u{ff61}' => DOT,
            ':' | '\u{ff1a}' => COLON,
            '"' => '\'',
            c => c,
        });
        shown += spacing + 1;
    }
    out
}

/// Characters that show nothing, or change the order in which the rest is shown.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00ad}'                    // soft hyphen
        | '\u{061c}'                  // Arabic letter mark
        | '\u{180e}'                  // Mongolian vowel separator
        | '\u{200b}'..='\u{200f}'     // zero-width space, (non-)joiner, LRM, RLM
        | '\u{202a}'..='\u{202e}'     // bidi embeddings and overrides
        | '\u{2060}'..='\u{2064}'     // word joiner, invisible operators
        | '\u{2066}'..='\u{2069}'     // bidi isolates
        | '\u{feff}'                  // byte-order mark, zero-width no-break space
    )
}

#[derive(Template)]
#[template(path = "verification.txt", escape = "none")]
struct VerificationText<'a> {
    name: &'a str,
    email: &'a str,
    link: &'a str,
    product: &'a str,
}

#[derive(Template)]
#[template(path = "verification.html")]
struct VerificationHtml<'a> {
    name: &'a str,
    email: &'a str,
    link: &'a str,
    product: &'a str,
}

/// The invitation. `workspace` and `inviter` are [`datum`]s; every sentence is ours.
#[derive(Template)]
#[template(path = "invitation.txt", escape = "none")]
struct InvitationText<'a> {
    inviter: Option<&'a str>,
    workspace: &'a str,
    role: &'a str,
    link: &'a str,
    expires: &'a str,
    product: &'a str,
}

#[derive(Template)]
#[template(path = "invitation.html")]
struct InvitationHtml<'a> {
    inviter: Option<&'a str>,
    workspace: &'a str,
    role: &'a str,
    link: &'a str,
    expires: &'a str,
    product: &'a str,
}

#[derive(Template)]
#[template(path = "password_reset.txt", escape = "none")]
struct PasswordResetText<'a> {
    name: &'a str,
    email: &'a str,
    link: &'a str,
    product: &'a str,
}

#[derive(Template)]
#[template(path = "password_reset.html")]
struct PasswordResetHtml<'a> {
    name: &'a str,
    email: &'a str,
    link: &'a str,
    product: &'a str,
}

#[derive(Template)]
#[template(path = "mailbox_failing.txt", escape = "none")]
struct MailboxFailingText<'a> {
    name: &'a str,
    workspace: &'a str,
    host: &'a str,
    user: &'a str,
    error: &'a str,
    link: &'a str,
    product: &'a str,
}

#[derive(Template)]
#[template(path = "mailbox_failing.html")]
struct MailboxFailingHtml<'a> {
    name: &'a str,
    workspace: &'a str,
    host: &'a str,
    user: &'a str,
    error: &'a str,
    link: &'a str,
    product: &'a str,
}

/// A rendered email, before addressing.
#[derive(Debug, Clone)]
pub struct Email {
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
}

#[derive(Debug, Clone)]
pub struct Renderer {
    app_url: String,
    from: Mailbox,
    message_id_domain: String,
}

/// Query-string escaping for a token (already URL-safe base64, so this is belt and braces).
fn query_value(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

impl Renderer {
    pub fn new(app_url: &str, mail_from: &str) -> anyhow::Result<Self> {
        let from: Mailbox = mail_from
            .parse()
            .map_err(|e| anyhow::anyhow!("MAIL_FROM: {e}"))?;
        let message_id_domain = from.email.domain().to_owned();
        Ok(Self {
            app_url: app_url.trim_end_matches('/').to_owned(),
            from,
            message_id_domain,
        })
    }

    /// A rendered email about a conversation, in its thread: this Message-ID, answers asked
    /// to `thread.reply_to` (shown as the team's name).
    pub fn threaded_message(
        &self,
        email: Email,
        thread: &Thread,
        from: Mailbox,
        team: &str,
    ) -> anyhow::Result<Message> {
        let to: Mailbox = email.to.parse()?;
        let reply_to = Mailbox::new(Some(team.to_owned()), thread.reply_to.parse()?);
        Message::builder()
            .from(from)
            .reply_to(reply_to)
            .to(to)
            .subject(email.subject)
            .message_id(Some(format!("<{}>", thread.message_id)))
            .multipart(MultiPart::alternative_plain_html(email.text, email.html))
            .map_err(|e| anyhow::anyhow!("building the message: {e}"))
    }

    /// `MAIL_FROM`: the platform's sender.
    pub(crate) fn from(&self) -> &Mailbox {
        &self.from
    }

    /// `APP_URL`, without a trailing slash.
    pub(crate) fn app_url(&self) -> &str {
        &self.app_url
    }

    /// `APP_URL/<page>?token=<token>`: the dashboard page that takes the emailed token.
    fn link(&self, page: &str, token: &str) -> String {
        format!("{}/{page}?token={}", self.app_url, query_value(token))
    }

    pub fn verification(&self, to: &str, name: &str, token: &str) -> anyhow::Result<Email> {
        let link = self.link("verify-email", token);
        // Whoever registered the address chose the name, not necessarily its owner.
        let name = &datum(name);
        let text = VerificationText {
            name,
            email: to,
            link: &link,
            product: PRODUCT,
        }
        .render()?;
        let html = VerificationHtml {
            name,
            email: to,
            link: &link,
            product: PRODUCT,
        }
        .render()?;
        Ok(Email {
            to: to.to_owned(),
            subject: format!("Confirm your email address for {PRODUCT}"),
            text,
            html,
        })
    }

    /// The invitation. The workspace's and the inviter's names are chosen by whoever made
    /// the workspace: they appear only as [`datum`]s under a label, never in the subject.
    pub fn invitation(
        &self,
        to: &str,
        inviter: Option<&str>,
        workspace: &str,
        role: Role,
        token: &str,
        expires_at: OffsetDateTime,
    ) -> anyhow::Result<Email> {
        let link = self.link("join", token);
        let inviter = inviter.map(datum).filter(|name| !name.is_empty());
        let inviter = inviter.as_deref();
        let workspace = &datum(workspace);
        let role = match role {
            Role::Owner => "an owner",
            Role::Agent => "an agent",
        };
        let expires = expires_at.format(format_description!(
            "[year]-[month]-[day] [hour]:[minute] UTC"
        ))?;
        let text = InvitationText {
            inviter,
            workspace,
            role,
            link: &link,
            expires: &expires,
            product: PRODUCT,
        }
        .render()?;
        let html = InvitationHtml {
            inviter,
            workspace,
            role,
            link: &link,
            expires: &expires,
            product: PRODUCT,
        }
        .render()?;
        Ok(Email {
            to: to.to_owned(),
            subject: INVITATION_SUBJECT.to_owned(),
            text,
            html,
        })
    }

    /// The password-reset link (`APP_URL/reset-password?token=`), valid for an hour.
    pub fn password_reset(&self, to: &str, name: &str, token: &str) -> anyhow::Result<Email> {
        let link = self.link("reset-password", token);
        let name = &datum(name);
        let text = PasswordResetText {
            name,
            email: to,
            link: &link,
            product: PRODUCT,
        }
        .render()?;
        let html = PasswordResetHtml {
            name,
            email: to,
            link: &link,
            product: PRODUCT,
        }
        .render()?;
        Ok(Email {
            to: to.to_owned(),
            subject: PASSWORD_RESET_SUBJECT.to_owned(),
            text,
            html,
        })
    }

    /// Tells an Owner that the workspace's mailbox refuses its login, with the server's words
    /// and a link to Settings.
    pub fn mailbox_failing(&self, failing: &MailboxFailing) -> anyhow::Result<Email> {
        let link = format!("{}/settings#email-heading", self.app_url);
        let (name, workspace) = (&datum(&failing.full_name), &datum(&failing.workspace_name));
        let (host, user, error) = (
            &datum(&failing.host),
            &datum(&failing.user),
            &datum(&failing.error),
        );
        let text = MailboxFailingText {
            name,
            workspace,
            host,
            user,
            error,
            link: &link,
            product: PRODUCT,
        }
        .render()?;
        let html = MailboxFailingHtml {
            name,
            workspace,
            host,
            user,
            error,
            link: &link,
            product: PRODUCT,
        }
        .render()?;
        Ok(Email {
            to: failing.email.clone(),
            subject: format!("The mailbox of {} cannot be read", failing.workspace_name),
            text,
            html,
        })
    }

    /// The message as sent. Its Message-ID is derived from the outbox row, so a re-sent copy
    /// (after a crash) is recognisably the same email.
    pub fn message(&self, outbox_id: Uuid, email: Email) -> anyhow::Result<Message> {
        let to: Mailbox = email.to.parse()?;
        Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(email.subject)
            .message_id(Some(format!("<{outbox_id}@{}>", self.message_id_domain)))
            .multipart(MultiPart::alternative_plain_html(email.text, email.html))
            .map_err(|e| anyhow::anyhow!("building the message: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renderer() -> Renderer {
        Renderer::new(
            "https://desk.example.com/",
            "Support Desk <no-reply@desk.example.com>",
        )
        .unwrap()
    }

    #[test]
    fn verification_links_to_the_app_in_both_parts() {
        let email = renderer()
            .verification("ann@example.com", "Ann", "tok_EN-123")
            .unwrap();
        let link = "https://desk.example.com/verify-email?token=tok_EN-123";
        assert!(email.text.contains(link), "{}", email.text);
        assert!(
            email.html.contains(&format!("href=\"{link}\"")),
            "{}",
            email.html
        );
        assert!(email.subject.contains(PRODUCT));
    }

    #[test]
    fn a_failing_mailbox_email_names_the_server_its_words_and_the_way_to_settings() {
        let email = renderer()
            .mailbox_failing(&MailboxFailing {
                email: "olivia@example.com".into(),
                full_name: "Olivia".into(),
                workspace_name: "Acme <Support>".into(),
                host: "imap.example.com".into(),
                user: "support@acme.test".into(),
                error: "the server refused the login: [AUTHENTICATIONFAILED]".into(),
            })
            .unwrap();
        assert_eq!(email.to, "olivia@example.com");
        for part in [&email.text, &email.html] {
            // Shown as data, never as a link (`datum`): the dots are look-alikes.
            assert!(part.contains("imap") && part.contains("example"), "{part}");
            assert!(part.contains("AUTHENTICATIONFAILED"), "{part}");
            assert!(
                part.contains("https://desk.example.com/settings#email-heading"),
                "{part}"
            );
        }
        assert!(!email.html.contains("<Support>"), "{}", email.html);
    }

    #[test]
    fn html_escapes_user_input() {
        let email = renderer()
            .verification("ann@example.com", "<script>alert(1)</script>", "t")
            .unwrap();
        assert!(!email.html.contains("<script>"));
        assert!(email.html.contains("&#60;script&#62;") || email.html.contains("&lt;script&gt;"));
    }

    fn invitation(inviter: Option<&str>, workspace: &str) -> Email {
        let expires = time::macros::datetime!(2026-11-29 10:00 UTC);
        renderer()
            .invitation(
                "bob@example.com",
                inviter,
                workspace,
                Role::Agent,
                "abc",
                expires,
            )
            .unwrap()
    }

    #[test]
    fn invitation_quotes_workspace_and_inviter_and_links_to_join() {
        let email = invitation(Some("Ann"), "Acme");
        assert!(
            email
                .text
                .contains("https://desk.example.com/join?token=abc")
        );
        assert!(
            email
                .html
                .contains("href=\"https://desk.example.com/join?token=abc\"")
        );
        assert!(email.text.contains("Workspace: \"Acme\""), "{}", email.text);
        assert!(email.text.contains("Invited by: \"Ann\""), "{}", email.text);
        assert!(email.text.contains("as an agent"), "{}", email.text);
        assert!(email.html.contains("\"Acme\""), "{}", email.html);
        assert!(email.text.contains("2026-11-29 10:00 UTC"));
        assert_eq!(email.subject, INVITATION_SUBJECT);

        let anonymous = invitation(None, "Acme");
        assert!(!anonymous.text.contains("Invited by"), "{}", anonymous.text);
    }

    #[test]
    fn an_invitation_never_carries_a_link_hidden_in_a_name() {
        let workspace = "Your account is suspended, verify at http://evil.example/login";
        let inviter = "IT Desk: see https://evil.example. Thanks";
        let email = invitation(Some(inviter), workspace);
        assert_eq!(email.subject, INVITATION_SUBJECT);
        assert!(!email.subject.contains("suspended") && !email.subject.contains("IT Desk"));
        for part in [&email.text, &email.html] {
            for link in ["http://evil", "https://evil", "evil.example"] {
                assert!(!part.contains(link), "{link} in {part}");
            }
        }
        // Still readable, as a quoted datum under its label.
        assert!(
            email
                .text
                .contains("Workspace: \"Your account is suspended, verify at http\u{2236}//evil\u{2024}example/log…\""),
            "{}",
            email.text
        );
        assert!(
            email
                .text
                .contains("Invited by: \"IT Desk\u{2236} see https\u{2236}//evil\u{2024}example\u{2024} Thanks\""),
            "{}",
            email.text
        );
        // The only links (anything with "://") in either part are ours.
        for part in [&email.text, &email.html] {
            let links = part.matches("://").count();
            let ours = part
                .matches("https://desk.example.com/join?token=abc")
                .count();
            assert_eq!(links, ours, "{part}");
        }
    }

    #[test]
    fn a_datum_is_one_short_line_without_links_quotes_or_hidden_characters() {
        assert_eq!(datum("Acme Support"), "Acme Support");
        assert_eq!(datum("  Acme \n\n\t Support\r\n"), "Acme Support");
        assert_eq!(datum("www.evil.example"), "www\u{2024}evil\u{2024}example");
        assert_eq!(
            datum("evil\u{3002}example\u{ff0e}com\u{ff61}x"),
            "evil\u{2024}example\u{2024}com\u{2024}x"
        );
        assert_eq!(datum("mailto:a@b"), "mailto\u{2236}a@b");
        assert_eq!(datum("javascript\u{ff1a}x"), "javascript\u{2236}x");
        assert_eq!(datum("Acme\" onclick=\"x"), "Acme' onclick='x");
        assert_eq!(datum("ev\u{200b}il\u{202e}elpmaxe\u{2066}"), "evilelpmaxe");
        assert_eq!(datum("\u{200b}\u{feff}"), "");
        let long = "a".repeat(100);
        let cut = datum(&long);
        assert_eq!(cut.chars().count(), DATUM_MAX_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(
            datum(&"é".repeat(DATUM_MAX_CHARS)),
            "é".repeat(DATUM_MAX_CHARS)
        );
    }

    #[test]
    fn password_reset_links_to_the_app_and_says_how_long_it_lasts() {
        let email = renderer()
            .password_reset("ann@example.com", "Ann", "tok_EN-123")
            .unwrap();
        let link = "https://desk.example.com/reset-password?token=tok_EN-123";
        assert!(email.text.contains(link), "{}", email.text);
        assert!(
            email.html.contains(&format!("href=\"{link}\"")),
            "{}",
            email.html
        );
        assert_eq!(email.subject, PASSWORD_RESET_SUBJECT);
        for part in [&email.text, &email.html] {
            assert!(part.contains("Hello Ann,"), "{part}");
            assert!(part.contains("valid for 1 hour"), "{part}");
            assert!(
                part.contains("If you did not ask, ignore this email; your password is unchanged."),
                "{part}"
            );
        }
        let named = renderer()
            .password_reset("ann@example.com", "Visit http://evil.example now", "t")
            .unwrap();
        assert!(!named.text.contains("evil.example"), "{}", named.text);
        assert!(!named.html.contains("evil.example"), "{}", named.html);
    }

    #[test]
    fn message_id_is_derived_from_the_outbox_row() {
        let id = Uuid::new_v4();
        let email = renderer()
            .verification("ann@example.com", "Ann", "t")
            .unwrap();
        let message = renderer().message(id, email).unwrap();
        let raw = String::from_utf8(message.formatted()).unwrap();
        assert!(
            raw.contains(&format!("Message-ID: <{id}@desk.example.com>")),
            "{raw}"
        );
    }
}
