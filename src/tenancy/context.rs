//! The only doors to a tenant's tables.
//!
//! Tenant statements name their schema in their text (`{schema}.table`, filled in by
//! [`TenantSchema::sql`] from the acting workspace), and pooled sessions have an empty
//! `search_path`, so nothing about a connection says which tenant it serves: a read is one
//! statement on a pooled connection, one round trip, and its plan stays cached for the next
//! request of the same tenant on that connection, whichever tenants it served in between.
//!
//! - [`Tenant`]: reads, on a pooled connection outside any transaction (each statement
//!   stands alone).
//! - [`TenantTx`]: writes (and reads that must see one snapshot), a transaction of
//!   qualified statements.
//!
//! Both can only be had for an [`Actor`], which only the authorization layer makes.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use sqlx::{PgConnection, Postgres, Transaction};
use supportdesk_core::db::{self, ReadConnection};
use supportdesk_core::tenancy::TenantSchema;

use crate::authz::Actor;
use crate::error::Error;
use crate::state::AppState;

/// The acting workspace's tables, for reads: a connection of the read pool, no transaction.
pub struct Tenant {
    conn: ReadConnection,
    pub actor: Actor,
}

impl Tenant {
    pub async fn acquire(state: &AppState, actor: Actor) -> Result<Self, Error> {
        let conn = state.reads.get(&actor.schema).await?;
        Ok(Self { conn, actor })
    }

    pub fn schema(&self) -> &TenantSchema {
        &self.actor.schema
    }

    /// The connection and the schema together, for a statement that needs both.
    pub fn parts(&mut self) -> (&mut PgConnection, &TenantSchema) {
        (&mut self.conn, &self.actor.schema)
    }
}

impl FromRequestParts<AppState> for Tenant {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let actor = Actor::from_request_parts(parts, state).await?;
        Self::acquire(state, actor).await
    }
}

/// A transaction in the acting workspace. Writes must [`TenantTx::commit`]; dropped, it rolls
/// back before its connection is reused.
pub struct TenantTx {
    tx: Transaction<'static, Postgres>,
    pub actor: Actor,
}

impl TenantTx {
    pub async fn begin(state: &AppState, actor: Actor) -> Result<Self, Error> {
        let tx = db::begin(&state.db, None).await?;
        Ok(Self { tx, actor })
    }

    pub fn conn(&mut self) -> &mut PgConnection {
        &mut self.tx
    }

    pub fn schema(&self) -> &TenantSchema {
        &self.actor.schema
    }

    /// The connection and the schema together, for a statement that needs both.
    pub fn parts(&mut self) -> (&mut PgConnection, &TenantSchema) {
        (&mut self.tx, &self.actor.schema)
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
