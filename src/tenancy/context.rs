//! The only door to a tenant's tables.
//!
//! `TenantTx` is a transaction whose `search_path` is the acting workspace's schema and
//! nothing else, begun with a single round trip (`BEGIN; SET LOCAL search_path TO ...`).
//! Being `LOCAL`, the setting ends with the transaction: on commit, on error, and when axum
//! drops a handler whose client went away (the pool rolls a dropped transaction back before
//! the connection is reused). It can only be opened for an [`Actor`], which only the
//! authorization layer makes. Control-plane SQL inside it names `public.` explicitly.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use sqlx::{PgConnection, Postgres, Transaction};

use crate::authz::Actor;
use crate::db;
use crate::error::Error;
use crate::state::AppState;

/// A transaction bound to the caller's tenant schema. Reads may simply drop it (it rolls
/// back off the request path); writes must [`TenantTx::commit`].
pub struct TenantTx {
    tx: Transaction<'static, Postgres>,
    pub actor: Actor,
}

impl TenantTx {
    pub async fn begin(state: &AppState, actor: Actor) -> Result<Self, Error> {
        let statement = format!("BEGIN; SET LOCAL search_path TO {}", actor.schema.quoted());
        let tx = db::begin(&state.db, Some(statement)).await?;
        Ok(Self { tx, actor })
    }

    pub fn conn(&mut self) -> &mut PgConnection {
        &mut self.tx
    }

    pub async fn commit(self) -> Result<(), Error> {
        self.tx.commit().await?;
        Ok(())
    }
}

/// For routes without a body. Routes with one take the [`Actor`] and the body first, and
/// begin afterwards, so no connection is held while a slow client uploads.
impl FromRequestParts<AppState> for TenantTx {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let actor = Actor::from_request_parts(parts, state).await?;
        Self::begin(state, actor).await
    }
}
