//! `Slug`: a workspace's URL-safe short name, lower-case `[a-z0-9-]{3,48}`.

use std::fmt;

#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Slug(String);

impl Slug {
    pub const MIN: usize = 3;
    pub const MAX: usize = 48;

    pub fn parse(candidate: &str) -> Result<Self, String> {
        let valid_chars = candidate
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !(Self::MIN..=Self::MAX).contains(&candidate.len()) {
            Err(format!("must be {} to {} characters", Self::MIN, Self::MAX))
        } else if !valid_chars {
            Err("may contain only lower-case letters, digits and hyphens".into())
        } else {
            Ok(Self(candidate.to_owned()))
        }
    }

    /// A slug made from a workspace name: ASCII letters and digits kept (lower-cased), runs of
    /// anything else become one hyphen; padded or cut to fit.
    pub fn derive(name: &str) -> Self {
        let mut slug = String::new();
        for c in name.chars() {
            if c.is_ascii_alphanumeric() {
                slug.push(c.to_ascii_lowercase());
            } else if !slug.is_empty() && !slug.ends_with('-') {
                slug.push('-');
            }
        }
        slug.truncate(Self::MAX - 5);
        let mut slug = slug.trim_end_matches('-').to_owned();
        if slug.len() < Self::MIN {
            if !slug.is_empty() {
                slug.push('-');
            }
            slug.push_str("workspace");
        }
        Self(slug)
    }

    /// The same slug with a short random suffix, for when the derived one is taken.
    pub fn with_suffix(&self) -> Self {
        let suffix = format!("{:04x}", rand::random::<u16>());
        let mut base = self.0.clone();
        base.truncate(Self::MAX - 5);
        Self(format!("{}-{suffix}", base.trim_end_matches('-')))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Slug({})", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_documented_form() {
        // Exactly the contract's [a-z0-9-]{3,48}, hyphens anywhere.
        for good in [
            "acme",
            "acme-support-2",
            "abc",
            &"a".repeat(48),
            "-acme",
            "acme-",
        ] {
            assert!(Slug::parse(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn refuses_everything_else() {
        for bad in [
            "ab",
            &"a".repeat(49),
            "Acme",
            "acme_support",
            "acme support",
            "äcme",
        ] {
            assert!(Slug::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn derives_valid_slugs_from_names() {
        assert_eq!(
            Slug::derive("Acme Support, Inc.").as_str(),
            "acme-support-inc"
        );
        assert_eq!(Slug::derive("  ÄÖÜ  ").as_str(), "workspace");
        assert_eq!(Slug::derive("QA").as_str(), "qa-workspace");
        for name in ["x", "Très Grand Café", &"Long name ".repeat(20), "--", "42"] {
            let slug = Slug::derive(name);
            assert!(Slug::parse(slug.as_str()).is_ok(), "{name:?} -> {slug:?}");
            assert!(Slug::parse(slug.with_suffix().as_str()).is_ok(), "{name:?}");
        }
    }
}
