//! Workspaces (tenants): creating, listing, selecting and deleting them, and memberships as
//! far as the rest of the service needs them.

pub mod provision;
mod role;
mod routes;
pub mod slug;

pub use role::Role;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::authz::{Permission, RequireExt, Rule};
use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(routes::create, routes::list))
        .routes(routes!(routes::select))
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::current))
                .require(state, Rule::members(Permission::ViewWorkspace)),
        )
        .merge(
            OpenApiRouter::new()
                .routes(routes!(routes::delete))
                .require(state, Rule::members(Permission::DeleteWorkspace)),
        )
}

use serde::Serialize;
use sqlx::PgExecutor;
use utoipa::ToSchema;
use uuid::Uuid;

/// An element of `workspaces` in `/auth/me` and `GET /workspaces`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MembershipSummary {
    pub id: Uuid,
    pub name: String,
    pub slug: String,
    pub role: Role,
}

/// The user's active memberships in workspaces that are not being deleted, oldest first.
pub async fn memberships_of(
    db: impl PgExecutor<'_>,
    user_id: Uuid,
) -> sqlx::Result<Vec<MembershipSummary>> {
    let rows: Vec<(Uuid, String, String, String)> = sqlx::query_as(
        "SELECT w.id, w.name, w.slug, m.role
           FROM public.memberships m
           JOIN public.workspaces w ON w.id = m.workspace_id
          WHERE m.user_id = $1 AND m.status = 'active' AND w.status = 'active'
          ORDER BY m.created_at, w.id",
    )
    .bind(user_id)
    .fetch_all(db)
    .await?;
    rows.into_iter()
        .map(|(id, name, slug, role)| {
            let role = role
                .parse()
                .map_err(|e: String| sqlx::Error::Decode(e.into()))?;
            Ok(MembershipSummary {
                id,
                name,
                slug,
                role,
            })
        })
        .collect()
}
