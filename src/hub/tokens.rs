//! Connection tokens: what negotiate hands out and the WebSocket request redeems.
//!
//! The WebSocket URL carries the token (the official clients put it in `?id=`), so it must
//! be worth little: random, single use, valid 60 s, and bound to the identity that
//! negotiated, which the upgrade takes from the token rather than from anything else in the
//! URL. Tokens live in Redis so that any replica can redeem one another issued (no sticky
//! sessions needed); Redis keeps only their SHA-256. Redeeming is one atomic command that
//! marks the token used and returns what it held, so two upgrades racing with one token
//! cannot both win.
//!
//! When Redis does not answer, tokens are kept in this replica's memory instead: a single
//! replica (or sticky sessions) keeps working; a token issued that way cannot be redeemed on
//! another replica, which answers "unknown" and the client negotiates again.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngExt;
use redis::aio::ConnectionManager;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::registry::Participant;

/// How long a negotiated token may wait for its WebSocket.
pub const LIFETIME: Duration = Duration::from_secs(60);

/// Marks a redeemed token until its lifetime ends, to tell "reused" from "unknown".
const USED: &str = "used";

/// What a token stands for: the connection's identity and when its credential expires.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    #[serde(flatten)]
    pub who: Participant,
    /// The credential's expiry (Unix seconds): the connection closes then.
    pub expires_at: i64,
}

#[derive(Debug, thiserror::Error)]
#[error("connection tokens cannot be stored or redeemed: Redis does not answer")]
pub struct Unavailable;

#[derive(Clone)]
pub struct ConnectionTokens {
    redis: ConnectionManager,
    prefix: String,
    timeout: Duration,
    /// Tokens issued while Redis was down: hash -> grant (or [`USED`]).
    local: moka::sync::Cache<String, String>,
}

impl ConnectionTokens {
    pub fn new(redis: ConnectionManager, namespace: &str, timeout: Duration) -> Self {
        Self {
            redis,
            prefix: format!("{namespace}:hub:token:"),
            timeout,
            local: moka::sync::Cache::builder()
                .max_capacity(100_000)
                .time_to_live(LIFETIME)
                .build(),
        }
    }

    /// A new token for `grant`.
    pub async fn issue(&self, grant: &Grant) -> String {
        let token = URL_SAFE_NO_PAD.encode(rand::rng().random::<[u8; 32]>());
        let key = hashed(&token);
        let value = serde_json::to_string(grant).unwrap_or_default();
        let mut conn = self.redis.clone();
        let mut set = redis::cmd("SET");
        set.arg(format!("{}{key}", self.prefix))
            .arg(&value)
            .arg("EX")
            .arg(LIFETIME.as_secs())
            .arg("NX");
        let stored = tokio::time::timeout(self.timeout, set.query_async::<redis::Value>(&mut conn));
        if !matches!(stored.await, Ok(Ok(_))) {
            tracing::warn!("connection token kept in memory: Redis does not answer");
            self.local.insert(key, value);
        }
        token
    }

    /// Marks `token` used and returns its grant, once.
    pub async fn redeem(&self, token: &str) -> Result<Option<Grant>, TokenError> {
        let key = hashed(token);
        // Taken out and marked used in one step: two upgrades racing with one token cannot
        // both find it unused.
        if let Some(value) = self.local.remove(&key) {
            self.local.insert(key, USED.into());
            return grant_of(Some(value));
        }
        let mut conn = self.redis.clone();
        let mut swap = redis::cmd("SET");
        swap.arg(format!("{}{key}", self.prefix))
            .arg(USED)
            .arg("XX")
            .arg("KEEPTTL")
            .arg("GET");
        match tokio::time::timeout(self.timeout, swap.query_async::<Option<String>>(&mut conn))
            .await
        {
            Ok(Ok(previous)) => grant_of(previous),
            _ => Err(TokenError::Unavailable(Unavailable)),
        }
    }
}

fn grant_of(value: Option<String>) -> Result<Option<Grant>, TokenError> {
    match value.as_deref() {
        None => Ok(None),
        Some(USED) => Err(TokenError::Reused),
        Some(json) => serde_json::from_str(json)
            .map(Some)
            .map_err(|_| TokenError::Unavailable(Unavailable)),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("this connection token was already used; negotiate again")]
    Reused,
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
}

fn hashed(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `token` has the form [`ConnectionTokens::issue`] gives (43 base64url
/// characters), so a malformed one is refused without a lookup.
pub fn well_formed(token: &str) -> bool {
    token.len() == 43
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_url_safe_and_checked_by_form() {
        let token = URL_SAFE_NO_PAD.encode([7u8; 32]);
        assert!(well_formed(&token));
        assert!(!well_formed("short"));
        assert!(!well_formed(&format!("{}+", &token[..42])));
    }

    #[test]
    fn a_used_marker_is_reused_and_nothing_is_unknown() {
        assert!(matches!(grant_of(None), Ok(None)));
        assert!(matches!(
            grant_of(Some(USED.into())),
            Err(TokenError::Reused)
        ));
        let agent = Grant {
            who: Participant::Agent(crate::hub::registry::AgentIdentity {
                workspace_id: uuid::Uuid::nil(),
                user_id: uuid::Uuid::nil(),
                agent_id: uuid::Uuid::nil(),
                role: supportdesk_core::role::Role::Agent,
                token_version: 0,
            }),
            expires_at: 1,
        };
        let visitor = Grant {
            who: Participant::Visitor(crate::hub::registry::VisitorIdentity {
                workspace_id: uuid::Uuid::nil(),
                contact_id: uuid::Uuid::max(),
                visitor_id: uuid::Uuid::nil(),
                trust: Default::default(),
            }),
            expires_at: 2,
        };
        for grant in [agent, visitor] {
            let stored = serde_json::to_string(&grant).unwrap();
            assert!(
                matches!(grant_of(Some(stored)), Ok(Some(g)) if g.who == grant.who && g.expires_at == grant.expires_at)
            );
        }
    }
}
