//! `/api/labels*`: every member lists them, Owners keep the set; agents set a conversation's
//! labels (`PUT /api/conversations/{id}/labels`).
//!
//! Request bodies and their checks are in `requests`; the 401 and 403 of each rule in
//! `MemberErrors` and `OwnerErrors`; 400, 404 and the rest in `crate::openapi`.

use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use crate::authz::Actor;
use crate::contacts::{self, ContactDetails};
use crate::conversations::record::{self as conversations, Conversation, Reader};
use crate::error::responses::{MemberErrors, OwnerErrors};
use crate::error::{Error, Problem, Result};
use crate::events;
use crate::events::catalogue::{ConversationChange, ConversationChanged, DomainEvent};
use crate::extract::{AppJson, PathId};
use crate::labels::record::{self, Label, Labelled};
use crate::labels::requests::{self, CreateLabel, LabelChanges, LabelPatch, NewLabel, SetLabels};
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};

#[derive(Serialize, ToSchema)]
pub struct LabelList {
    /// By name; a workspace keeps at most 500.
    pub labels: Vec<Label>,
}

/// The workspace's labels, by name.
#[utoipa::path(
    get, path = "/api/labels", tag = "labels",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Every label of the workspace", body = LabelList),
        MemberErrors,
    )
)]
pub async fn list(mut tenant: Tenant) -> Result<AppJson<LabelList>> {
    let (conn, schema) = tenant.parts();
    let labels = record::list(conn, schema).await?;
    Ok(AppJson(LabelList { labels }))
}

/// Create a label (Owners).
#[utoipa::path(
    post, path = "/api/labels", tag = "labels",
    security(("bearer" = [])),
    request_body = CreateLabel,
    responses(
        (status = 201, description = "The new label", body = Label),
        OwnerErrors,
        (status = 409, description = "The name is taken (`label_name_taken`), or the workspace has 500 labels (`label_limit`)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create(
    State(state): State<AppState>,
    actor: Actor,
    AppJson(request): AppJson<CreateLabel>,
) -> Result<(StatusCode, AppJson<Label>)> {
    let new = NewLabel::try_from(request)?;
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    let label = record::insert(
        conn,
        schema,
        &new.name,
        &new.color,
        new.description.as_deref(),
    )
    .await?;
    tenant.commit().await?;
    Ok((StatusCode::CREATED, AppJson(label)))
}

/// Rename, recolour or redescribe a label (Owners); fields left out stay as they are.
#[utoipa::path(
    patch, path = "/api/labels/{id}", tag = "labels",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Label id")),
    request_body = LabelPatch,
    responses(
        (status = 200, description = "The updated label", body = Label),
        OwnerErrors,
        (status = 409, description = "The name is taken", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn update(
    State(state): State<AppState>,
    actor: Actor,
    PathId { id, .. }: PathId<Label>,
    AppJson(patch): AppJson<LabelPatch>,
) -> Result<AppJson<Label>> {
    let changes = LabelChanges::try_from(patch)?;
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    let label = record::update(
        conn,
        schema,
        id,
        changes.name.as_deref(),
        changes.color.as_deref(),
        changes.description.as_ref().map(Option::as_deref),
    )
    .await?
    .ok_or(Error::NotFound("label"))?;
    tenant.commit().await?;
    Ok(AppJson(label))
}

/// Delete a label (Owners): it comes off every conversation.
#[utoipa::path(
    delete, path = "/api/labels/{id}", tag = "labels",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Label id")),
    responses(
        (status = 204, description = "Deleted"),
        OwnerErrors,
    )
)]
pub async fn delete(PathId { id, .. }: PathId<Label>, mut tenant: TenantTx) -> Result<StatusCode> {
    let (conn, schema) = tenant.parts();
    if !record::delete(conn, schema, id).await? {
        return Err(Error::NotFound("label"));
    }
    tenant.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Set a conversation's labels, replacing the set: a `conversation.updated` event (change
/// `labels`) tells everyone.
#[utoipa::path(
    put, path = "/api/conversations/{id}/labels", tag = "labels",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Conversation id")),
    request_body = SetLabels,
    responses(
        (status = 200, description = "The conversation with its labels", body = Conversation),
        MemberErrors,
    )
)]
pub async fn set_conversation_labels(
    State(state): State<AppState>,
    actor: Actor,
    PathId { id, .. }: PathId<Conversation>,
    AppJson(request): AppJson<SetLabels>,
) -> Result<AppJson<Conversation>> {
    let label_ids = requests::label_ids(request)?;
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    if !record::set_labels(&mut *conn, schema, Labelled::Conversation, id, &label_ids).await? {
        return Err(Error::NotFound("conversation"));
    }
    let conversation = conversations::find(conn, schema, id, Reader(None))
        .await?
        .ok_or(Error::NotFound("conversation"))?;
    let updated = DomainEvent::ConversationUpdated(Box::new(ConversationChanged {
        change: ConversationChange::Labels,
        conversation: conversation.clone(),
    }));
    events::record(&state, tenant, vec![updated]).await?;
    Ok(AppJson(conversation))
}

/// Set a contact's labels, replacing the set: a `contact.updated` event tells everyone.
#[utoipa::path(
    put, path = "/api/contacts/{id}/labels", tag = "labels",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Contact id")),
    request_body = SetLabels,
    responses(
        (status = 200, description = "The contact with its labels", body = ContactDetails),
        MemberErrors,
    )
)]
pub async fn set_contact_labels(
    State(state): State<AppState>,
    actor: Actor,
    PathId { id, .. }: PathId<ContactDetails>,
    AppJson(request): AppJson<SetLabels>,
) -> Result<AppJson<ContactDetails>> {
    let label_ids = requests::label_ids(request)?;
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    if !record::set_labels(&mut *conn, schema, Labelled::Contact, id, &label_ids).await? {
        return Err(Error::NotFound("contact"));
    }
    let contact = contacts::find(conn, schema, id)
        .await?
        .ok_or(Error::NotFound("contact"))?;
    let updated = DomainEvent::ContactUpdated(contact.contact.clone());
    events::record(&state, tenant, vec![updated]).await?;
    Ok(AppJson(contact))
}
