//! What the conversation routes accept, and the checks that turn a request into what the
//! handlers act on (`NewConversation::try_from(request)?`): a handler never sees unchecked
//! input, and one failed check answers with every field in error.

use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::attachments::MAX_PER_MESSAGE;
use crate::conversations::messages::Recipients;
use crate::conversations::record::{Change, ConversationStatus};
use crate::email_address::EmailAddress;
use crate::error::{Error, FieldChecks, Result};
use crate::inbox::contacts::{self, ContactInput, NewContact};
use crate::inbox::priority::Priority;
use crate::inbox::text::{self, MESSAGE_MAX_CHARS, SUBJECT_MAX_CHARS};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only this contact's conversations.
    #[serde(rename = "contactId")]
    #[param(rename = "contactId")]
    pub contact_id: Option<Uuid>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateConversation {
    /// Who the conversation is with; a new email creates the contact.
    contact: ContactInput,
    #[schema(example = "Your order #1042")]
    subject: Option<String>,
    /// The first message, sent to the contact: 1 to 10 000 characters.
    #[schema(
        example = "Hello Carla, your order has shipped.",
        min_length = 1,
        max_length = 10000
    )]
    body: String,
}

/// A conversation an agent starts, checked.
#[derive(Debug)]
pub struct NewConversation {
    pub contact: NewContact,
    pub subject: Option<String>,
    /// The first (outgoing) message.
    pub body: String,
}

impl TryFrom<CreateConversation> for NewConversation {
    type Error = Error;

    fn try_from(request: CreateConversation) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let contact = request.contact.check(
            contacts::Field {
                email: "contact.email",
                name: "contact.name",
            },
            &mut checks,
        );
        let subject = checks.check(
            "subject",
            text::optional(request.subject.as_deref(), SUBJECT_MAX_CHARS),
        );
        let body = checks.check("body", text::required(&request.body, MESSAGE_MAX_CHARS));
        match (contact, subject, body) {
            (Some(contact), Some(subject), Some(body)) => Ok(Self {
                contact,
                subject,
                body,
            }),
            _ => Err(checks.failed()),
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MessageRequest {
    /// 1 to 10 000 characters (after trimming); more is refused, never cut. May be empty
    /// when the message carries files.
    #[schema(example = "Thanks, that fixed it!", max_length = 10000)]
    body: String,
    /// Files uploaded for this conversation (`POST .../attachments`) and not sent yet; at
    /// most 10.
    #[serde(default)]
    attachment_ids: Vec<Uuid>,
    /// A reply on an email conversation only: who it is sent to. Left out, To is the sender
    /// of the message it answers, as the thread had it; at most 20 addresses.
    #[schema(example = json!(["carla@example.com"]))]
    to: Option<Vec<String>>,
    /// A reply on an email conversation only: who gets a copy. Left out, Cc is everyone else
    /// the thread was sent to (never the support address); at most 20 addresses.
    cc: Option<Vec<String>>,
}

/// A reply or a note, checked: its body, trimmed and within bounds, its files, and, for a
/// reply by email, the recipients the agent chose.
#[derive(Debug)]
pub struct NewMessage {
    pub body: String,
    pub attachment_ids: Vec<Uuid>,
    pub recipients: Recipients,
}

/// Recipients a message names at most, in To and in Cc each.
pub const MAX_RECIPIENTS: usize = 20;

impl TryFrom<MessageRequest> for NewMessage {
    type Error = Error;

    fn try_from(request: MessageRequest) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let to = request
            .to
            .map(|to| checks.check("to", addresses(to, true)))
            .map(Option::unwrap_or_default);
        let cc = request
            .cc
            .map(|cc| checks.check("cc", addresses(cc, false)))
            .map(Option::unwrap_or_default);
        if !checks.is_empty() {
            return Err(checks.failed());
        }
        let mut message = Self::with_files(&request.body, request.attachment_ids)?;
        message.recipients = Recipients { to, cc };
        Ok(message)
    }
}

/// A list of recipients: each a valid address, once, at most [`MAX_RECIPIENTS`].
fn addresses(list: Vec<String>, required: bool) -> std::result::Result<Vec<EmailAddress>, String> {
    if required && list.is_empty() {
        return Err("needs at least one address".into());
    }
    if list.len() > MAX_RECIPIENTS {
        return Err(format!("names at most {MAX_RECIPIENTS} addresses"));
    }
    let mut parsed: Vec<EmailAddress> = Vec::with_capacity(list.len());
    for candidate in &list {
        let address = EmailAddress::parse(candidate).map_err(|e| format!("{candidate:?} {e}"))?;
        if !parsed.contains(&address) {
            parsed.push(address);
        }
    }
    Ok(parsed)
}

impl NewMessage {
    /// A message body as the REST routes and the hub's methods take it.
    pub fn parse(body: &str) -> Result<Self> {
        Self::with_files(body, Vec::new())
    }

    /// A body and files: the body may be empty when there are files.
    pub fn with_files(body: &str, attachment_ids: Vec<Uuid>) -> Result<Self> {
        let attachment_ids = attachment_ids_of(attachment_ids)?;
        let body = if attachment_ids.is_empty() {
            text::required(body, MESSAGE_MAX_CHARS)
        } else {
            text::optional(Some(body), MESSAGE_MAX_CHARS).map(Option::unwrap_or_default)
        }
        .map_err(|e| Error::invalid_field("body", e))?;
        Ok(Self {
            body,
            attachment_ids,
            recipients: Recipients::default(),
        })
    }
}

/// A message's files: at most [`MAX_PER_MESSAGE`], each once.
pub fn attachment_ids_of(mut ids: Vec<Uuid>) -> Result<Vec<Uuid>> {
    let count = ids.len();
    ids.sort_unstable();
    ids.dedup();
    if ids.len() != count {
        return Err(Error::invalid_field("attachmentIds", "names a file twice"));
    }
    if ids.len() > MAX_PER_MESSAGE {
        return Err(Error::invalid_field(
            "attachmentIds",
            format!("a message carries at most {MAX_PER_MESSAGE} files"),
        ));
    }
    Ok(ids)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssignRequest {
    /// An active agent (the caller or anyone else), or null to unassign.
    #[serde(deserialize_with = "Option::deserialize")]
    #[schema(required = true)]
    assignee_id: Option<Uuid>,
}

impl From<AssignRequest> for Change {
    fn from(request: AssignRequest) -> Self {
        Self::Assignee(request.assignee_id)
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusRequest {
    status: ConversationStatus,
}

impl From<StatusRequest> for Change {
    fn from(request: StatusRequest) -> Self {
        Self::Status(request.status)
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PriorityRequest {
    /// `low`, `medium`, `high`, `urgent`, or null for none.
    #[serde(deserialize_with = "Option::deserialize")]
    #[schema(required = true)]
    priority: Option<Priority>,
}

impl From<PriorityRequest> for Change {
    fn from(request: PriorityRequest) -> Self {
        Self::Priority(request.priority)
    }
}

#[cfg(test)]
mod tests {
    use utoipa::PartialSchema;

    use super::*;

    /// `maxLength` takes a literal: it must stay the bound the checks enforce.
    #[test]
    fn the_documented_body_bound_is_the_enforced_one() {
        for schema in [MessageRequest::schema(), CreateConversation::schema()] {
            let schema = serde_json::to_value(schema).unwrap();
            assert_eq!(
                schema["properties"]["body"]["maxLength"], MESSAGE_MAX_CHARS,
                "{schema}"
            );
        }
        assert!(NewMessage::parse(&"x".repeat(MESSAGE_MAX_CHARS)).is_ok());
        assert!(NewMessage::parse(&"x".repeat(MESSAGE_MAX_CHARS + 1)).is_err());
    }
}
