//! `/workspaces` (user token): create, list, select; `/api/workspace` (workspace token): the
//! current workspace, and deleting it.
//!
//! The 401 and 403 of each kind of caller check are in `crate::error::responses`; 400, 404
//! and the rest of what every route shares in `crate::openapi`.

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use supportdesk_core::outbox::{self, OutboxMessage};
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::{self, Action, Entry};
use crate::auth::extract::UserToken;
use crate::authz::Actor;
use crate::authz::Role;
use crate::error::responses::{MemberErrors, OwnerErrors, UserTokenErrors};
use crate::error::{Error, FieldChecks, Problem, Result};
use crate::extract::{AppJson, ClientIp, PathId, Resource};
use crate::memberships::{MembershipSummary, memberships_of};
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;
use crate::tenancy::context::Tenant;
use crate::workspace_settings::{self, Branding};
use crate::workspaces::provision::{OwnershipLimits, create_workspace};
use crate::workspaces::slug::Slug;

const NAME_MAX_CHARS: usize = 100;

#[derive(Deserialize, ToSchema)]
pub struct CreateWorkspaceRequest {
    #[schema(example = "Acme Support")]
    name: String,
    /// Lower-case `[a-z0-9-]{3,48}`; derived from the name when absent.
    #[schema(example = "acme")]
    slug: Option<String>,
}

/// The name and slug a new workspace asks for, checked; no slug: derive one from the name.
struct Naming {
    name: String,
    slug: Option<Slug>,
}

impl TryFrom<CreateWorkspaceRequest> for Naming {
    type Error = Error;

    fn try_from(request: CreateWorkspaceRequest) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let name = request.name.trim().to_owned();
        if name.is_empty() {
            checks.add("name", "is required");
        } else if name.chars().count() > NAME_MAX_CHARS {
            checks.add(
                "name",
                format!("must be at most {NAME_MAX_CHARS} characters"),
            );
        }
        let slug = request
            .slug
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .and_then(|s| checks.check("slug", Slug::parse(s)));
        if !checks.is_empty() {
            return Err(checks.failed());
        }
        Ok(Self { name, slug })
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceCreated {
    pub id: Uuid,
    pub name: String,
    pub slug: String,
    pub role: Role,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

/// Create a workspace (with its own schema); the caller becomes its owner.
#[utoipa::path(
    post, path = "/workspaces", tag = "workspaces",
    security(("bearer" = [])),
    request_body = CreateWorkspaceRequest,
    responses(
        (status = 201, description = "Created and provisioned", body = WorkspaceCreated),
        (status = 401, description = "Missing or invalid user token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A workspace token instead of a user token; an unverified account that already owns a workspace (`email_not_verified`); the per-account cap (`workspace_limit_reached`, `MAX_WORKSPACES_PER_USER`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The slug is taken", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "More than `WORKSPACE_CREATES_PER_HOUR` created by this account in an hour; see Retry-After", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create(
    State(state): State<AppState>,
    UserToken { user_id, .. }: UserToken,
    AppJson(request): AppJson<CreateWorkspaceRequest>,
) -> Result<(StatusCode, AppJson<WorkspaceCreated>)> {
    let Naming { name, slug } = Naming::try_from(request)?;
    if let Some(limit) = state.settings.application.workspace_creates_per_hour {
        let quota = Quota {
            limit,
            window: Duration::from_secs(3600),
        };
        if let Decision::Limited { retry_after } = state
            .rate_limiter
            .check(&format!("workspace-create:{user_id}"), quota)
            .await
        {
            return Err(Error::TooManyRequests { retry_after });
        }
    }
    let limits = OwnershipLimits {
        max_owned: state.settings.application.max_workspaces_per_user,
    };
    let workspace = create_workspace(&state.db, &name, slug, user_id, Some(limits)).await?;
    state.memberships.changed(user_id, workspace.id).await;
    tracing::info!(workspace_id = %workspace.id, "workspace created");
    Ok((
        StatusCode::CREATED,
        AppJson(WorkspaceCreated {
            id: workspace.id,
            name: workspace.name,
            slug: workspace.slug.to_string(),
            role: Role::Owner,
            created_at: workspace.created_at,
        }),
    ))
}

#[derive(Serialize, ToSchema)]
pub struct WorkspaceList {
    pub workspaces: Vec<MembershipSummary>,
}

/// The workspaces the caller is an active member of.
#[utoipa::path(
    get, path = "/workspaces", tag = "workspaces",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Active memberships", body = WorkspaceList),
        UserTokenErrors,
    )
)]
pub async fn list(
    State(state): State<AppState>,
    UserToken { user_id, .. }: UserToken,
) -> Result<AppJson<WorkspaceList>> {
    Ok(AppJson(WorkspaceList {
        workspaces: memberships_of(&state.db, user_id).await?,
    }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Selected {
    /// Workspace token (JWT, one hour) carrying the tenant id and role.
    pub token: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub expires_at: OffsetDateTime,
    pub workspace: MembershipSummary,
}

/// A workspace as a user-token route names it: a kind of record for `PathId`, never a value.
pub enum Workspace {}

impl Resource for Workspace {
    const NAME: &'static str = "workspace";
}

/// Exchange the user token for a workspace token scoped to workspace `id`.
#[utoipa::path(
    post, path = "/workspaces/{id}/select", tag = "workspaces",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Workspace id")),
    responses(
        (status = 200, description = "A workspace token", body = Selected),
        (status = 401, description = "Missing or invalid user token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Membership deactivated, or a workspace token was sent", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn select(
    State(state): State<AppState>,
    client: ClientIp,
    UserToken { user_id, .. }: UserToken,
    PathId {
        id: workspace_id, ..
    }: PathId<Workspace>,
) -> Result<AppJson<Selected>> {
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    let row: Option<SelectedRow> = sqlx::query_as(
        "SELECT w.name, w.slug, w.schema_name, m.role, m.status, u.token_version
           FROM public.memberships m JOIN public.workspaces w ON w.id = m.workspace_id
           JOIN public.users u ON u.id = m.user_id
          WHERE m.user_id = $1 AND m.workspace_id = $2 AND w.status = 'active'",
    )
    .bind(user_id)
    .bind(workspace_id)
    .fetch_optional(&mut *tx)
    .await?;
    let row = row.ok_or(Error::NotFound("workspace"))?;
    if row.status != "active" {
        return Err(Error::forbidden(
            "membership_deactivated",
            "your access to this workspace has been deactivated",
        ));
    }
    let issued = state
        .jwt
        .issue_workspace(user_id, workspace_id, row.role, row.token_version)?;
    // A workspace token is a sign-in to the workspace: recorded with the token it issued.
    let schema = TenantSchema::parse(&row.schema_name).map_err(|e| anyhow::anyhow!(e))?;
    let entry = Entry::new(
        audit::By::User(user_id),
        Some(client),
        Action::SignedIn,
        "workspace",
        workspace_id,
    )
    .changes(json!({ "role": row.role }));
    audit::record(&mut tx, &schema, entry).await?;
    tx.commit().await?;
    Ok(AppJson(Selected {
        token: issued.token,
        expires_at: issued.expires_at,
        workspace: MembershipSummary {
            id: workspace_id,
            name: row.name,
            slug: row.slug,
            role: row.role,
        },
    }))
}

#[derive(sqlx::FromRow)]
struct SelectedRow {
    name: String,
    slug: String,
    schema_name: String,
    role: Role,
    status: String,
    token_version: i32,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CurrentWorkspace {
    pub id: Uuid,
    pub name: String,
    pub slug: String,
    /// The caller's role here.
    pub role: Role,
    /// Branding settings (name, colour, logo URL, widget greeting).
    pub branding: Branding,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

/// The workspace the token is scoped to.
#[utoipa::path(
    get, path = "/api/workspace", tag = "workspaces",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The current workspace", body = CurrentWorkspace),
        MemberErrors,
    )
)]
pub async fn current(mut tenant: Tenant) -> Result<AppJson<CurrentWorkspace>> {
    let workspace_id = tenant.actor.workspace_id;
    let role = tenant.actor.role();
    let (conn, schema) = tenant.parts();
    let workspace = sqlx::query!(
        "SELECT id, name, slug, created_at FROM public.workspaces WHERE id = $1",
        workspace_id,
    )
    .fetch_one(&mut *conn)
    .await?;
    let branding = workspace_settings::load(conn, schema, false)
        .await?
        .branding;
    Ok(AppJson(CurrentWorkspace {
        id: workspace.id,
        name: workspace.name,
        slug: workspace.slug,
        role,
        branding,
        created_at: workspace.created_at,
    }))
}

/// Delete the workspace (owner only): it stops accepting tokens at once, and a background
/// job drops its data.
#[utoipa::path(
    delete, path = "/api/workspace", tag = "workspaces",
    security(("bearer" = [])),
    responses(
        (status = 202, description = "Deletion accepted"),
        OwnerErrors,
    )
)]
pub async fn delete(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
) -> Result<StatusCode> {
    let workspace_id = actor.workspace_id;
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    let marked = sqlx::query!(
        "UPDATE public.workspaces SET status = 'deleting' WHERE id = $1 AND status = 'active'",
        workspace_id,
    )
    .execute(&mut *tx)
    .await?;
    if marked.rows_affected() == 1 {
        // Kept until the worker drops the workspace's schema, and in the logs.
        let entry = Entry::new(
            &actor,
            Some(client),
            Action::WorkspaceDeletionRequested,
            "workspace",
            workspace_id,
        );
        audit::record(&mut tx, &actor.schema, entry).await?;
        outbox::enqueue(&mut tx, &OutboxMessage::DropWorkspace { workspace_id }).await?;
    }
    // Committed and told together, whether or not the client waits (see `agents::routes`).
    let memberships = state.memberships.clone();
    tokio::spawn(async move {
        tx.commit().await?;
        memberships.workspace_changed(workspace_id).await;
        Ok::<_, Error>(())
    })
    .await
    .map_err(|e| Error::Internal(e.into()))??;
    tracing::info!(%workspace_id, "workspace deletion requested");
    Ok(StatusCode::ACCEPTED)
}
