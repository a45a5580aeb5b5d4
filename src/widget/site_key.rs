//! Site keys and allowed origins: the two public halves of a workspace's widget.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The public key a widget embeds: `swk_` and 32 URL-safe characters (192 random bits).
/// It names a workspace and grants nothing else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(value_type = String, example = "swk_Zx3kq0vN8bY1r2s3t4u5v6w7x8y9z0AB")]
pub struct SiteKey(String);

impl SiteKey {
    pub fn generate() -> Self {
        let bytes: [u8; 24] = rand::random();
        Self(format!("swk_{}", URL_SAFE_NO_PAD.encode(bytes)))
    }

    /// A value of the form [`Self::generate`] makes; anything else names no workspace.
    pub fn parse(value: &str) -> Option<Self> {
        let rest = value.strip_prefix("swk_")?;
        let well_formed = rest.len() == 32
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        well_formed.then(|| Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// How many origins one workspace may list.
pub const MAX_ORIGINS: usize = 50;

/// A browser origin as browsers send it in `Origin`: `scheme://host[:port]`, lower case, the
/// default port left out. Written any other way it would never match, so it is normalised
/// here or refused.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AllowedOrigin(String);

impl AllowedOrigin {
    pub fn parse(value: &str) -> Result<Self, String> {
        let value = value.trim();
        let url = url::Url::parse(value)
            .map_err(|_| format!("{value:?} is not an origin like https://www.example.com"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "{value:?}: only http and https origins can embed the widget"
            ));
        }
        let bare = url.path() == "/"
            && url.query().is_none()
            && url.fragment().is_none()
            && url.username().is_empty()
            && url.password().is_none()
            && !value.trim_end_matches('/').ends_with('?');
        if !bare || url.host_str().is_none() {
            return Err(format!(
                "{value:?}: an origin is a scheme, host and port only, without a path (https://www.example.com)"
            ));
        }
        if url.host_str().is_some_and(|h| h.contains('*')) {
            return Err(format!(
                "{value:?}: list each origin; wildcards are not accepted"
            ));
        }
        Ok(Self(url.origin().ascii_serialization()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_parse_and_others_do_not() {
        let key = SiteKey::generate();
        assert_eq!(key.as_str().len(), 36);
        assert_eq!(SiteKey::parse(key.as_str()), Some(key.clone()));
        assert_ne!(SiteKey::generate(), key);
        for bad in [
            "",
            "swk_",
            "swk_short",
            "sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "swk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
            "swk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        ] {
            assert_eq!(SiteKey::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn origins_are_normalised_as_browsers_send_them() {
        let parse = |s| AllowedOrigin::parse(s).map(AllowedOrigin::into_string);
        assert_eq!(
            parse("https://WWW.Example.com/").unwrap(),
            "https://www.example.com"
        );
        assert_eq!(
            parse("https://example.com:443").unwrap(),
            "https://example.com"
        );
        assert_eq!(
            parse("http://localhost:8080").unwrap(),
            "http://localhost:8080"
        );
        assert_eq!(
            parse(" http://127.0.0.1:3000 ").unwrap(),
            "http://127.0.0.1:3000"
        );
        assert_eq!(
            parse("https://bücher.example").unwrap(),
            "https://xn--bcher-kva.example"
        );
    }

    #[test]
    fn anything_but_an_origin_is_refused() {
        for bad in [
            "example.com",
            "*",
            "null",
            "https://*.example.com",
            "https://example.com/shop",
            "https://example.com/?q=1",
            "https://user:pw@example.com",
            "ftp://example.com",
            "javascript:alert(1)",
            "",
        ] {
            assert!(AllowedOrigin::parse(bad).is_err(), "{bad}");
        }
    }
}
