//! The test email an Owner asks for in Settings -> Email: proof that mail leaves the way the
//! workspace's customer emails will, through its own SMTP server from the support address, or
//! through the platform's when it has none.

use lettre::Message;
use lettre::message::Mailbox;
use supportdesk_core::outbox::messages::workspace_smtp::SmtpTest;

/// The test email, from `from`.
pub fn build(test: &SmtpTest, from: Mailbox) -> anyhow::Result<Message> {
    let how = match &test.smtp {
        Some(smtp) => format!(
            "through your SMTP server {}:{}{}, from {}",
            smtp.host,
            smtp.port,
            smtp.user
                .as_deref()
                .map(|user| format!(" as {user}"))
                .unwrap_or_default(),
            smtp.address
        ),
        None => {
            "through Support Desk's own mail server (no SMTP server of your own is set)".to_owned()
        }
    };
    let body = format!(
        "Hello {},\n\nThis is the test email you asked for in Settings -> Email of {}. It was \
         sent {how}.\nYour replies to customers leave the same way.\n",
        test.full_name, test.workspace_name
    );
    Ok(Message::builder()
        .from(from)
        .to(Mailbox::new(
            Some(test.full_name.clone()),
            test.email.parse()?,
        ))
        .subject(format!("Test email from {}", test.workspace_name))
        .body(body)?)
}
