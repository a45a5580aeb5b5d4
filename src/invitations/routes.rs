//! `GET /api/invitations` and `DELETE /api/invitations/{id}` (Owners): the open invitations,
//! and revoking one (its link stops working at once).
//!
//! The 401 and 403 of the Owners' rule are in `OwnerErrors`; 400, 404 and the rest of what
//! every route shares in `crate::openapi`.

use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use crate::audit::{self, Action, Entry};
use crate::authz::Actor;
use crate::authz::Role;
use crate::error::responses::OwnerErrors;
use crate::error::{Error, Result};
use crate::extract::{AppJson, AppQuery, ClientIp, PathId};
use crate::invitations::{Invitation, InvitationStatus};
use crate::pagination::{Page, PageQuery, TimeKey};
use crate::state::AppState;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitationList {
    pub invitations: Vec<Invitation>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// Invitations not yet accepted or revoked, newest first (expired ones say so).
#[utoipa::path(
    get, path = "/api/invitations", tag = "team",
    security(("bearer" = [])),
    params(PageQuery),
    responses(
        (status = 200, description = "Open invitations, a page at a time", body = InvitationList),
        OwnerErrors,
    )
)]
pub async fn list(
    State(state): State<AppState>,
    actor: Actor,
    AppQuery(page): AppQuery<PageQuery>,
) -> Result<AppJson<InvitationList>> {
    let page: Page<TimeKey> = page.parse()?;
    let (after_at, after_id) = page.after.map(|TimeKey(at, id)| (at, id)).unzip();
    let rows = sqlx::query_as!(
        Invitation,
        r#"SELECT id, email, role AS "role: Role", invited_by, created_at, expires_at,
                  CASE WHEN expires_at <= now() THEN 'expired' ELSE 'pending' END
                    AS "status!: InvitationStatus"
             FROM public.invitations
            WHERE workspace_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL
              AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3))
            ORDER BY created_at DESC, id DESC
            LIMIT $4"#,
        actor.workspace_id,
        after_at,
        after_id,
        page.fetch(),
    )
    .fetch_all(&state.db)
    .await?;
    let (invitations, next_cursor) = page.finish(rows, |i| TimeKey(i.created_at, i.id));
    Ok(AppJson(InvitationList {
        invitations,
        next_cursor,
    }))
}

/// Revoke an open invitation.
#[utoipa::path(
    delete, path = "/api/invitations/{id}", tag = "team",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Invitation id")),
    responses(
        (status = 204, description = "Revoked"),
        OwnerErrors,
    )
)]
pub async fn revoke(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    PathId { id, .. }: PathId<Invitation>,
) -> Result<StatusCode> {
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    let revoked: Option<String> = sqlx::query_scalar(
        "UPDATE public.invitations SET revoked_at = now()
          WHERE id = $1 AND workspace_id = $2 AND accepted_at IS NULL AND revoked_at IS NULL
      RETURNING email",
    )
    .bind(id)
    .bind(actor.workspace_id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(email) = revoked else {
        return Err(Error::NotFound("invitation"));
    };
    let entry = Entry::new(
        &actor,
        Some(client),
        Action::InvitationRevoked,
        "invitation",
        id,
    )
    .changes(serde_json::json!({ "email": email }));
    audit::record(&mut tx, &actor.schema, entry).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}
