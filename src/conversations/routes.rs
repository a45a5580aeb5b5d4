//! `/api/conversations*`: the inbox tabs, starting a conversation, replies, private notes,
//! assignment, status and priority. Every member may handle conversations.
//!
//! Request bodies and their checks are in `requests`; the 401 and 403 of the members rule
//! in `MemberErrors`; 400, 404 and the rest of what every route shares in `crate::openapi`.

use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use crate::attachments::record::link_all;
use crate::authz::Actor;
use crate::conversations::actions;
use crate::conversations::filters::InboxFilters;
use crate::conversations::messages::{self, Message, MessageKind};
use crate::conversations::record::{self, Change, Conversation, ListFilter, Reader};
use crate::conversations::requests::{
    AssignRequest, CreateConversation, ListQuery, MessageRequest, NewConversation, NewMessage,
    PriorityRequest, StatusRequest,
};
use crate::error::responses::MemberErrors;
use crate::error::{Error, Result};
use crate::extract::{AppJson, AppQuery, PathId};
use crate::pagination::PageQuery;
use crate::state::AppState;
use crate::tenancy::context::Tenant;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConversationList {
    pub conversations: Vec<Conversation>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// The inbox: conversations newest activity first, in pages.
#[utoipa::path(
    get, path = "/api/conversations", tag = "conversations",
    security(("bearer" = [])),
    params(InboxFilters, ListQuery, PageQuery),
    responses(
        (status = 200, description = "A page of conversations", body = ConversationList),
        MemberErrors,
    )
)]
pub async fn list(
    AppQuery(filters): AppQuery<InboxFilters>,
    AppQuery(query): AppQuery<ListQuery>,
    AppQuery(page): AppQuery<PageQuery>,
    mut tenant: Tenant,
) -> Result<AppJson<ConversationList>> {
    let filter = ListFilter {
        contact: query.contact_id,
        ..filters.resolve(&mut tenant).await?
    };
    let page = page.parse()?;
    let reader = Reader::of(&tenant.actor);
    // A label's conversations may be a few or a tenth of the inbox: which index reads them
    // best depends on the label (`Tenant::planned_read`).
    let (conversations, next_cursor) = if filter.label.is_some() {
        tenant
            .planned_read(move |conn, schema| {
                Box::pin(async move { record::list(conn, schema, filter, reader, &page).await })
            })
            .await?
    } else {
        let (conn, schema) = tenant.parts();
        record::list(conn, schema, filter, reader, &page).await?
    };
    Ok(AppJson(ConversationList {
        conversations,
        next_cursor,
    }))
}

/// Start a conversation with a contact: the first message is an outgoing one, and the
/// conversation is assigned to the agent who started it.
#[utoipa::path(
    post, path = "/api/conversations", tag = "conversations",
    security(("bearer" = [])),
    request_body = CreateConversation,
    responses(
        (status = 201, description = "The new conversation", body = Conversation),
        MemberErrors,
    )
)]
pub async fn create(
    State(state): State<AppState>,
    actor: Actor,
    AppJson(request): AppJson<CreateConversation>,
) -> Result<(StatusCode, AppJson<Conversation>)> {
    let new = NewConversation::try_from(request)?;
    let conversation = actions::start(&state, actor, new).await?;
    Ok((StatusCode::CREATED, AppJson(conversation)))
}

/// One conversation.
#[utoipa::path(
    get, path = "/api/conversations/{id}", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Conversation id")),
    responses(
        (status = 200, description = "The conversation", body = Conversation),
        MemberErrors,
    )
)]
pub async fn get(
    PathId { id, .. }: PathId<Conversation>,
    mut tenant: Tenant,
) -> Result<AppJson<Conversation>> {
    let reader = Reader::of(&tenant.actor);
    let (conn, schema) = tenant.parts();
    let conversation = record::find(conn, schema, id, reader)
        .await?
        .ok_or(Error::NotFound("conversation"))?;
    Ok(AppJson(conversation))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageList {
    pub messages: Vec<Message>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// A conversation's messages and private notes, oldest first, in pages.
#[utoipa::path(
    get, path = "/api/conversations/{id}/messages", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Conversation id"), PageQuery),
    responses(
        (status = 200, description = "A page of messages", body = MessageList),
        MemberErrors,
    )
)]
pub async fn list_messages(
    State(state): State<AppState>,
    PathId { id, .. }: PathId<Conversation>,
    AppQuery(page): AppQuery<PageQuery>,
    mut tenant: Tenant,
) -> Result<AppJson<MessageList>> {
    let page = page.parse()?;
    let workspace_id = tenant.actor.workspace_id;
    let (conn, schema) = tenant.parts();
    if !record::exists(&mut *conn, schema, id).await? {
        return Err(Error::NotFound("conversation"));
    }
    let (mut messages, next_cursor) = messages::list(conn, schema, id, &page).await?;
    let links = &state.files.links;
    link_all(
        messages.iter_mut().flat_map(|m| m.attachments.iter_mut()),
        links,
        workspace_id,
    );
    Ok(AppJson(MessageList {
        messages,
        next_cursor,
    }))
}

/// Reply to the contact.
#[utoipa::path(
    post, path = "/api/conversations/{id}/messages", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Conversation id")),
    request_body = MessageRequest,
    responses(
        (status = 201, description = "The reply", body = Message),
        MemberErrors,
    )
)]
pub async fn reply(
    State(state): State<AppState>,
    actor: Actor,
    conversation: PathId<Conversation>,
    AppJson(request): AppJson<MessageRequest>,
) -> Result<(StatusCode, AppJson<Message>)> {
    let message = NewMessage::try_from(request)?;
    post(&state, actor, conversation, message, MessageKind::Outgoing).await
}

/// Add a private note: for the team only, never shown to visitors.
#[utoipa::path(
    post, path = "/api/conversations/{id}/notes", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Conversation id")),
    request_body = MessageRequest,
    responses(
        (status = 201, description = "The note", body = Message),
        MemberErrors,
    )
)]
pub async fn note(
    State(state): State<AppState>,
    actor: Actor,
    conversation: PathId<Conversation>,
    AppJson(request): AppJson<MessageRequest>,
) -> Result<(StatusCode, AppJson<Message>)> {
    let message = NewMessage::try_from(request)?;
    post(&state, actor, conversation, message, MessageKind::Note).await
}

async fn post(
    state: &AppState,
    actor: Actor,
    PathId { id, .. }: PathId<Conversation>,
    message: NewMessage,
    kind: MessageKind,
) -> Result<(StatusCode, AppJson<Message>)> {
    let workspace_id = actor.workspace_id;
    let mut message = actions::post_message(state, actor, id, message, kind).await?;
    link_all(&mut message.attachments, &state.files.links, workspace_id);
    Ok((StatusCode::CREATED, AppJson(message)))
}

/// Assign the conversation to an active agent (yourself or another), or unassign it.
#[utoipa::path(
    post, path = "/api/conversations/{id}/assign", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Conversation id")),
    request_body = AssignRequest,
    responses(
        (status = 200, description = "The updated conversation", body = Conversation),
        MemberErrors,
    )
)]
pub async fn assign(
    State(state): State<AppState>,
    actor: Actor,
    conversation: PathId<Conversation>,
    AppJson(request): AppJson<AssignRequest>,
) -> Result<AppJson<Conversation>> {
    change(&state, actor, conversation, request.into()).await
}

/// Move the conversation to `open`, `pending` or `resolved`.
#[utoipa::path(
    post, path = "/api/conversations/{id}/status", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Conversation id")),
    request_body = StatusRequest,
    responses(
        (status = 200, description = "The updated conversation", body = Conversation),
        MemberErrors,
    )
)]
pub async fn set_status(
    State(state): State<AppState>,
    actor: Actor,
    conversation: PathId<Conversation>,
    AppJson(request): AppJson<StatusRequest>,
) -> Result<AppJson<Conversation>> {
    change(&state, actor, conversation, request.into()).await
}

/// Set or clear the conversation's priority.
#[utoipa::path(
    post, path = "/api/conversations/{id}/priority", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Conversation id")),
    request_body = PriorityRequest,
    responses(
        (status = 200, description = "The updated conversation", body = Conversation),
        MemberErrors,
    )
)]
pub async fn set_priority(
    State(state): State<AppState>,
    actor: Actor,
    conversation: PathId<Conversation>,
    AppJson(request): AppJson<PriorityRequest>,
) -> Result<AppJson<Conversation>> {
    change(&state, actor, conversation, request.into()).await
}

async fn change(
    state: &AppState,
    actor: Actor,
    PathId { id, .. }: PathId<Conversation>,
    change: Change,
) -> Result<AppJson<Conversation>> {
    Ok(AppJson(actions::change(state, actor, id, change).await?))
}
