//! A webhook endpoint's signing secret, in the Standard Webhooks form: `whsec_` and the base64
//! of 24 random bytes. The bytes are the HMAC key; the text is what an Owner copies once into
//! their receiver's verifier.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// Random bytes in a secret.
pub const SECRET_BYTES: usize = 24;
const PREFIX: &str = "whsec_";

/// A new secret's bytes.
pub fn generate() -> [u8; SECRET_BYTES] {
    rand::random()
}

/// The secret as shown to its Owner: `whsec_<base64>`.
pub fn shown(bytes: &[u8]) -> String {
    format!("{PREFIX}{}", STANDARD.encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_whsec_and_the_base64_of_24_fresh_bytes() {
        let bytes = generate();
        let text = shown(&bytes);
        let decoded = STANDARD
            .decode(text.strip_prefix("whsec_").unwrap())
            .unwrap();
        assert_eq!(decoded, bytes);
        assert_ne!(generate(), bytes);
    }
}
