//! `ApiKeySecret`: the form of a secret API key, checked before anything is looked up.
//!
//! `sdk_` + 43 random base62 characters (256 bits, independent of the workspace) + a 6
//! character base62 CRC32 of the random part. The prefix and checksum let secret scanners
//! recognise a real key offline and let us refuse a mistyped one without a database query.
//! The first [`LOOKUP_LEN`] random characters are stored in clear to find the key's row; the
//! rest is only ever compared as a SHA-256 digest, in constant time.

use std::fmt;

use rand::RngExt;
use rand::distr::Alphanumeric;
use sha2::{Digest, Sha256};

pub const PREFIX: &str = "sdk_";
/// 43 base62 characters carry 256.03 bits.
const RANDOM_LEN: usize = 43;
const CHECKSUM_LEN: usize = 6;
/// Characters of the random part stored in clear (71 bits): enough to find the row, far
/// too few to help guess the rest.
pub const LOOKUP_LEN: usize = 12;
pub const SECRET_LEN: usize = PREFIX.len() + RANDOM_LEN + CHECKSUM_LEN;

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

#[derive(Clone, PartialEq, Eq)]
pub struct ApiKeySecret(String);

impl ApiKeySecret {
    pub fn generate() -> Self {
        let random: String = rand::rng()
            .sample_iter(Alphanumeric)
            .take(RANDOM_LEN)
            .map(char::from)
            .collect();
        let checksum = checksum(&random);
        Self(format!("{PREFIX}{random}{checksum}"))
    }

    /// A presented key, if it has our form and its checksum matches.
    pub fn parse(presented: &str) -> Result<Self, &'static str> {
        let body = presented
            .strip_prefix(PREFIX)
            .ok_or("an API key starts with sdk_")?;
        if presented.len() != SECRET_LEN || !body.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err("an API key is sdk_ and 49 letters and digits");
        }
        let (random, sum) = body.split_at(RANDOM_LEN);
        if checksum(random) != sum {
            return Err("the API key's checksum does not match: it was mistyped or truncated");
        }
        Ok(Self(presented.to_owned()))
    }

    /// The part stored in clear, unique per key.
    pub fn lookup(&self) -> &str {
        &self.0[PREFIX.len()..PREFIX.len() + LOOKUP_LEN]
    }

    /// What is stored to recognise the key.
    pub fn digest(&self) -> [u8; 32] {
        Sha256::digest(self.0.as_bytes()).into()
    }

    /// The secret itself: shown to its creator once, never stored or logged.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// Never prints the secret.
impl fmt::Debug for ApiKeySecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKeySecret({PREFIX}{}…)", self.lookup())
    }
}

/// The base62 CRC32 of the random part, fixed width.
fn checksum(random: &str) -> String {
    let mut value = crc32fast::hash(random.as_bytes());
    let mut digits = [b'0'; CHECKSUM_LEN];
    for digit in digits.iter_mut().rev() {
        *digit = BASE62[(value % 62) as usize];
        value /= 62;
    }
    digits.iter().map(|&b| char::from(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_parse_and_differ() {
        let a = ApiKeySecret::generate();
        let b = ApiKeySecret::generate();
        assert_ne!(a, b);
        assert_eq!(a.expose().len(), SECRET_LEN);
        assert!(a.expose().starts_with("sdk_"));
        assert_eq!(ApiKeySecret::parse(a.expose()), Ok(a.clone()));
        assert_eq!(a.lookup(), &a.expose()[4..16]);
    }

    #[test]
    fn a_changed_character_fails_the_checksum() {
        let key = ApiKeySecret::generate();
        let mut bytes = key.expose().as_bytes().to_vec();
        bytes[10] = if bytes[10] == b'a' { b'b' } else { b'a' };
        let typo = String::from_utf8(bytes).unwrap();
        assert!(ApiKeySecret::parse(&typo).is_err());
    }

    #[test]
    fn malformed_keys_are_refused() {
        let key = ApiKeySecret::generate();
        for bad in [
            "",
            "sdk_",
            &key.expose()[..SECRET_LEN - 1],
            &format!("{}0", key.expose()),
            &key.expose().replacen("sdk_", "sdx_", 1),
            &format!("sdk_{}", "-".repeat(49)),
        ] {
            assert!(ApiKeySecret::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let key = ApiKeySecret::generate();
        let shown = format!("{key:?}");
        assert!(!shown.contains(key.expose()));
        assert!(shown.contains(key.lookup()));
    }

    #[test]
    fn checksum_is_fixed_width_base62() {
        assert_eq!(checksum("").len(), CHECKSUM_LEN);
        assert!(checksum("abc").bytes().all(|b| b.is_ascii_alphanumeric()));
    }
}
