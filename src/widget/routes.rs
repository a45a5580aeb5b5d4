//! The visitor's routes (visitor token): their conversation, a message, their contact details.

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::email_address::EmailAddress;
use crate::error::{Error, FieldChecks, Result};
use crate::events::catalogue::DomainEvent;
use crate::events::log::{self, By};
use crate::extract::AppJson;
use crate::state::AppState;

use super::actions::{self, Posted, VisitorConversation};
use super::contacts;
use super::visitor::{Visitor, VisitorTx};

#[derive(Serialize, ToSchema)]
pub struct ConversationView {
    /// Null until the visitor writes, and from 7 days after their last one was resolved.
    conversation: Option<VisitorConversation>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewVisitorMessage {
    /// 1 to 10 000 characters (after trimming); more is refused, never cut. May be empty
    /// when the message carries files.
    #[schema(example = "Hi, my order has not arrived.", max_length = 10000)]
    body: String,
    /// The visitor's uploads (`POST /widget/v1/attachments`) not sent yet; at most 10.
    #[serde(default)]
    attachment_ids: Vec<uuid::Uuid>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ContactDetails {
    #[schema(example = "carla@example.org")]
    email: Option<String>,
    #[schema(example = "Carla Diaz")]
    name: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct VisitorContact {
    name: Option<String>,
    /// The address the visitor gave (agents see it as the contact's `claimedEmail`).
    email: Option<String>,
}

/// The visitor's current conversation with its messages (never notes): the open one, or the
/// one resolved less than 7 days ago, which their next message reopens.
#[utoipa::path(
    get, path = "/widget/v1/conversation", tag = "widget",
    security(("visitor" = [])),
    responses(
        (status = 200, description = "The current conversation, or null", body = ConversationView),
        (status = 401, description = "Missing, invalid or expired visitor token, or one whose identity is no longer trusted (its contact was verified since, or the workspace verifies identities)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a visitor token (`wrong_token_type`), or a deleted workspace",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn conversation(
    State(state): State<AppState>,
    visitor: Visitor,
) -> Result<AppJson<ConversationView>> {
    Ok(AppJson(ConversationView {
        conversation: actions::conversation(&state, &visitor).await?,
    }))
}

/// Send a message (the hub's `SendMessage` is the live way): into the current conversation
/// (reopening it when it was resolved), or a new one when there is none.
#[utoipa::path(
    post, path = "/widget/v1/messages", tag = "widget",
    security(("visitor" = [])),
    request_body = NewVisitorMessage,
    responses(
        (status = 201, description = "The visitor's message", body = Posted),
        (status = 401, description = "Missing, invalid or expired visitor token, or one whose identity is no longer trusted (its contact was verified since, or the workspace verifies identities)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a visitor token (`wrong_token_type`), or a deleted workspace",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many messages or conversations from this visitor; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn send(
    State(state): State<AppState>,
    visitor: Visitor,
    AppJson(request): AppJson<NewVisitorMessage>,
) -> Result<(StatusCode, AppJson<Posted>)> {
    let posted = actions::post(&state, &visitor, &request.body, request.attachment_ids).await?;
    Ok((StatusCode::CREATED, AppJson(posted)))
}

/// Tell us how to reach you: an email (and name) for replies by email. The email is the
/// visitor's word: agents see it, but it never links the visitor to the contact an agent
/// knows by that address.
#[utoipa::path(
    post, path = "/widget/v1/contact", tag = "widget",
    security(("visitor" = [])),
    request_body = ContactDetails,
    responses(
        (status = 200, description = "The visitor's details as stored", body = VisitorContact),
        (status = 401, description = "Missing, invalid or expired visitor token, or one whose identity is no longer trusted (its contact was verified since, or the workspace verifies identities)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a visitor token (`wrong_token_type`), or a deleted workspace",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many changes from this visitor; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn contact(
    State(state): State<AppState>,
    visitor: Visitor,
    AppJson(request): AppJson<ContactDetails>,
) -> Result<AppJson<VisitorContact>> {
    let mut checks = FieldChecks::default();
    let email = match request.email.filter(|e| !e.trim().is_empty()) {
        Some(email) => checks.check("email", EmailAddress::parse(&email)),
        None => None,
    };
    let name = checks.check("name", contacts::name(request.name)).flatten();
    if !checks.is_empty() {
        return Err(checks.failed());
    }
    if email.is_none() && name.is_none() {
        return Err(Error::bad_request(
            "nothing_to_update",
            "send an email, a name, or both",
        ));
    }
    actions::limit(&state, "contact", &visitor, actions::CONTACT_CHANGES).await?;
    let mut tx = VisitorTx::begin(&state, &visitor.schema).await?;
    tx.lock_contact(&visitor).await?;
    let (conn, schema) = tx.parts();
    let updated = contacts::update(
        &mut *conn,
        schema,
        visitor.contact_id,
        email.as_ref(),
        name.as_deref(),
    )
    .await?;
    let changed = DomainEvent::ContactUpdated(updated.clone());
    let by = By::Visitor(visitor.contact_id);
    let recorded = log::append(conn, schema, by, vec![changed]).await?;
    tx.commit().await?;
    state.events.committed(visitor.workspace_id, recorded);
    Ok(AppJson(VisitorContact {
        name: updated.name,
        email: updated.claimed_email,
    }))
}

#[cfg(test)]
mod tests {
    use utoipa::PartialSchema;

    use super::*;
    use crate::inbox::text::MESSAGE_MAX_CHARS;

    /// `maxLength` takes a literal: it must stay the bound `actions::post` enforces.
    #[test]
    fn the_documented_body_bound_is_the_enforced_one() {
        let schema = serde_json::to_value(NewVisitorMessage::schema()).unwrap();
        assert_eq!(
            schema["properties"]["body"]["maxLength"], MESSAGE_MAX_CHARS,
            "{schema}"
        );
    }
}
