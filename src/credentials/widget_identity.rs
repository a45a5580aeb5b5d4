//! Identity verification for the chat widget: the customer's server signs a visitor's
//! `externalId` with the workspace's identity secret (`hex(HMAC-SHA256(secret, externalId))`),
//! and the widget passes the signature along, so a visitor cannot claim to be someone else.
//!
//! The secret is never stored. It is `HMAC(key, workspace id || nonce)`, where the nonce is
//! the random value kept in `public.widget_sites` and the key is derived from `JWT_SECRET`,
//! which only the API holds: the API can re-derive the secret to verify a signature, a
//! database dump cannot. Regenerating draws a new nonce, and the old secret stops matching.
//! Rotating `JWT_SECRET` changes every workspace's secret: Owners then regenerate theirs.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;
use uuid::Uuid;

use supportdesk_core::config::SigningSecret;

const PREFIX: &str = "wis_";

fn hmac(key: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"))
}

#[derive(Clone)]
pub struct IdentityKey([u8; 32]);

impl IdentityKey {
    pub fn derive(secret: &SigningSecret) -> Self {
        let mut mac = hmac(secret.expose());
        mac.update(b"supportdesk/widget-identity-secret/v1");
        Self(mac.finalize().into_bytes().into())
    }

    /// The workspace's identity secret for `nonce`, as the Owner copies it.
    pub fn secret(&self, workspace_id: Uuid, nonce: &[u8]) -> String {
        let mut mac = hmac(&self.0);
        mac.update(workspace_id.as_bytes());
        mac.update(nonce);
        format!(
            "{PREFIX}{}",
            URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
        )
    }
}

/// `hex(HMAC-SHA256(secret, external_id))`: what the customer's server computes.
pub fn signature(secret: &str, external_id: &str) -> String {
    let mut mac = hmac(secret.as_bytes());
    mac.update(external_id.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// Whether `hash` (hex, either case) signs `external_id` with `secret`; in constant time.
pub fn verify(secret: &str, external_id: &str, hash: &str) -> bool {
    let Ok(given) = hex::decode(hash.trim()) else {
        return false;
    };
    let mut mac = hmac(secret.as_bytes());
    mac.update(external_id.as_bytes());
    let expected = mac.finalize().into_bytes();
    given.len() == expected.len() && bool::from(given.ct_eq(&expected))
}

/// A fresh nonce for a new secret.
pub fn new_nonce() -> [u8; 32] {
    rand::random()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> IdentityKey {
        IdentityKey::derive(
            &SigningSecret::parse("an-adequately-long-test-secret-0123456789".into()).unwrap(),
        )
    }

    #[test]
    fn the_secret_depends_on_workspace_nonce_and_server_key() {
        let (ws, nonce) = (Uuid::new_v4(), new_nonce());
        let secret = key().secret(ws, &nonce);
        assert!(secret.starts_with("wis_"));
        assert_eq!(secret, key().secret(ws, &nonce), "re-derivable");
        assert_ne!(secret, key().secret(Uuid::new_v4(), &nonce));
        assert_ne!(secret, key().secret(ws, &new_nonce()));
        let other = IdentityKey::derive(
            &SigningSecret::parse("another-adequately-long-secret-0123456789".into()).unwrap(),
        );
        assert_ne!(secret, other.secret(ws, &nonce));
    }

    #[test]
    fn a_signature_verifies_for_its_id_only() {
        let secret = "wis_example";
        let hash = signature(secret, "user-42");
        assert_eq!(hash.len(), 64);
        assert!(verify(secret, "user-42", &hash));
        assert!(verify(secret, "user-42", &hash.to_uppercase()));
        assert!(!verify(secret, "user-43", &hash));
        assert!(!verify("wis_other", "user-42", &hash));
        assert!(!verify(secret, "user-42", &hash[..62]));
        assert!(!verify(secret, "user-42", "not hex"));
        assert!(!verify(secret, "user-42", ""));
    }

    #[test]
    fn the_signature_is_standard_hmac_sha256() {
        // RFC 4231, test case 2.
        assert_eq!(
            signature("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
