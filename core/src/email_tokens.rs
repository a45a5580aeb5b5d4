//! Tokens that travel by email (verification, invitation, password-reset and rating links).
//!
//! A token is `HMAC-SHA256(key, purpose || nonce)` where the nonce is 128 random bits stored
//! with its row and the key is derived from `EMAIL_TOKEN_SECRET` (`JWT_SECRET` when unset).
//! Rows keep the nonce and a SHA-256 of the token, never the token: the worker re-derives it
//! when it renders the email, so the outbox carries only a row id and a database dump alone
//! yields nothing that can be replayed.
//!
//! In the core crate because both sides derive tokens: the API when it issues and checks
//! them, the worker when it renders the email (`outbox::messages`).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::config::SigningSecret;

/// What a token is for; a token minted for one purpose never matches another's.
#[derive(Debug, Clone, Copy)]
pub enum Purpose {
    EmailVerification,
    Invitation,
    PasswordReset,
    /// A customer's link to rate a resolved email conversation.
    RatingRequest,
}

impl Purpose {
    fn label(self) -> &'static [u8] {
        match self {
            Self::EmailVerification => b"email-verification\0",
            Self::Invitation => b"invitation\0",
            Self::PasswordReset => b"password-reset\0",
            Self::RatingRequest => b"rating-request\0",
        }
    }
}

#[derive(Clone)]
pub struct EmailTokenKey([u8; 32]);

fn hmac(key: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"))
}

impl EmailTokenKey {
    pub fn derive(secret: &SigningSecret) -> Self {
        let mut mac = hmac(secret.expose());
        mac.update(b"supportdesk/email-token/v1");
        Self(mac.finalize().into_bytes().into())
    }

    pub fn token_for(&self, purpose: Purpose, nonce: &[u8]) -> String {
        let mut mac = hmac(&self.0);
        mac.update(purpose.label());
        mac.update(nonce);
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    }
}

/// A fresh nonce for a new token row.
pub fn new_nonce() -> [u8; 16] {
    rand::random()
}

/// What the database stores to find a token again.
pub fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: char) -> EmailTokenKey {
        EmailTokenKey::derive(&SigningSecret::parse(c.to_string().repeat(32)).unwrap())
    }

    #[test]
    fn tokens_depend_on_key_purpose_and_nonce() {
        let nonce = [7u8; 16];
        let token = key('k').token_for(Purpose::EmailVerification, &nonce);
        assert_eq!(
            token,
            key('k').token_for(Purpose::EmailVerification, &nonce)
        );
        assert_ne!(
            token,
            key('k').token_for(Purpose::EmailVerification, &[8u8; 16])
        );
        assert_ne!(token, key('k').token_for(Purpose::Invitation, &nonce));
        assert_ne!(
            token,
            key('j').token_for(Purpose::EmailVerification, &nonce)
        );
        // 256 bits, URL-safe, no padding.
        assert_eq!(token.len(), 43);
    }
}
