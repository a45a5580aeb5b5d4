//! Download links: `/files/{workspace}/{attachment}/{variant}?expires=..&signature=..`, signed
//! by the API and good for [`LINK_LIFETIME`]. A link is the only credential its request
//! carries (an `<img>` cannot send a bearer token), so it names exactly one object of one
//! workspace and stops working minutes later: a link copied into a ticket, a log or a
//! browser's history opens nothing for long, and no bearer token ever sits in a URL.
//!
//! The signature is `HMAC-SHA256(key, "workspace/attachment/variant/expires")`, the key
//! derived from `JWT_SECRET`, which only the API holds. Changing any part of the link (another
//! workspace's id, the thumbnail's link turned into the original's, a later expiry) breaks it.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use supportdesk_core::config::SigningSecret;
use supportdesk_core::storage::Variant;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

/// How long a link works.
pub const LINK_LIFETIME: Duration = Duration::minutes(5);

#[derive(Clone)]
pub struct LinkKey([u8; 32]);

fn hmac(key: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"))
}

/// Why a link opens nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    Expired,
    Forged,
}

impl LinkKey {
    pub fn derive(secret: &SigningSecret) -> Self {
        let mut mac = hmac(secret.expose());
        mac.update(b"supportdesk/attachment-links/v1");
        Self(mac.finalize().into_bytes().into())
    }

    fn mac(
        &self,
        workspace_id: Uuid,
        attachment_id: Uuid,
        variant: Variant,
        expires: i64,
    ) -> Hmac<Sha256> {
        let mut mac = hmac(&self.0);
        mac.update(
            format!(
                "{workspace_id}/{attachment_id}/{}/{expires}",
                variant.as_str()
            )
            .as_bytes(),
        );
        mac
    }

    /// The path and query of a link to one object, good until `expires`.
    pub fn link(
        &self,
        workspace_id: Uuid,
        attachment_id: Uuid,
        variant: Variant,
        expires: OffsetDateTime,
    ) -> String {
        let expires = expires.unix_timestamp();
        let signature = self
            .mac(workspace_id, attachment_id, variant, expires)
            .finalize()
            .into_bytes();
        format!(
            "/files/{workspace_id}/{attachment_id}/{}?expires={expires}&signature={}",
            variant.as_str(),
            URL_SAFE_NO_PAD.encode(signature),
        )
    }

    /// Whether a link's parts were signed here and it has not expired; in constant time.
    pub fn check(
        &self,
        workspace_id: Uuid,
        attachment_id: Uuid,
        variant: Variant,
        expires: i64,
        signature: &str,
        now: OffsetDateTime,
    ) -> Result<(), Refused> {
        let Ok(given) = URL_SAFE_NO_PAD.decode(signature) else {
            return Err(Refused::Forged);
        };
        self.mac(workspace_id, attachment_id, variant, expires)
            .verify_slice(&given)
            .map_err(|_| Refused::Forged)?;
        if now.unix_timestamp() > expires {
            return Err(Refused::Expired);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> LinkKey {
        LinkKey::derive(&SigningSecret::parse("k".repeat(40)).unwrap())
    }

    fn parts(link: &str) -> (i64, String) {
        let query = link.split_once('?').unwrap().1;
        let mut expires = 0;
        let mut signature = String::new();
        for pair in query.split('&') {
            match pair.split_once('=').unwrap() {
                ("expires", v) => expires = v.parse().unwrap(),
                ("signature", v) => signature = v.to_owned(),
                _ => {}
            }
        }
        (expires, signature)
    }

    #[test]
    fn a_link_opens_its_object_until_it_expires() {
        let (ws, att) = (Uuid::new_v4(), Uuid::new_v4());
        let now = OffsetDateTime::now_utc();
        let link = key().link(ws, att, Variant::Original, now + LINK_LIFETIME);
        assert!(link.starts_with(&format!("/files/{ws}/{att}/original?")));
        let (expires, signature) = parts(&link);
        assert_eq!(
            key().check(ws, att, Variant::Original, expires, &signature, now),
            Ok(())
        );
        let later = now + LINK_LIFETIME + Duration::seconds(1);
        assert_eq!(
            key().check(ws, att, Variant::Original, expires, &signature, later),
            Err(Refused::Expired)
        );
    }

    #[test]
    fn every_part_is_signed() {
        let (ws, att) = (Uuid::new_v4(), Uuid::new_v4());
        let now = OffsetDateTime::now_utc();
        let (expires, sig) = parts(&key().link(ws, att, Variant::Thumbnail, now + LINK_LIFETIME));
        let k = key();
        let forged = Err(Refused::Forged);
        assert_eq!(
            k.check(Uuid::new_v4(), att, Variant::Thumbnail, expires, &sig, now),
            forged
        );
        assert_eq!(
            k.check(ws, Uuid::new_v4(), Variant::Thumbnail, expires, &sig, now),
            forged
        );
        assert_eq!(
            k.check(ws, att, Variant::Original, expires, &sig, now),
            forged
        );
        assert_eq!(
            k.check(ws, att, Variant::Thumbnail, expires + 600, &sig, now),
            forged
        );
        assert_eq!(
            k.check(ws, att, Variant::Thumbnail, expires, "AAAA", now),
            forged
        );
        let other = LinkKey::derive(&SigningSecret::parse("o".repeat(40)).unwrap());
        assert_eq!(
            other.check(ws, att, Variant::Thumbnail, expires, &sig, now),
            forged
        );
    }
}
