//! Rendering the product's emails: a plain-text and an HTML part from templates (askama, which
//! escapes every value in the HTML part: names are user input), with links built on `APP_URL`.

use askama::Template;
use lettre::Message;
use lettre::message::{Mailbox, MultiPart};
use supportdesk::workspaces::Role;
use time::OffsetDateTime;
use time::macros::format_description;
use uuid::Uuid;

pub const PRODUCT: &str = "Support Desk";

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

#[derive(Template)]
#[template(path = "invitation.txt", escape = "none")]
struct InvitationText<'a> {
    inviter: &'a str,
    workspace: &'a str,
    role: &'a str,
    link: &'a str,
    expires: &'a str,
    product: &'a str,
}

#[derive(Template)]
#[template(path = "invitation.html")]
struct InvitationHtml<'a> {
    inviter: &'a str,
    workspace: &'a str,
    role: &'a str,
    link: &'a str,
    expires: &'a str,
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

    pub fn verification(&self, to: &str, name: &str, token: &str) -> anyhow::Result<Email> {
        let link = format!("{}/verify-email?token={}", self.app_url, query_value(token));
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

    pub fn invitation(
        &self,
        to: &str,
        inviter: Option<&str>,
        workspace: &str,
        role: Role,
        token: &str,
        expires_at: OffsetDateTime,
    ) -> anyhow::Result<Email> {
        let link = format!("{}/join?token={}", self.app_url, query_value(token));
        let inviter = inviter.unwrap_or("A workspace owner");
        let role = match role {
            Role::Admin => "an owner",
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
            subject: format!("{inviter} invited you to {workspace} on {PRODUCT}"),
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
    fn html_escapes_user_input() {
        let email = renderer()
            .verification("ann@example.com", "<script>alert(1)</script>", "t")
            .unwrap();
        assert!(!email.html.contains("<script>"));
        assert!(email.html.contains("&#60;script&#62;") || email.html.contains("&lt;script&gt;"));
    }

    #[test]
    fn invitation_names_workspace_inviter_and_join_link() {
        let expires = time::macros::datetime!(2026-11-29 10:00 UTC);
        let email = renderer()
            .invitation(
                "bob@example.com",
                Some("Ann"),
                "Acme",
                Role::Agent,
                "abc",
                expires,
            )
            .unwrap();
        assert!(
            email
                .text
                .contains("https://desk.example.com/join?token=abc")
        );
        assert!(
            email
                .text
                .contains("Ann invited you to join the Acme workspace")
        );
        assert!(email.text.contains("2026-11-29 10:00 UTC"));
        assert_eq!(email.subject, "Ann invited you to Acme on Support Desk");
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
