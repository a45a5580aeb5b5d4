//! `/api/tickets*`: creating, listing, updating and resolving tickets, and their comments.
//! Every member may manage tickets.
//!
//! Request bodies and their checks are in `requests`; the 401 and 403 of the members rule
//! in `MemberErrors`; 400, 404 and the rest of what every route shares in `crate::openapi`.

use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use supportdesk_core::tenancy::TenantSchema;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::authz::Actor;
use crate::conversations::record as conversations;
use crate::error::responses::MemberErrors;
use crate::error::{Error, Result};
use crate::events;
use crate::events::catalogue::{DomainEvent, TicketCommentCreated};
use crate::extract::{AppJson, AppQuery, PathId};
use crate::inbox::assignee::{AssigneeFilter, acting_agent, ensure_assignable};
use crate::inbox::contacts;
use crate::pagination::PageQuery;
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};
use crate::tickets::comments::{self, Comment};
use crate::tickets::record::{
    self, Changes, ListFilter, NewTicket, Requester, Ticket, TicketStatus,
};
use crate::tickets::requests::{CommentRequest, CreateTicket, ListQuery, NewComment, TicketPatch};

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
        requester: query.requester_id,
    };
    let page = page.parse()?;
    let (conn, schema) = tenant.parts();
    let (tickets, next_cursor) = record::list(conn, schema, filter, &page).await?;
    Ok(AppJson(TicketList {
        tickets,
        next_cursor,
    }))
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
    let ticket = NewTicket::try_from(request)?;
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    check_references(
        &mut *conn,
        schema,
        ticket.assignee_id,
        ticket.conversation_id,
    )
    .await?;
    let (requester_id, mut recorded) = match &ticket.requester {
        Requester::ByEmail(contact) => {
            let upserted = contacts::upsert(&mut *conn, schema, contact).await?;
            let event = DomainEvent::contact_upserted(&upserted);
            (upserted.contact.id, event.into_iter().collect())
        }
        Requester::Contact(id) => (existing_contact(&mut *conn, schema, *id).await?, Vec::new()),
        Requester::OfConversation => {
            let conversation = ticket.conversation_id.ok_or_else(|| {
                Error::Internal(anyhow::anyhow!("a conversation's requester without one"))
            })?;
            let contact = conversations::contact_of(&mut *conn, schema, conversation)
                .await?
                .ok_or_else(|| {
                    Error::invalid_field("conversationId", "no such conversation in this workspace")
                })?;
            (contact, Vec::new())
        }
    };
    let id = record::insert(&mut *conn, schema, &ticket, requester_id).await?;
    let ticket = record::find(conn, schema, id)
        .await?
        .ok_or_else(|| Error::Internal(anyhow::anyhow!("ticket {id} vanished")))?;
    recorded.push(DomainEvent::TicketCreated(Box::new(ticket.clone())));
    events::record(&state, tenant, recorded).await?;
    Ok((StatusCode::CREATED, AppJson(ticket)))
}

/// The contact `id` of this workspace (400 naming `requester.contactId` otherwise). Contacts
/// are never deleted, so nothing needs locking.
async fn existing_contact(
    conn: &mut sqlx::PgConnection,
    schema: &TenantSchema,
    id: Uuid,
) -> Result<Uuid> {
    let found: Option<Uuid> =
        sqlx::query_scalar(schema.sql("SELECT id FROM {schema}.contacts WHERE id = $1"))
            .bind(id)
            .fetch_optional(conn)
            .await?;
    found.ok_or_else(|| {
        Error::invalid_field("requester.contactId", "no such contact in this workspace")
    })
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
pub async fn get(PathId { id, .. }: PathId<Ticket>, mut tenant: Tenant) -> Result<AppJson<Ticket>> {
    let (conn, schema) = tenant.parts();
    let ticket = record::find(conn, schema, id)
        .await?
        .ok_or(Error::NotFound("ticket"))?;
    Ok(AppJson(ticket))
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
    ticket: PathId<Ticket>,
    AppJson(patch): AppJson<TicketPatch>,
) -> Result<AppJson<Ticket>> {
    let changes = Changes::try_from(patch)?;
    apply(&state, actor, ticket, changes).await
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
    ticket: PathId<Ticket>,
) -> Result<AppJson<Ticket>> {
    let changes = Changes {
        status: Some(TicketStatus::Resolved),
        ..Changes::default()
    };
    apply(&state, actor, ticket, changes).await
}

async fn apply(
    state: &AppState,
    actor: Actor,
    PathId { id, .. }: PathId<Ticket>,
    changes: Changes,
) -> Result<AppJson<Ticket>> {
    let mut tenant = TenantTx::begin(state, actor).await?;
    let (conn, schema) = tenant.parts();
    let assignee_id = changes.assignee_id.flatten();
    let conversation_id = changes.conversation_id.flatten();
    check_references(&mut *conn, schema, assignee_id, conversation_id).await?;
    let ticket = record::update(conn, schema, id, changes)
        .await?
        .ok_or(Error::NotFound("ticket"))?;
    let updated = DomainEvent::TicketUpdated(Box::new(ticket.clone()));
    events::record(state, tenant, vec![updated]).await?;
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
    PathId { id, .. }: PathId<Ticket>,
    AppQuery(page): AppQuery<PageQuery>,
    mut tenant: Tenant,
) -> Result<AppJson<CommentList>> {
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
    PathId { id, .. }: PathId<Ticket>,
    AppJson(request): AppJson<CommentRequest>,
) -> Result<(StatusCode, AppJson<Comment>)> {
    let comment = NewComment::try_from(request)?;
    let mut tenant = TenantTx::begin(&state, actor.clone()).await?;
    let (conn, schema) = tenant.parts();
    let agent_id = acting_agent(&mut *conn, schema, &actor).await?;
    let comment = comments::add(conn, schema, id, &comment.body, agent_id)
        .await?
        .ok_or(Error::NotFound("ticket"))?;
    let created = DomainEvent::TicketCommentCreated(Box::new(TicketCommentCreated {
        ticket_id: id,
        comment: comment.clone(),
    }));
    events::record(&state, tenant, vec![created]).await?;
    Ok((StatusCode::CREATED, AppJson(comment)))
}
