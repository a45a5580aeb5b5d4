//! The request's workspace: who is acting in which tenant, and the only door to its tables.
//!
//! `WorkspaceAccess` checks the workspace token and the caller's *current* membership (cached,
//! see `membership`), so a deactivated member or a deleted workspace is refused on the next
//! request whatever the token says. `TenantTx` adds a transaction whose `search_path` is that
//! tenant's schema and nothing else, begun with a single round trip
//! (`BEGIN; SET LOCAL search_path TO ...`). Being `LOCAL`, the setting ends with the
//! transaction: on commit, on error, and when axum drops a handler whose client went away
//! (the pool rolls a dropped transaction back before the connection is reused). Handlers get
//! tenant data only through a `TenantTx`; control-plane SQL names `public.` explicitly.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use sqlx::{PgConnection, Postgres, Transaction};

use crate::db;
use uuid::Uuid;

use crate::auth::extract::bearer_claims;
use crate::auth::jwt::TokenKind;
use crate::error::Error;
use crate::state::AppState;
use crate::tenancy::membership::Membership;
use crate::workspaces::Role;

/// An authorised member acting in a workspace.
#[derive(Debug, Clone)]
pub struct WorkspaceAccess {
    pub user_id: Uuid,
    pub membership: Arc<Membership>,
}

impl WorkspaceAccess {
    pub fn workspace_id(&self) -> Uuid {
        self.membership.workspace_id
    }

    pub fn role(&self) -> Role {
        self.membership.role
    }

    /// Owners only (the spec's permission table).
    pub fn require_owner(&self) -> Result<(), Error> {
        if self.role().is_owner() {
            Ok(())
        } else {
            Err(Error::forbidden(
                "owner_only",
                "only a workspace owner may do this",
            ))
        }
    }
}

impl FromRequestParts<AppState> for WorkspaceAccess {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let claims = bearer_claims(parts, state)?;
        let (TokenKind::Workspace, Some(workspace_id)) = (claims.kind, claims.tid) else {
            return Err(Error::forbidden(
                "wrong_token_type",
                "workspace data needs a workspace token: select a workspace first",
            ));
        };
        let membership = state
            .memberships
            .get(&state.db, claims.sub, workspace_id)
            .await
            .map_err(|e| match &*e {
                sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => {
                    Error::Unavailable("the database is unavailable; try again shortly")
                }
                _ => Error::Internal(anyhow::anyhow!("membership lookup: {e}")),
            })?
            .ok_or_else(|| {
                Error::forbidden(
                    "not_a_member",
                    "you are no longer a member of this workspace",
                )
            })?;
        if !membership.workspace_active {
            return Err(Error::forbidden(
                "workspace_deleted",
                "this workspace has been deleted",
            ));
        }
        if !membership.schema_current {
            return Err(Error::Unavailable(
                "this workspace is being upgraded; try again shortly",
            ));
        }
        if !membership.active {
            return Err(Error::forbidden(
                "membership_deactivated",
                "your access to this workspace has been deactivated",
            ));
        }
        Ok(Self {
            user_id: claims.sub,
            membership,
        })
    }
}

/// A transaction bound to the caller's tenant schema. Reads may simply drop it (it rolls
/// back off the request path); writes must [`TenantTx::commit`].
pub struct TenantTx {
    tx: Transaction<'static, Postgres>,
    pub access: WorkspaceAccess,
}

impl TenantTx {
    pub async fn begin(state: &AppState, access: WorkspaceAccess) -> Result<Self, Error> {
        let statement = format!(
            "BEGIN; SET LOCAL search_path TO {}",
            access.membership.schema.quoted()
        );
        let tx = db::begin(&state.db, Some(statement)).await?;
        Ok(Self { tx, access })
    }

    pub fn conn(&mut self) -> &mut PgConnection {
        &mut self.tx
    }

    pub async fn commit(self) -> Result<(), Error> {
        self.tx.commit().await?;
        Ok(())
    }
}

impl FromRequestParts<AppState> for TenantTx {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let access = WorkspaceAccess::from_request_parts(parts, state).await?;
        Self::begin(state, access).await
    }
}
