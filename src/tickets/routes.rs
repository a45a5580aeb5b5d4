//! `/api/tickets*`: creating, listing, updating and resolving tickets, and their comments.
//! Every member may manage tickets.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::authz::Actor;
use crate::conversations::record as conversations;
use crate::error::responses::MemberErrors;
use crate::error::{Error, FieldErrors, Result};
use crate::extract::{AppJson, AppQuery, path_id};
use crate::inbox::assignee::{AssigneeFilter, acting_agent, ensure_assignable};
use crate::inbox::contacts::{self, ContactInput};
use crate::inbox::priority::Priority;
use crate::inbox::text::{self, BODY_MAX_CHARS, SUBJECT_MAX_CHARS};
use crate::pagination::PageQuery;
use crate::state::AppState;
use crate::tenancy::TenantSchema;
use crate::tenancy::context::{Tenant, TenantTx};
use crate::tickets::comments::{self, Comment};
use crate::tickets::record::{self, Changes, ListFilter, NewTicket, Ticket, TicketStatus};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only tickets in this status.
    #[param(inline)]
    status: Option<TicketStatus>,
    /// `me`, `unassigned`, `all` (default) or an agent id.
    assignee: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketList {
    pub tickets: Vec<Ticket>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// Tickets, newest first, in pages.
#[utoipa::path(
    get, path = "/api/tickets", tag = "tickets",
    security(("bearer" = [])),
    params(ListQuery, PageQuery),
    responses(
        (status = 200, description = "A page of tickets", body = TicketList),
        MemberErrors,
    )
)]
pub async fn list(
    AppQuery(query): AppQuery<ListQuery>,
    AppQuery(page): AppQuery<PageQuery>,
    mut tenant: Tenant,
) -> Result<AppJson<TicketList>> {
    let filter = ListFilter {
        status: query.status,
        assignee: AssigneeFilter::parse(query.assignee.as_deref(), &mut tenant).await?,
    };
    let page = page.parse()?;
    let (conn, schema) = tenant.parts();
    let (tickets, next_cursor) = record::list(conn, schema, filter, &page).await?;
    Ok(AppJson(TicketList {
        tickets,
        next_cursor,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateTicket {
    #[schema(example = "Refund for order #1042")]
    subject: String,
    description: Option<String>,
    /// Who the ticket is for; a new email creates the contact.
    requester: ContactInput,
    priority: Option<Priority>,
    /// An active agent of the workspace.
    assignee_id: Option<Uuid>,
    /// The conversation the ticket came from.
    conversation_id: Option<Uuid>,
}

/// Open a ticket.
#[utoipa::path(
    post, path = "/api/tickets", tag = "tickets",
    security(("bearer" = [])),
    request_body = CreateTicket,
    responses(
        (status = 201, description = "The new ticket", body = Ticket),
        MemberErrors,
    )
)]
pub async fn create(
    State(state): State<AppState>,
    actor: Actor,
    AppJson(request): AppJson<CreateTicket>,
) -> Result<(StatusCode, AppJson<Ticket>)> {
    let mut errors = FieldErrors::new();
    let requester = request.requester.validate(
        contacts::Field {
            email: "requester.email",
            name: "requester.name",
        },
        &mut errors,
    );
    let subject = text::required(&request.subject, SUBJECT_MAX_CHARS)
        .map_err(|e| errors.entry("subject").or_default().push(e))
        .ok();
    let description = text::optional(request.description.as_deref(), BODY_MAX_CHARS)
        .map_err(|e| errors.entry("description").or_default().push(e))
        .ok();
    let (Some(requester), Some(subject), Some(description)) = (requester, subject, description)
    else {
        return Err(Error::Validation(errors));
    };

    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    check_references(
        &mut *conn,
        schema,
        request.assignee_id,
        request.conversation_id,
    )
    .await?;
    let requester = contacts::upsert(&mut *conn, schema, &requester).await?;
    let id = record::insert(
        &mut *conn,
        schema,
        &NewTicket {
            subject,
            description,
            priority: request.priority,
            assignee_id: request.assignee_id,
            requester_id: requester.id,
            conversation_id: request.conversation_id,
        },
    )
    .await?;
    let ticket = record::find(conn, schema, id)
        .await?
        .ok_or_else(|| Error::Internal(anyhow::anyhow!("ticket {id} vanished")))?;
    tenant.commit().await?;
    Ok((StatusCode::CREATED, AppJson(ticket)))
}

/// An assignee must be an active agent, a conversation one of this workspace's (400).
async fn check_references(
    conn: &mut sqlx::PgConnection,
    schema: &TenantSchema,
    assignee_id: Option<Uuid>,
    conversation_id: Option<Uuid>,
) -> Result<()> {
    if let Some(agent_id) = assignee_id {
        ensure_assignable(&mut *conn, schema, agent_id, "assigneeId").await?;
    }
    if let Some(conversation_id) = conversation_id
        && !conversations::exists(conn, schema, conversation_id).await?
    {
        return Err(Error::invalid_field(
            "conversationId",
            "no such conversation in this workspace",
        ));
    }
    Ok(())
}

/// One ticket.
#[utoipa::path(
    get, path = "/api/tickets/{id}", tag = "tickets",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Ticket id")),
    responses(
        (status = 200, description = "The ticket", body = Ticket),
        MemberErrors,
    )
)]
pub async fn get(Path(id): Path<String>, mut tenant: Tenant) -> Result<AppJson<Ticket>> {
    let id = path_id(&id, "ticket")?;
    let (conn, schema) = tenant.parts();
    let ticket = record::find(conn, schema, id)
        .await?
        .ok_or(Error::NotFound("ticket"))?;
    Ok(AppJson(ticket))
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

/// Change a ticket; fields left out stay as they are.
#[utoipa::path(
    patch, path = "/api/tickets/{id}", tag = "tickets",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Ticket id")),
    request_body = TicketPatch,
    responses(
        (status = 200, description = "The updated ticket", body = Ticket),
        MemberErrors,
    )
)]
pub async fn update(
    State(state): State<AppState>,
    actor: Actor,
    Path(id): Path<String>,
    AppJson(patch): AppJson<TicketPatch>,
) -> Result<AppJson<Ticket>> {
    let id = path_id(&id, "ticket")?;
    let mut errors = FieldErrors::new();
    let subject = patch
        .subject
        .map(|subject| text::required(&subject, SUBJECT_MAX_CHARS))
        .transpose()
        .map_err(|e| errors.entry("subject").or_default().push(e))
        .ok();
    let description = patch
        .description
        .map(|description| text::optional(description.as_deref(), BODY_MAX_CHARS))
        .transpose()
        .map_err(|e| errors.entry("description").or_default().push(e))
        .ok();
    let (Some(subject), Some(description)) = (subject, description) else {
        return Err(Error::Validation(errors));
    };
    let changes = Changes {
        subject,
        description,
        status: patch.status,
        priority: patch.priority,
        assignee_id: patch.assignee_id,
        conversation_id: patch.conversation_id,
    };
    apply(&state, actor, id, changes).await
}

/// Resolve a ticket (sets `resolvedAt`; resolving a resolved ticket changes nothing).
#[utoipa::path(
    post, path = "/api/tickets/{id}/resolve", tag = "tickets",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Ticket id")),
    responses(
        (status = 200, description = "The resolved ticket", body = Ticket),
        MemberErrors,
    )
)]
pub async fn resolve(
    State(state): State<AppState>,
    actor: Actor,
    Path(id): Path<String>,
) -> Result<AppJson<Ticket>> {
    let id = path_id(&id, "ticket")?;
    let changes = Changes {
        status: Some(TicketStatus::Resolved),
        ..Changes::default()
    };
    apply(&state, actor, id, changes).await
}

async fn apply(
    state: &AppState,
    actor: Actor,
    id: Uuid,
    changes: Changes,
) -> Result<AppJson<Ticket>> {
    let mut tenant = TenantTx::begin(state, actor).await?;
    let (conn, schema) = tenant.parts();
    check_references(
        &mut *conn,
        schema,
        changes.assignee_id.flatten(),
        changes.conversation_id.flatten(),
    )
    .await?;
    let ticket = record::update(conn, schema, id, changes)
        .await?
        .ok_or(Error::NotFound("ticket"))?;
    tenant.commit().await?;
    Ok(AppJson(ticket))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommentList {
    pub comments: Vec<Comment>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// A ticket's comments, oldest first, in pages.
#[utoipa::path(
    get, path = "/api/tickets/{id}/comments", tag = "tickets",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Ticket id"), PageQuery),
    responses(
        (status = 200, description = "A page of comments", body = CommentList),
        MemberErrors,
    )
)]
pub async fn list_comments(
    Path(id): Path<String>,
    AppQuery(page): AppQuery<PageQuery>,
    mut tenant: Tenant,
) -> Result<AppJson<CommentList>> {
    let id = path_id(&id, "ticket")?;
    let page = page.parse()?;
    let (conn, schema) = tenant.parts();
    if !record::exists(&mut *conn, schema, id).await? {
        return Err(Error::NotFound("ticket"));
    }
    let (comments, next_cursor) = comments::list(conn, schema, id, &page).await?;
    Ok(AppJson(CommentList {
        comments,
        next_cursor,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CommentRequest {
    #[schema(example = "Refund approved by finance.")]
    body: String,
}

/// Comment on a ticket.
#[utoipa::path(
    post, path = "/api/tickets/{id}/comments", tag = "tickets",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Ticket id")),
    request_body = CommentRequest,
    responses(
        (status = 201, description = "The comment", body = Comment),
        MemberErrors,
    )
)]
pub async fn add_comment(
    State(state): State<AppState>,
    actor: Actor,
    Path(id): Path<String>,
    AppJson(request): AppJson<CommentRequest>,
) -> Result<(StatusCode, AppJson<Comment>)> {
    let id = path_id(&id, "ticket")?;
    let body = text::required(&request.body, BODY_MAX_CHARS)
        .map_err(|e| Error::invalid_field("body", e))?;
    let mut tenant = TenantTx::begin(&state, actor.clone()).await?;
    let (conn, schema) = tenant.parts();
    let agent_id = acting_agent(&mut *conn, schema, &actor).await?;
    let comment = comments::add(conn, schema, id, &body, agent_id)
        .await?
        .ok_or(Error::NotFound("ticket"))?;
    tenant.commit().await?;
    Ok((StatusCode::CREATED, AppJson(comment)))
}
