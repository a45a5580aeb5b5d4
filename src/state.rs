//! What every handler can reach. One pointer: every request clones it (the authorization
//! layer and each extractor that needs it), so a clone is one reference count, not one per
//! field.

use std::ops::Deref;
use std::sync::Arc;

use sqlx::PgPool;
use supportdesk_core::config::{Settings, TrustedProxies};
use supportdesk_core::db::{EngineOf, ReadPool};
use supportdesk_core::email_tokens::EmailTokenKey;

use crate::credentials::jwt::JwtKeys;
use crate::credentials::password::PasswordHasher;
use crate::credentials::widget_identity::IdentityKey;
use crate::events::publisher::Publisher;
use crate::extract::HasTrustedProxies;
use crate::hub::Hub;
use crate::memberships::MembershipCache;
use crate::rate_limit::RateLimiter;

#[derive(Clone)]
pub struct AppState(Arc<Shared>);

pub struct Shared {
    pub db: PgPool,
    /// PostgreSQL or Citus: how a reply appends its event.
    pub engine: EngineOf,
    /// Tenant reads (`tenancy::context::Tenant`).
    pub reads: ReadPool,
    pub jwt: JwtKeys,
    pub passwords: PasswordHasher,
    pub rate_limiter: RateLimiter,
    pub email_tokens: EmailTokenKey,
    /// Derives the chat widget's identity secrets.
    pub widget_identity: IdentityKey,
    pub memberships: MembershipCache,
    /// The chat hub's connections, events and presence.
    pub hub: Hub,
    /// Hands committed events to this process's subscribers (the hub).
    pub events: Publisher,
    pub settings: Arc<Settings>,
    /// Attachments' store, link key and upload limits.
    pub files: Arc<crate::attachments::Files>,
    /// The widget's "we usually reply in ...", per workspace.
    pub reply_times: crate::reply_times::ReplyTimes,
}

impl AppState {
    pub fn new(shared: Shared) -> Self {
        Self(Arc::new(shared))
    }
}

impl Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl HasTrustedProxies for AppState {
    fn trusted_proxies(&self) -> &TrustedProxies {
        &self.settings.application.trusted_proxies
    }
}
