//! The email telling an Owner that the product disabled one of their webhook endpoints, why,
//! and how to turn it on again.

use lettre::Message;
use lettre::message::Mailbox;
use supportdesk_core::outbox::messages::webhook_disabled::WebhookDisabled;

/// The email, from the platform's sender; `settings` is where endpoints are managed.
pub fn build(disabled: &WebhookDisabled, from: Mailbox, settings: &str) -> anyhow::Result<Message> {
    let body = format!(
        "Hello {},\n\nSupport Desk stopped sending events of {} to the webhook endpoint\n\n  {}\n\n\
         because {}.\n\nEvents recorded meanwhile are kept for 30 days. Once the receiver works \
         again, enable the endpoint in Settings -> Webhooks ({settings}): it resumes where it \
         stopped.\n",
        disabled.full_name, disabled.workspace_name, disabled.url, disabled.reason
    );
    Ok(Message::builder()
        .from(from)
        .to(Mailbox::new(
            Some(disabled.full_name.clone()),
            disabled.email.parse()?,
        ))
        .subject(format!(
            "A webhook of {} was disabled",
            disabled.workspace_name
        ))
        .body(body)?)
}
