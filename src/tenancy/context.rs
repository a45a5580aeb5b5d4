//! The only doors to a tenant's tables.
//!
//! Tenant statements name their schema in their text (`{schema}.table`, filled in by
//! [`TenantSchema::sql`] from the acting workspace), and pooled sessions have an empty
//! `search_path`, so nothing about a connection says which tenant it serves: a read is one
//! statement on a pooled connection, one round trip, and its plan stays cached for the next
//! request of the same tenant on that connection, whichever tenants it served in between.
//!
//! - [`Tenant`]: reads, on a pooled connection outside any transaction (each statement
//!   stands alone); [`Tenant::planned_read`] for the few whose plan depends on their values.
//! - [`TenantTx`]: writes (and reads that must see one snapshot), a transaction of
//!   qualified statements.
//!
//! Both can only be had for an [`Actor`], which only the authorization layer makes.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use futures::future::BoxFuture;
use sqlx::{Connection, PgConnection, Postgres, Transaction};
use supportdesk_core::db::{self, ReadConnection};
use supportdesk_core::tenancy::TenantSchema;

use crate::authz::Actor;
use crate::error::Error;
use crate::state::AppState;

/// How [`Tenant::planned_read`] begins: a read-only transaction whose statements are planned
/// for the values they are given.
pub const PLANNED_FOR_VALUES: &str =
    "BEGIN READ ONLY; SET LOCAL plan_cache_mode = force_custom_plan";

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

    /// Runs `read` planned for the values it is given, for the few statements whose best plan
    /// depends on them: a search's words (a rare word is looked up in its GIN index, a
    /// common one found by walking the newest rows until enough match) and a label's
    /// conversations (a label on one conversation in 500 is read first; one on every tenth
    /// is checked while the activity index is walked). The pool's sessions cache one
    /// generic plan per statement, which cannot see the values; here the statements run in a
    /// read-only transaction with `SET LOCAL plan_cache_mode = force_custom_plan` (so a
    /// transaction-mode pooler sees no session state), planned anew each time.
    ///
    /// In a task of its own, which owns the connection: if the request is dropped while
    /// `BEGIN` is on the wire, sqlx 0.9.0 has not yet counted the transaction (see
    /// `supportdesk_core::db::begin`), and the connection would go back to the pool inside
    /// it. The task always ends the transaction before the connection is returned.
    pub async fn planned_read<T, F>(self, read: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c mut PgConnection, &'c TenantSchema) -> BoxFuture<'c, sqlx::Result<T>>
            + Send
            + 'static,
    {
        let Self { mut conn, actor } = self;
        let task = tokio::spawn(async move {
            let mut tx = (*conn).begin_with(PLANNED_FOR_VALUES).await?;
            let read = read(&mut tx, &actor.schema).await?;
            tx.commit().await?;
            Ok::<T, sqlx::Error>(read)
        });
        task.await
            .map_err(|e| Error::from(sqlx::Error::Io(std::io::Error::other(e))))?
            .map_err(Error::from)
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
