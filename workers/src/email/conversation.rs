//! An agent's reply on an email conversation as an email: from "Agent via Workspace" at the
//! support address when the workspace sends through its own SMTP server, else at the
//! platform's `MAIL_FROM` (the platform's server may send for that address, not for the
//! workspace's own domain); answers asked to the support address with the reply's token, our
//! own Message-ID and the thread's `In-Reply-To` and `References`, so the customer's client
//! threads it and their answer threads back; a plain-text body and the reply's files.

use lettre::Message;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use supportdesk_core::outbox::messages::conversation_email::{
    ConversationEmail, Party, with_reply_token,
};

/// `support+<token>@domain`: where answers go.
fn reply_to(email: &ConversationEmail) -> String {
    let token = email
        .message_id
        .split('@')
        .next()
        .unwrap_or(&email.message_id);
    with_reply_token(&email.reply_address, token)
}

fn mailbox(party: &Party) -> anyhow::Result<Mailbox> {
    Ok(Mailbox::new(party.name.clone(), party.address.parse()?))
}

fn ids(list: &[String]) -> String {
    list.iter()
        .map(|id| format!("<{id}>"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The message from `from`, its files' bytes given in the order of `email.files`.
pub fn build(
    email: &ConversationEmail,
    from: lettre::Address,
    files: Vec<Vec<u8>>,
) -> anyhow::Result<Message> {
    let from = Mailbox::new(
        Some(format!("{} via {}", email.agent_name, email.workspace_name)),
        from,
    );
    let reply_to: Mailbox =
        Mailbox::new(Some(email.workspace_name.clone()), reply_to(email).parse()?);
    let mut builder = Message::builder()
        .from(from)
        .reply_to(reply_to)
        .subject(email.subject.clone())
        .message_id(Some(format!("<{}>", email.message_id)));
    for party in &email.to {
        builder = builder.to(mailbox(party)?);
    }
    for party in &email.cc {
        builder = builder.cc(mailbox(party)?);
    }
    if let Some(parent) = &email.in_reply_to {
        builder = builder.in_reply_to(format!("<{parent}>"));
    }
    if !email.references.is_empty() {
        builder = builder.references(ids(&email.references));
    }
    // RFC 3834: a person's answer, which auto-responders may answer once.
    builder = builder.raw_header(HeaderValue::new(
        HeaderName::new_from_ascii_str("Auto-Submitted"),
        "no".to_owned(),
    ));
    let text = SinglePart::plain(email.body.clone());
    let message = if files.is_empty() {
        builder.singlepart(text)?
    } else {
        let mut mixed = MultiPart::mixed().singlepart(text);
        for (file, bytes) in email.files.iter().zip(files) {
            let content_type = ContentType::parse(&file.content_type)
                .unwrap_or(ContentType::parse("application/octet-stream")?);
            mixed = mixed.singlepart(Attachment::new(file.name.clone()).body(bytes, content_type));
        }
        builder.multipart(mixed)?
    };
    Ok(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use supportdesk_core::tenancy::TenantSchema;
    use uuid::Uuid;

    fn email() -> ConversationEmail {
        ConversationEmail {
            schema: TenantSchema::for_workspace(Uuid::nil()),
            workspace_name: "Acme".into(),
            agent_name: "Dana".into(),
            message_id: "0123456789abcdef0123456789abcdef@in.desk.test".into(),
            in_reply_to: Some("cust-2@example.com".into()),
            references: vec!["cust-1@example.com".into(), "cust-2@example.com".into()],
            reply_address: "support@acme.test".into(),
            to: vec![Party {
                address: "carla@example.com".into(),
                name: Some("Carla".into()),
            }],
            cc: vec![Party {
                address: "boss@example.com".into(),
                name: None,
            }],
            subject: "Re: Printer [#4]".into(),
            body: "Try turning it off.".into(),
            files: Vec::new(),
        }
    }

    #[test]
    fn the_reply_threads_and_asks_for_answers_with_its_token() {
        let from: lettre::Address = "no-reply@desk.test".parse().unwrap();
        let raw =
            String::from_utf8(build(&email(), from, Vec::new()).unwrap().formatted()).unwrap();
        assert!(
            raw.contains("From: \"Dana via Acme\" <no-reply@desk.test>"),
            "{raw}"
        );
        assert!(
            raw.contains("Reply-To: Acme <support+0123456789abcdef0123456789abcdef@acme.test>"),
            "{raw}"
        );
        assert!(
            raw.contains("Message-ID: <0123456789abcdef0123456789abcdef@in.desk.test>"),
            "{raw}"
        );
        assert!(raw.contains("In-Reply-To: <cust-2@example.com>"), "{raw}");
        assert!(
            raw.contains("References: <cust-1@example.com> <cust-2@example.com>"),
            "{raw}"
        );
        assert!(raw.contains("Cc: boss@example.com"), "{raw}");
        assert!(raw.contains("Auto-Submitted: no"), "{raw}");
        assert!(raw.contains("Try turning it off."), "{raw}");
    }
}
