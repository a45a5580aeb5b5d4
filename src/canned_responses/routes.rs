//! `/api/canned-responses*`: every member lists, searches and renders them; Owners write them.
//!
//! Request bodies and their checks are in `requests`; the 401 and 403 of each rule in
//! `MemberErrors` and `OwnerErrors`; 400, 404 and the rest of what every route shares in
//! `crate::openapi`.

use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use crate::authz::Actor;
use crate::canned_responses::record::{self, CannedResponse};
use crate::canned_responses::requests::{
    CannedResponseChanges, CannedResponsePatch, CreateCannedResponse, ListQuery, NewCannedResponse,
    RenderRequest,
};
use crate::canned_responses::template::{self, Values};
use crate::error::responses::{MemberErrors, OwnerErrors};
use crate::error::{Error, Problem, Result};
use crate::extract::{AppJson, AppQuery, PathId};
use crate::pagination::PageQuery;
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CannedResponseList {
    pub canned_responses: Vec<CannedResponse>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// The workspace's canned responses by short code, or those matching `q`.
#[utoipa::path(
    get, path = "/api/canned-responses", tag = "canned-responses",
    security(("bearer" = [])),
    params(ListQuery, PageQuery),
    responses(
        (status = 200, description = "Canned responses by short code, a page at a time", body = CannedResponseList),
        MemberErrors,
    )
)]
pub async fn list(
    AppQuery(query): AppQuery<ListQuery>,
    AppQuery(page): AppQuery<PageQuery>,
    mut tenant: Tenant,
) -> Result<AppJson<CannedResponseList>> {
    let page = page.parse()?;
    let search = query.q.as_deref().map(str::trim).filter(|q| !q.is_empty());
    let (conn, schema) = tenant.parts();
    let (canned_responses, next_cursor) = record::list(conn, schema, search, &page).await?;
    Ok(AppJson(CannedResponseList {
        canned_responses,
        next_cursor,
    }))
}

/// One canned response.
#[utoipa::path(
    get, path = "/api/canned-responses/{id}", tag = "canned-responses",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Canned response id")),
    responses(
        (status = 200, description = "The canned response", body = CannedResponse),
        MemberErrors,
    )
)]
pub async fn get(
    PathId { id, .. }: PathId<CannedResponse>,
    mut tenant: Tenant,
) -> Result<AppJson<CannedResponse>> {
    let (conn, schema) = tenant.parts();
    let canned = record::find(conn, schema, id)
        .await?
        .ok_or(Error::NotFound("canned response"))?;
    Ok(AppJson(canned))
}

/// Create a canned response (Owners).
#[utoipa::path(
    post, path = "/api/canned-responses", tag = "canned-responses",
    security(("bearer" = [])),
    request_body = CreateCannedResponse,
    responses(
        (status = 201, description = "The new canned response", body = CannedResponse),
        OwnerErrors,
        (status = 409, description = "The short code is taken", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create(
    State(state): State<AppState>,
    actor: Actor,
    AppJson(request): AppJson<CreateCannedResponse>,
) -> Result<(StatusCode, AppJson<CannedResponse>)> {
    let new = NewCannedResponse::try_from(request)?;
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    let canned = record::insert(conn, schema, &new.short_code, &new.title, &new.body).await?;
    tenant.commit().await?;
    Ok((StatusCode::CREATED, AppJson(canned)))
}

/// Change a canned response (Owners); fields left out stay as they are.
#[utoipa::path(
    patch, path = "/api/canned-responses/{id}", tag = "canned-responses",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Canned response id")),
    request_body = CannedResponsePatch,
    responses(
        (status = 200, description = "The updated canned response", body = CannedResponse),
        OwnerErrors,
        (status = 409, description = "The short code is taken", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn update(
    State(state): State<AppState>,
    actor: Actor,
    PathId { id, .. }: PathId<CannedResponse>,
    AppJson(patch): AppJson<CannedResponsePatch>,
) -> Result<AppJson<CannedResponse>> {
    let changes = CannedResponseChanges::try_from(patch)?;
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    let canned = record::update(
        conn,
        schema,
        id,
        changes.short_code.as_deref(),
        changes.title.as_deref(),
        changes.body.as_deref(),
    )
    .await?
    .ok_or(Error::NotFound("canned response"))?;
    tenant.commit().await?;
    Ok(AppJson(canned))
}

/// Delete a canned response (Owners).
#[utoipa::path(
    delete, path = "/api/canned-responses/{id}", tag = "canned-responses",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Canned response id")),
    responses(
        (status = 204, description = "Deleted"),
        OwnerErrors,
    )
)]
pub async fn delete(
    PathId { id, .. }: PathId<CannedResponse>,
    mut tenant: TenantTx,
) -> Result<StatusCode> {
    let (conn, schema) = tenant.parts();
    if !record::delete(conn, schema, id).await? {
        return Err(Error::NotFound("canned response"));
    }
    tenant.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Serialize, ToSchema)]
pub struct Rendered {
    /// The body with `{{contact.name}}` (empty when unknown), `{{agent.displayName}}` (the
    /// caller) and `{{workspace.name}}` filled in.
    pub body: String,
}

/// A person picks a canned response a few times a minute; a script rendering bodies in a loop
/// is refused long before it costs other workspaces anything.
const RENDER_QUOTA: Quota = Quota {
    limit: 120,
    window: std::time::Duration::from_secs(60),
};

/// A canned response filled in for a conversation, ready to send.
#[utoipa::path(
    post, path = "/api/canned-responses/{id}/render", tag = "canned-responses",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Canned response id")),
    request_body = RenderRequest,
    responses(
        (status = 200, description = "The filled-in body", body = Rendered),
        MemberErrors,
        (status = 429, description = "More than 120 renders a minute by this member; see Retry-After", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn render(
    State(state): State<AppState>,
    actor: Actor,
    PathId { id, .. }: PathId<CannedResponse>,
    AppJson(request): AppJson<RenderRequest>,
) -> Result<AppJson<Rendered>> {
    let user_id = actor.member_id()?;
    let workspace_id = actor.workspace_id;
    if let Decision::Limited { retry_after } = state
        .rate_limiter
        .check(&format!("render:{workspace_id}:{user_id}"), RENDER_QUOTA)
        .await
    {
        return Err(Error::TooManyRequests { retry_after });
    }
    let mut tenant = Tenant::acquire(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    // The tenant's values in one statement; the workspace's name from the control plane in
    // another, so that no tenant statement joins a table every tenant shares.
    let (body, agent_display_name, conversation_found, contact_name): (
        String,
        Option<String>,
        bool,
        Option<String>,
    ) = sqlx::query_as(schema.sql(
        "SELECT cr.body,
                (SELECT display_name FROM {schema}.agent_profiles WHERE user_id = $2),
                EXISTS (SELECT 1 FROM {schema}.conversations WHERE id = $3),
                (SELECT ct.name FROM {schema}.conversations c
                   JOIN {schema}.contacts ct ON ct.id = c.contact_id
                  WHERE c.id = $3)
           FROM {schema}.canned_responses cr WHERE cr.id = $1",
    ))
    .bind(id)
    .bind(user_id)
    .bind(request.conversation_id)
    .fetch_optional(&mut *conn)
    .await?
    .ok_or(Error::NotFound("canned response"))?;
    if !conversation_found {
        return Err(Error::invalid_field(
            "conversationId",
            "no such conversation in this workspace",
        ));
    }
    let workspace_name = sqlx::query_scalar!(
        "SELECT name FROM public.workspaces WHERE id = $1",
        workspace_id
    )
    .fetch_one(&mut *conn)
    .await?;
    let values = Values {
        contact_name: contact_name.as_deref().unwrap_or_default(),
        agent_display_name: agent_display_name.as_deref().unwrap_or_default(),
        workspace_name: &workspace_name,
    };
    Ok(AppJson(Rendered {
        body: template::render(&body, values),
    }))
}
