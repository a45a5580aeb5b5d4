//! What the ticket routes accept, and the checks that turn a request into what the handlers
//! act on (`NewTicket::try_from(request)?`): a handler never sees unchecked input, and one
//! failed check answers with every field in error.

use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::{Error, FieldChecks, Result};
use crate::inbox::contacts::{self, ContactInput};
use crate::inbox::priority::Priority;
use crate::inbox::text::{self, BODY_MAX_CHARS, SUBJECT_MAX_CHARS};
use crate::tickets::record::{Changes, NewTicket, Requester, TicketStatus};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only tickets in this status.
    #[param(inline)]
    pub status: Option<TicketStatus>,
    /// `me`, `unassigned`, `all` (default) or an agent id.
    pub assignee: Option<String>,
    /// Only this contact's tickets.
    #[serde(rename = "requesterId")]
    #[param(rename = "requesterId")]
    pub requester_id: Option<Uuid>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateTicket {
    #[schema(example = "Refund for order #1042")]
    subject: String,
    description: Option<String>,
    /// Who the ticket is for: `{email, name?}` (a new email creates the contact) or
    /// `{contactId}`. Leave it out with a `conversationId` to take the conversation's contact.
    requester: Option<RequesterInput>,
    priority: Option<Priority>,
    /// An active agent of the workspace.
    assignee_id: Option<Uuid>,
    /// The conversation the ticket came from.
    conversation_id: Option<Uuid>,
}

/// A ticket's requester as a request names it: an existing contact, or one found or created
/// by email.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
pub enum RequesterInput {
    Contact(ExistingContact),
    ByEmail(ContactInput),
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExistingContact {
    contact_id: Uuid,
}

impl TryFrom<CreateTicket> for NewTicket {
    type Error = Error;

    fn try_from(request: CreateTicket) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let requester = match request.requester {
            Some(RequesterInput::ByEmail(contact)) => contact
                .check(
                    contacts::Field {
                        email: "requester.email",
                        name: "requester.name",
                    },
                    &mut checks,
                )
                .map(Requester::ByEmail),
            Some(RequesterInput::Contact(existing)) => {
                Some(Requester::Contact(existing.contact_id))
            }
            None if request.conversation_id.is_some() => Some(Requester::OfConversation),
            None => {
                checks.add(
                    "requester",
                    "name the requester ({email} or {contactId}), or give a conversationId",
                );
                None
            }
        };
        let subject = checks.check(
            "subject",
            text::required(&request.subject, SUBJECT_MAX_CHARS),
        );
        let description = checks.check(
            "description",
            text::optional(request.description.as_deref(), BODY_MAX_CHARS),
        );
        match (requester, subject, description) {
            (Some(requester), Some(subject), Some(description)) => Ok(Self {
                subject,
                description,
                requester,
                priority: request.priority,
                assignee_id: request.assignee_id,
                conversation_id: request.conversation_id,
            }),
            _ => Err(checks.failed()),
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TicketPatch {
    subject: Option<String>,
    /// Null or empty clears it.
    #[serde(default, with = "serde_with::rust::double_option")]
    #[schema(value_type = Option<String>)]
    description: Option<Option<String>>,
    /// `resolved` or `closed` sets `resolvedAt`; `open` or `pending` clears it.
    status: Option<TicketStatus>,
    /// Null clears it.
    #[serde(default, with = "serde_with::rust::double_option")]
    #[schema(value_type = Option<Priority>)]
    priority: Option<Option<Priority>>,
    /// An active agent, or null to unassign.
    #[serde(default, with = "serde_with::rust::double_option")]
    #[schema(value_type = Option<Uuid>)]
    assignee_id: Option<Option<Uuid>>,
    /// A conversation of this workspace, or null to unlink.
    #[serde(default, with = "serde_with::rust::double_option")]
    #[schema(value_type = Option<Uuid>)]
    conversation_id: Option<Option<Uuid>>,
}

impl TryFrom<TicketPatch> for Changes {
    type Error = Error;

    fn try_from(patch: TicketPatch) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let subject = patch
            .subject
            .map(|subject| text::required(&subject, SUBJECT_MAX_CHARS))
            .transpose();
        let subject = checks.check("subject", subject);
        let description = patch
            .description
            .map(|description| text::optional(description.as_deref(), BODY_MAX_CHARS))
            .transpose();
        let description = checks.check("description", description);
        match (subject, description) {
            (Some(subject), Some(description)) => Ok(Self {
                subject,
                description,
                status: patch.status,
                priority: patch.priority,
                assignee_id: patch.assignee_id,
                conversation_id: patch.conversation_id,
            }),
            _ => Err(checks.failed()),
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CommentRequest {
    #[schema(example = "Refund approved by finance.")]
    body: String,
}

/// A comment, checked: its body, trimmed and within bounds.
#[derive(Debug)]
pub struct NewComment {
    pub body: String,
}

impl TryFrom<CommentRequest> for NewComment {
    type Error = Error;

    fn try_from(request: CommentRequest) -> Result<Self> {
        let body = text::required(&request.body, BODY_MAX_CHARS)
            .map_err(|e| Error::invalid_field("body", e))?;
        Ok(Self { body })
    }
}
