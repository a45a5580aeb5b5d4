//! `/api/conversations*`: the inbox tabs, starting a conversation, replies, private notes,
//! assignment, status and priority. Every member may handle conversations.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::authz::Actor;
use crate::conversations::messages::{self, Message, MessageKind};
use crate::conversations::record::{self, Change, Conversation, ConversationStatus, ListFilter};
use crate::error::responses::MemberErrors;
use crate::error::{Error, FieldErrors, Result};
use crate::extract::{AppJson, AppQuery, path_id};
use crate::inbox::assignee::{AssigneeFilter, acting_agent, ensure_assignable};
use crate::inbox::contacts::{self, ContactInput};
use crate::inbox::priority::Priority;
use crate::inbox::text::{self, BODY_MAX_CHARS, SUBJECT_MAX_CHARS};
use crate::pagination::PageQuery;
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only conversations in this status.
    #[param(inline)]
    status: Option<ConversationStatus>,
    /// `me`, `unassigned`, `all` (default) or an agent id.
    assignee: Option<String>,
}

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
    params(ListQuery, PageQuery),
    responses(
        (status = 200, description = "A page of conversations", body = ConversationList),
        MemberErrors,
    )
)]
pub async fn list(
    AppQuery(query): AppQuery<ListQuery>,
    AppQuery(page): AppQuery<PageQuery>,
    mut tenant: Tenant,
) -> Result<AppJson<ConversationList>> {
    let filter = ListFilter {
        status: query.status,
        assignee: AssigneeFilter::parse(query.assignee.as_deref(), &mut tenant).await?,
    };
    let page = page.parse()?;
    let (conn, schema) = tenant.parts();
    let (conversations, next_cursor) = record::list(conn, schema, filter, &page).await?;
    Ok(AppJson(ConversationList {
        conversations,
        next_cursor,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateConversation {
    /// Who the conversation is with; a new email creates the contact.
    contact: ContactInput,
    #[schema(example = "Your order #1042")]
    subject: Option<String>,
    /// The first message, sent to the contact.
    #[schema(example = "Hello Carla, your order has shipped.")]
    body: String,
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
    let mut errors = FieldErrors::new();
    let contact = request.contact.validate(
        contacts::Field {
            email: "contact.email",
            name: "contact.name",
        },
        &mut errors,
    );
    let subject = text::optional(request.subject.as_deref(), SUBJECT_MAX_CHARS)
        .map_err(|e| errors.entry("subject").or_default().push(e))
        .ok();
    let body = text::required(&request.body, BODY_MAX_CHARS)
        .map_err(|e| errors.entry("body").or_default().push(e))
        .ok();
    let (Some(contact), Some(subject), Some(body)) = (contact, subject, body) else {
        return Err(Error::Validation(errors));
    };

    let mut tenant = TenantTx::begin(&state, actor.clone()).await?;
    let (conn, schema) = tenant.parts();
    let agent_id = acting_agent(&mut *conn, schema, &actor).await?;
    // Holds off a concurrent deactivation of the starter until this assignment is visible.
    ensure_assignable(&mut *conn, schema, agent_id, "assigneeId").await?;
    let contact = contacts::upsert(&mut *conn, schema, &contact).await?;
    let id = record::insert(
        &mut *conn,
        schema,
        contact.id,
        subject.as_deref(),
        Some(agent_id),
    )
    .await?;
    messages::add(
        &mut *conn,
        schema,
        id,
        MessageKind::Outgoing,
        &body,
        Some(agent_id),
    )
    .await?;
    let conversation = record::find(conn, schema, id)
        .await?
        .ok_or_else(|| Error::Internal(anyhow::anyhow!("conversation {id} vanished")))?;
    tenant.commit().await?;
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
pub async fn get(Path(id): Path<String>, mut tenant: Tenant) -> Result<AppJson<Conversation>> {
    let id = path_id(&id, "conversation")?;
    let (conn, schema) = tenant.parts();
    let conversation = record::find(conn, schema, id)
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
    Path(id): Path<String>,
    AppQuery(page): AppQuery<PageQuery>,
    mut tenant: Tenant,
) -> Result<AppJson<MessageList>> {
    let id = path_id(&id, "conversation")?;
    let page = page.parse()?;
    let (conn, schema) = tenant.parts();
    if !record::exists(&mut *conn, schema, id).await? {
        return Err(Error::NotFound("conversation"));
    }
    let (messages, next_cursor) = messages::list(conn, schema, id, &page).await?;
    Ok(AppJson(MessageList {
        messages,
        next_cursor,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageRequest {
    #[schema(example = "Thanks, that fixed it!")]
    body: String,
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
    Path(id): Path<String>,
    AppJson(request): AppJson<MessageRequest>,
) -> Result<(StatusCode, AppJson<Message>)> {
    post(&state, actor, &id, request, MessageKind::Outgoing).await
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
    Path(id): Path<String>,
    AppJson(request): AppJson<MessageRequest>,
) -> Result<(StatusCode, AppJson<Message>)> {
    post(&state, actor, &id, request, MessageKind::Note).await
}

async fn post(
    state: &AppState,
    actor: Actor,
    id: &str,
    request: MessageRequest,
    kind: MessageKind,
) -> Result<(StatusCode, AppJson<Message>)> {
    let id = path_id(id, "conversation")?;
    let body = text::required(&request.body, BODY_MAX_CHARS)
        .map_err(|e| Error::invalid_field("body", e))?;
    let mut tenant = TenantTx::begin(state, actor.clone()).await?;
    let (conn, schema) = tenant.parts();
    let agent_id = acting_agent(&mut *conn, schema, &actor).await?;
    let message = messages::add(conn, schema, id, kind, &body, Some(agent_id))
        .await?
        .ok_or(Error::NotFound("conversation"))?;
    tenant.commit().await?;
    Ok((StatusCode::CREATED, AppJson(message)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssignRequest {
    /// An active agent (the caller or anyone else), or null to unassign.
    #[serde(deserialize_with = "Option::deserialize")]
    #[schema(required = true)]
    assignee_id: Option<Uuid>,
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
    Path(id): Path<String>,
    AppJson(request): AppJson<AssignRequest>,
) -> Result<AppJson<Conversation>> {
    change(&state, actor, &id, Change::Assignee(request.assignee_id)).await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusRequest {
    status: ConversationStatus,
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
    Path(id): Path<String>,
    AppJson(request): AppJson<StatusRequest>,
) -> Result<AppJson<Conversation>> {
    change(&state, actor, &id, Change::Status(request.status)).await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PriorityRequest {
    /// `low`, `medium`, `high`, `urgent`, or null for none.
    #[serde(deserialize_with = "Option::deserialize")]
    #[schema(required = true)]
    priority: Option<Priority>,
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
    Path(id): Path<String>,
    AppJson(request): AppJson<PriorityRequest>,
) -> Result<AppJson<Conversation>> {
    change(&state, actor, &id, Change::Priority(request.priority)).await
}

async fn change(
    state: &AppState,
    actor: Actor,
    id: &str,
    change: Change,
) -> Result<AppJson<Conversation>> {
    let id = path_id(id, "conversation")?;
    let mut tenant = TenantTx::begin(state, actor).await?;
    let (conn, schema) = tenant.parts();
    if let Change::Assignee(Some(agent_id)) = change {
        ensure_assignable(&mut *conn, schema, agent_id, "assigneeId").await?;
    }
    let conversation = record::update(conn, schema, id, change)
        .await?
        .ok_or(Error::NotFound("conversation"))?;
    tenant.commit().await?;
    Ok(AppJson(conversation))
}
