//! `SigningSecret`: a secret that signs or keys something (JWTs, emailed tokens).
//!
//! A `secrecy::SecretString` that was checked to be long enough: its `Debug` never shows the
//! value, and reading it is an explicit `expose`.

use secrecy::{ExposeSecret, SecretString};

/// At least [`SigningSecret::MIN_LEN`] characters; `Debug` shows `[REDACTED]`.
#[derive(Debug, Clone)]
pub struct SigningSecret(SecretString);

impl SigningSecret {
    pub const MIN_LEN: usize = 32;

    pub fn parse(value: String) -> Result<Self, String> {
        let len = value.chars().count();
        if len < Self::MIN_LEN {
            return Err(format!(
                "must be at least {} characters (got {len})",
                Self::MIN_LEN,
            ));
        }
        Ok(Self(SecretString::from(value)))
    }

    pub fn expose(&self) -> &[u8] {
        self.0.expose_secret().as_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_secrets_are_refused_and_debug_hides_the_value() {
        assert!(SigningSecret::parse("short".into()).is_err());
        let secret = SigningSecret::parse("s3cret-".repeat(5)).unwrap();
        assert_eq!(secret.expose(), "s3cret-".repeat(5).as_bytes());
        assert!(!format!("{secret:?}").contains("s3cret"));
    }
}
