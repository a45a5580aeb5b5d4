//! What every handler can reach. Cheap to clone: everything inside is shared.

use std::sync::Arc;

use sqlx::PgPool;

use crate::auth::jwt::JwtKeys;
use crate::auth::password::PasswordHasher;
use crate::config::{Settings, TrustedProxies};
use crate::email_tokens::EmailTokenKey;
use crate::extract::HasTrustedProxies;
use crate::rate_limit::RateLimiter;
use crate::tenancy::membership::MembershipCache;

#[derive(Clone)]
pub struct AppState {
    pub db: PgPool,
    pub jwt: JwtKeys,
    pub passwords: PasswordHasher,
    pub rate_limiter: RateLimiter,
    pub email_tokens: EmailTokenKey,
    pub memberships: MembershipCache,
    pub settings: Arc<Settings>,
}

impl HasTrustedProxies for AppState {
    fn trusted_proxies(&self) -> &TrustedProxies {
        &self.settings.trusted_proxies
    }
}
