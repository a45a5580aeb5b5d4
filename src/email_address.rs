//! `EmailAddress`: a syntactically valid address, normalised (trimmed, lower case), that the
//! mail transport can send to.
//!
//! This is the one validator of addresses, used by the API on input and by the worker before
//! it addresses a message: an address accepted here but refused by the mailer would make an
//! invitation die silently in the worker. So it also asks the mailer's own parser (lettre's
//! `Mailbox`), and refuses what RFC 5321 allows but no real inbox uses (quoted local parts,
//! IP-literal domains such as `postmaster@[127.0.0.1]`).
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
        if parsed.local_part().starts_with('"') {
            return Err("must not use a quoted name before the @".into());
        }
        if parsed.domain().starts_with('[') || !is_host_name(parsed.domain()) {
            return Err("must end in a domain name, not an IP address".into());
        }
        if lettre::message::Mailbox::from_str(&normalised).is_err() {
            return Err("is not an address we can send email to".into());
        }
        Ok(Self(normalised))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Letters, digits and hyphens in dot-separated labels (or their Unicode forms), ending in a
/// label that is not all digits (`1.2.3.4` is an IP address, not a domain).
fn is_host_name(domain: &str) -> bool {
    let labels: Vec<&str> = domain.split('.').collect();
    labels.iter().all(|label| {
        !label.is_empty()
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.chars().all(|c| c.is_alphanumeric() || c == '-')
    }) && labels
        .last()
        .is_some_and(|tld| !tld.chars().all(|c| c.is_ascii_digit()))
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
    fn refuses_what_the_mailer_cannot_send_to() {
        for bad in [
            "postmaster@[127.0.0.1]",
            "\"a b\"@example.com",
            "\"ann\"@example.com",
            "ann@127.0.0.1",
            "ann@exa_mple.com",
            "ann@-example.com",
        ] {
            assert!(EmailAddress::parse(bad).is_err(), "{bad:?} was accepted");
        }
        for good in [
            "ann+tag@example.com",
            "o'brien@example.co.uk",
            "ann@mail-1.example.com",
            "jose@exämple.de",
        ] {
            let email = EmailAddress::parse(good).unwrap();
            assert!(
                lettre::message::Mailbox::from_str(email.as_str()).is_ok(),
                "{good}"
            );
        }
    }

    #[test]
    fn refuses_overlong_addresses() {
        let long = format!("{}@example.com", "a".repeat(250));
        assert!(EmailAddress::parse(&long).is_err());
    }
}
