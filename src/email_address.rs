//! `EmailAddress`: a syntactically valid address, normalised (trimmed, lower case).
//!
//! Lower-casing the whole address makes equality case-insensitive everywhere by construction:
//! the database stores only normalised addresses (a CHECK enforces it), so a unique
//! constraint is enough to refuse `Ann@x.io` once `ann@x.io` exists.

use std::fmt;
use std::str::FromStr;

#[derive(Clone, PartialEq, Eq, Hash)]
pub struct EmailAddress(String);

impl EmailAddress {
    /// The longest address SMTP can carry (RFC 5321 path limit).
    pub const MAX_LEN: usize = 254;

    pub fn parse(candidate: &str) -> Result<Self, String> {
        let normalised = candidate.trim().to_lowercase();
        if normalised.is_empty() {
            return Err("is required".into());
        }
        if normalised.len() > Self::MAX_LEN {
            return Err(format!("must be at most {} characters", Self::MAX_LEN));
        }
        let parsed = email_address::EmailAddress::from_str(&normalised)
            .map_err(|_| "is not a valid email address".to_owned())?;
        // Display names ("Ann <ann@x.io>") and bare hosts without a dot are not accepted.
        if parsed.email() != normalised || !parsed.domain().contains('.') {
            return Err("is not a valid email address".into());
        }
        Ok(Self(normalised))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for EmailAddress {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EmailAddress({})", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_case_and_whitespace() {
        let email = EmailAddress::parse("  Ann.Smith@Example.COM ").unwrap();
        assert_eq!(email.as_str(), "ann.smith@example.com");
    }

    #[test]
    fn refuses_malformed_addresses() {
        for bad in [
            "",
            "   ",
            "ann",
            "ann@",
            "@example.com",
            "ann@@example.com",
            "ann@localhost",
            "Ann <ann@example.com>",
            "ann smith@example.com",
        ] {
            assert!(EmailAddress::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn refuses_overlong_addresses() {
        let long = format!("{}@example.com", "a".repeat(250));
        assert!(EmailAddress::parse(&long).is_err());
    }
}
