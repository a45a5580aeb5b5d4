//! Who a visitor request comes from: a verified visitor token of a live workspace.
//!
//! A [`Visitor`] is made only here, from a token `JwtKeys::decode_visitor` accepted, and it
//! opens its workspace's tables only through [`VisitorTx`] and [`Visitor::read`], whose
//! statements are rendered from the token's workspace: a visitor reaches one workspace, and in
//! it the statements of this module's callers reach one contact.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use sqlx::{PgConnection, Postgres, Transaction};
use supportdesk_core::db::{self, ReadConnection};
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::migrations::latest_version;
use uuid::Uuid;

use crate::auth::extract::bearer;
use crate::authz::check_workspace;
use crate::credentials::jwt::TokenError;
use crate::error::{Error, Result};
use crate::hub::registry::VisitorIdentity;
use crate::state::AppState;

#[derive(Debug, Clone)]
pub struct Visitor {
    pub workspace_id: Uuid,
    pub schema: TenantSchema,
    /// The contact the visitor is (one per visitor id, or per identified external id).
    pub contact_id: Uuid,
    pub visitor_id: Uuid,
    /// The token's expiry (Unix seconds): a hub connection closes then.
    pub expires_at: i64,
}

/// The workspace a visitor token names, if it is still live.
pub async fn workspace_schema(state: &AppState, workspace_id: Uuid) -> Result<TenantSchema> {
    let row = sqlx::query!(
        "SELECT schema_name, status, schema_version FROM public.workspaces WHERE id = $1",
        workspace_id,
    )
    .fetch_optional(&state.db)
    .await?
    .ok_or(Error::Unauthorized("this chat is no longer available"))?;
    check_workspace(
        row.status == "active",
        row.schema_version >= latest_version(),
    )?;
    TenantSchema::parse(&row.schema_name).map_err(|e| Error::Internal(anyhow::anyhow!(e)))
}

impl Visitor {
    /// The visitor a bearer token names.
    pub async fn authenticate(state: &AppState, token: &str) -> Result<Self> {
        let claims = state.jwt.decode_visitor(token).map_err(|e| match e {
            TokenError::Expired => Error::Unauthorized("the token has expired"),
            TokenError::Invalid => Error::Unauthorized("the token is invalid"),
            TokenError::WrongAudience => Error::forbidden(
                "wrong_token_type",
                "this endpoint takes a widget visitor token (POST /widget/v1/sessions)",
            ),
        })?;
        let schema = workspace_schema(state, claims.tid).await?;
        Ok(Self {
            workspace_id: claims.tid,
            schema,
            contact_id: claims.sub,
            visitor_id: claims.vid,
            expires_at: claims.exp,
        })
    }

    /// The visitor holding a hub connection, re-checked for a call: its workspace still live.
    pub async fn of_connection(state: &AppState, who: &VisitorIdentity) -> Result<Self> {
        Ok(Self {
            workspace_id: who.workspace_id,
            schema: workspace_schema(state, who.workspace_id).await?,
            contact_id: who.contact_id,
            visitor_id: who.visitor_id,
            expires_at: i64::MAX,
        })
    }

    /// The hub's view of this visitor.
    pub fn identity(&self) -> VisitorIdentity {
        VisitorIdentity {
            workspace_id: self.workspace_id,
            contact_id: self.contact_id,
            visitor_id: self.visitor_id,
        }
    }

    /// A pooled connection for one read statement of the visitor's workspace.
    pub async fn read(&self, state: &AppState) -> Result<ReadConnection> {
        Ok(state.reads.get(&self.schema).await?)
    }
}

impl FromRequestParts<AppState> for Visitor {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        Self::authenticate(state, bearer(&parts.headers)?).await
    }
}

/// A transaction in the visitor's workspace (tenant statements qualified with its schema).
pub struct VisitorTx {
    tx: Transaction<'static, Postgres>,
    schema: TenantSchema,
}

impl VisitorTx {
    pub async fn begin(state: &AppState, schema: &TenantSchema) -> Result<Self> {
        let tx = db::begin(&state.db, None).await?;
        Ok(Self {
            tx,
            schema: schema.clone(),
        })
    }

    pub fn parts(&mut self) -> (&mut PgConnection, &TenantSchema) {
        (&mut self.tx, &self.schema)
    }

    pub async fn commit(self) -> Result<()> {
        self.tx.commit().await?;
        Ok(())
    }
}
