//! The workspaces' mail server passwords and webhook signing secrets at rest (the IMAP
//! mailbox the API watches, the SMTP server and webhook endpoints the worker uses): sealed with ChaCha20-Poly1305 under a key derived from
//! `EMAIL_TOKEN_SECRET` (HMAC-SHA256 with a label of its own), a random nonce per seal stored
//! in front of the ciphertext. A dump of the database alone does not give a password away, and
//! an altered one fails to open rather than log in as something else.
//!
//! Why that secret: both processes hold it (the API signs emailed links with it, the worker
//! renders them), while `JWT_SECRET` stays the API's alone. Rotating it makes the stored
//! passwords unreadable: the servers then fail with a message asking for the password again.

use crate::config::SigningSecret;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;

const NONCE: usize = 12;

#[derive(Clone)]
pub struct CredentialKey(ChaCha20Poly1305);

/// A sealed password could not be opened (another key, or altered).
#[derive(Debug, thiserror::Error)]
#[error(
    "the stored password cannot be read (EMAIL_TOKEN_SECRET changed?): enter it again in Settings"
)]
pub struct Unreadable;

impl CredentialKey {
    /// The key of mail server passwords.
    pub fn derive(secret: &SigningSecret) -> Self {
        Self::labelled(secret, b"supportdesk/email-credentials/v1")
    }

    /// The key of webhook signing secrets: another label, so one never opens the other's.
    pub fn for_webhooks(secret: &SigningSecret) -> Self {
        Self::labelled(secret, b"supportdesk/webhook-secrets/v1")
    }

    fn labelled(secret: &SigningSecret, label: &[u8]) -> Self {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret.expose())
            .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"));
        mac.update(label);
        let key: [u8; 32] = mac.finalize().into_bytes().into();
        Self(ChaCha20Poly1305::new(&Key::from(key)))
    }

    pub fn seal(&self, password: &SecretString) -> Vec<u8> {
        self.seal_bytes(password.expose_secret().as_bytes())
    }

    pub fn open(&self, sealed: &[u8]) -> Result<SecretString, Unreadable> {
        String::from_utf8(self.open_bytes(sealed)?)
            .map(SecretString::from)
            .map_err(|_| Unreadable)
    }

    pub fn seal_bytes(&self, plain: &[u8]) -> Vec<u8> {
        let nonce = ChaCha20Poly1305::generate_nonce(&mut OsRng);
        let sealed = self
            .0
            .encrypt(&nonce, plain)
            .unwrap_or_else(|_| unreachable!("ChaCha20-Poly1305 seals any length we store"));
        nonce.iter().copied().chain(sealed).collect()
    }

    pub fn open_bytes(&self, sealed: &[u8]) -> Result<Vec<u8>, Unreadable> {
        if sealed.len() < NONCE {
            return Err(Unreadable);
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE);
        let nonce: [u8; NONCE] = nonce.try_into().map_err(|_| Unreadable)?;
        self.0
            .decrypt(&Nonce::from(nonce), ciphertext)
            .map_err(|_| Unreadable)
    }
}

impl std::fmt::Debug for CredentialKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CredentialKey([redacted])")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(secret: &str) -> CredentialKey {
        CredentialKey::derive(&SigningSecret::parse(secret.repeat(4)).unwrap())
    }

    #[test]
    fn a_sealed_password_opens_only_with_its_key_and_unaltered() {
        let password = SecretString::from("app-password-123");
        let sealed = key("0123456789").seal(&password);
        assert!(!sealed.windows(8).any(|w| w == b"password"));
        assert_eq!(
            key("0123456789").open(&sealed).unwrap().expose_secret(),
            "app-password-123"
        );
        assert!(key("abcdefghij").open(&sealed).is_err());
        let mut altered = sealed.clone();
        *altered.last_mut().unwrap() ^= 1;
        assert!(key("0123456789").open(&altered).is_err());
        // A fresh nonce each time.
        assert_ne!(key("0123456789").seal(&password), sealed);
    }

    #[test]
    fn the_webhook_key_does_not_open_what_the_mail_key_sealed() {
        let secret = SigningSecret::parse("0123456789".repeat(4)).unwrap();
        let sealed = CredentialKey::derive(&secret).seal_bytes(b"abc");
        assert!(
            CredentialKey::for_webhooks(&secret)
                .open_bytes(&sealed)
                .is_err()
        );
        let webhook = CredentialKey::for_webhooks(&secret);
        assert_eq!(
            webhook.open_bytes(&webhook.seal_bytes(b"abc")).unwrap(),
            b"abc"
        );
    }
}
