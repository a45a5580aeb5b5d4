//! `/api/views*`: every member lists their views and the shared ones, with counts, and keeps
//! their own; shared views are the Owners' to make, change and delete. Another agent's
//! personal view is not there (404).

use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::authz::{Actor, Permission};
use crate::conversations::filters::InboxFilters;
use crate::error::responses::MemberErrors;
use crate::error::{Error, Problem, Result};
use crate::extract::{AppJson, PathId, Resource};
use crate::inbox::assignee::acting_agent;
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};
use crate::views::record::{self, ViewRow};
use crate::views::requests::{CreateView, NewView, ViewChanges, ViewPatch};

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SavedView {
    pub id: Uuid,
    pub name: String,
    /// Seen by the whole workspace (kept by Owners); else the caller's own.
    pub shared: bool,
    pub filters: InboxFilters,
    /// Its place in its list.
    pub position: i32,
    /// The conversations it holds for the caller now, at most 1,000.
    pub count: i64,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl Resource for SavedView {
    const NAME: &'static str = "view";
}

impl SavedView {
    fn new(row: ViewRow, count: i64) -> Self {
        Self {
            id: row.id,
            name: row.name,
            shared: row.owner_id.is_none(),
            filters: row.filters.0,
            position: row.position,
            count,
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct ViewList {
    /// The shared views, then the caller's own, each list in its order.
    pub views: Vec<SavedView>,
}

/// The rows with their counts for the member `user_id`, agent `me`.
async fn with_counts(
    conn: &mut sqlx::PgConnection,
    schema: &supportdesk_core::tenancy::TenantSchema,
    user_id: Uuid,
    me: Uuid,
    rows: Vec<ViewRow>,
) -> Result<Vec<SavedView>> {
    let filters = rows
        .iter()
        .map(|row| row.filters.0.for_agent(Some(me)))
        .collect::<Result<Vec<_>>>()?;
    let counts = record::counts(conn, schema, user_id, &filters).await?;
    Ok(rows
        .into_iter()
        .zip(counts)
        .map(|(row, count)| SavedView::new(row, count))
        .collect())
}

/// The caller's views and the shared ones, with how many conversations each holds.
#[utoipa::path(
    get, path = "/api/views", tag = "views",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The views", body = ViewList),
        MemberErrors,
    )
)]
pub async fn list(mut tenant: Tenant) -> Result<AppJson<ViewList>> {
    let actor = tenant.actor.clone();
    let user_id = actor.member_id()?;
    let (conn, schema) = tenant.parts();
    let me = acting_agent(&mut *conn, schema, &actor).await?;
    let rows = record::list(&mut *conn, schema, me).await?;
    let views = with_counts(conn, schema, user_id, me, rows).await?;
    Ok(AppJson(ViewList { views }))
}

/// Shared views are the Owners' to keep.
fn may_keep_shared(actor: &Actor) -> Result<()> {
    if actor.may(Permission::ManageSettings) {
        Ok(())
    } else {
        Err(Error::forbidden(
            "owner_only",
            "only a workspace owner may keep shared views",
        ))
    }
}

/// The label and the agent the filters name must be the workspace's.
async fn check_names(
    conn: &mut sqlx::PgConnection,
    schema: &supportdesk_core::tenancy::TenantSchema,
    filters: &InboxFilters,
) -> Result<()> {
    let agent = filters.assignee.as_deref().and_then(|a| a.parse().ok());
    let (label_known, agent_known) =
        record::names_known(conn, schema, filters.label, agent).await?;
    if !label_known {
        return Err(Error::invalid_field(
            "filters.label",
            "names a label this workspace does not have",
        ));
    }
    if !agent_known {
        return Err(Error::invalid_field(
            "filters.assignee",
            "names an agent this workspace does not have",
        ));
    }
    Ok(())
}

/// Save a view: personal, or shared with the workspace (Owners).
#[utoipa::path(
    post, path = "/api/views", tag = "views",
    security(("bearer" = [])),
    request_body = CreateView,
    responses(
        (status = 201, description = "The new view", body = SavedView),
        MemberErrors,
        (status = 409, description = "The list has 50 views (`view_limit`)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create(
    State(state): State<AppState>,
    actor: Actor,
    AppJson(request): AppJson<CreateView>,
) -> Result<(StatusCode, AppJson<SavedView>)> {
    let new = NewView::try_from(request)?;
    if new.shared {
        may_keep_shared(&actor)?;
    }
    let user_id = actor.member_id()?;
    let mut tenant = TenantTx::begin(&state, actor.clone()).await?;
    let (conn, schema) = tenant.parts();
    check_names(&mut *conn, schema, &new.filters).await?;
    let me = acting_agent(&mut *conn, schema, &actor).await?;
    let owner = (!new.shared).then_some(me);
    let row = record::insert(&mut *conn, schema, owner, &new.name, &new.filters).await?;
    let mut views = with_counts(conn, schema, user_id, me, vec![row]).await?;
    tenant.commit().await?;
    let view = views.pop().ok_or(Error::NotFound("view"))?;
    Ok((StatusCode::CREATED, AppJson(view)))
}

/// Rename, refilter, reorder, share or unshare a view; fields left out stay as they are.
#[utoipa::path(
    patch, path = "/api/views/{id}", tag = "views",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "View id")),
    request_body = ViewPatch,
    responses(
        (status = 200, description = "The updated view", body = SavedView),
        MemberErrors,
    )
)]
pub async fn update(
    State(state): State<AppState>,
    actor: Actor,
    PathId { id, .. }: PathId<SavedView>,
    AppJson(patch): AppJson<ViewPatch>,
) -> Result<AppJson<SavedView>> {
    let changes = ViewChanges::try_from(patch)?;
    let user_id = actor.member_id()?;
    let mut tenant = TenantTx::begin(&state, actor.clone()).await?;
    let (conn, schema) = tenant.parts();
    let me = acting_agent(&mut *conn, schema, &actor).await?;
    let mut view = record::find_for_update(&mut *conn, schema, id, me)
        .await?
        .ok_or(Error::NotFound("view"))?;
    let shared = changes.shared.unwrap_or(view.owner_id.is_none());
    if shared || view.owner_id.is_none() {
        may_keep_shared(&actor)?;
    }
    if let Some(filters) = changes.filters {
        check_names(&mut *conn, schema, &filters).await?;
        view.filters.0 = filters;
    }
    if let Some(name) = changes.name {
        view.name = name;
    }
    if let Some(position) = changes.position {
        view.position = position;
    }
    view.owner_id = (!shared).then_some(me);
    let row = record::update(&mut *conn, schema, &view).await?;
    let mut views = with_counts(conn, schema, user_id, me, vec![row]).await?;
    tenant.commit().await?;
    let view = views.pop().ok_or(Error::NotFound("view"))?;
    Ok(AppJson(view))
}

/// Delete a view: one's own, or a shared one (Owners).
#[utoipa::path(
    delete, path = "/api/views/{id}", tag = "views",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "View id")),
    responses(
        (status = 204, description = "Deleted"),
        MemberErrors,
    )
)]
pub async fn delete(
    State(state): State<AppState>,
    actor: Actor,
    PathId { id, .. }: PathId<SavedView>,
) -> Result<StatusCode> {
    let mut tenant = TenantTx::begin(&state, actor.clone()).await?;
    let (conn, schema) = tenant.parts();
    let me = acting_agent(&mut *conn, schema, &actor).await?;
    let view = record::find_for_update(&mut *conn, schema, id, me)
        .await?
        .ok_or(Error::NotFound("view"))?;
    if view.owner_id.is_none() {
        may_keep_shared(&actor)?;
    }
    record::delete(conn, schema, id).await?;
    tenant.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}
