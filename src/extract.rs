//! Extractors whose failures speak our error format.
//!
//! axum's own `Json` answers rejections in plain text and uses 422 for a missing field; our
//! contract is problem+json with 400 for any malformed body, 415 for a wrong content type and
//! 413 for an oversized one. `AppJson` is `Json` with that mapping, for requests and responses.

use std::net::{IpAddr, SocketAddr};

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::config::TrustedProxies;
use crate::error::Error;

#[derive(Debug, Clone, Copy, Default)]
pub struct AppJson<T>(pub T);

impl<T, S> FromRequest<S> for AppJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(value)) => Ok(Self(value)),
            Err(rejection) => Err(json_rejection(rejection)),
        }
    }
}

impl<T: Serialize> IntoResponse for AppJson<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

fn json_rejection(rejection: JsonRejection) -> Error {
    let (status, code, detail) = match &rejection {
        JsonRejection::MissingJsonContentType(_) => (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "expected a request with `Content-Type: application/json`".to_owned(),
        ),
        JsonRejection::JsonSyntaxError(err) => (
            StatusCode::BAD_REQUEST,
            "malformed_json",
            format!("the body is not valid JSON: {}", serde_cause(err)),
        ),
        JsonRejection::JsonDataError(err) => (
            StatusCode::BAD_REQUEST,
            "invalid_body",
            format!(
                "the body does not have the expected shape: {}",
                serde_cause(err)
            ),
        ),
        JsonRejection::BytesRejection(_) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            (
                StatusCode::PAYLOAD_TOO_LARGE,
                "body_too_large",
                "the request body is larger than the 1 MiB limit".to_owned(),
            )
        }
        _ => (
            StatusCode::BAD_REQUEST,
            "invalid_body",
            "the request body could not be read".to_owned(),
        ),
    };
    Error::Body {
        status,
        code,
        detail,
    }
}

/// `Query` whose rejection (a duplicated or mistyped parameter) is a problem+json 400.
#[derive(Debug, Clone, Copy, Default)]
pub struct AppQuery<T>(pub T);

impl<T, S> FromRequestParts<S> for AppQuery<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(value)) => Ok(Self(value)),
            Err(rejection) => Err(query_rejection(&rejection)),
        }
    }
}

fn query_rejection(rejection: &QueryRejection) -> Error {
    Error::bad_request(
        "invalid_query",
        format!("the query string is not valid: {}", serde_cause(rejection)),
    )
}

/// An id from a path segment. One that is not a UUID names nothing here: 404, like an id of
/// another workspace's, so ids reveal nothing either way.
pub fn path_id(raw: &str, what: &'static str) -> Result<uuid::Uuid, Error> {
    raw.parse().map_err(|_| Error::NotFound(what))
}

/// serde's own message ("missing field `email` at line 1 column 2"), without axum's prefix.
fn serde_cause(err: &dyn std::error::Error) -> String {
    let mut source: &dyn std::error::Error = err;
    while let Some(next) = source.source() {
        source = next;
    }
    source.to_string()
}

/// The address of the client as far as we can trust it.
///
/// The socket peer, unless that peer is a proxy listed in `TRUSTED_PROXIES`: then the
/// `X-Forwarded-For` chain is walked from the right (the entries our proxies appended) past
/// every trusted hop, and the first untrusted address is the client. Entries left of that
/// are whatever the client chose to send and are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

impl ClientIp {
    pub fn resolve(peer: IpAddr, forwarded_for: &[&str], trusted: &TrustedProxies) -> Self {
        let peer = peer.to_canonical();
        if !trusted.contains(peer) {
            return Self(peer);
        }
        let mut client = peer;
        for entry in forwarded_for
            .iter()
            .flat_map(|header| header.split(','))
            .rev()
        {
            match parse_forwarded_entry(entry) {
                Some(ip) => {
                    client = ip.to_canonical();
                    if !trusted.contains(client) {
                        break;
                    }
                }
                // A garbled entry ends what we can believe; the last good hop stands.
                None => break,
            }
        }
        Self(client)
    }
}

impl ClientIp {
    /// The identity a per-client limit counts: the address itself for IPv4, the /64 network
    /// for IPv6, since one subscriber routinely holds a whole /64 and could otherwise rotate
    /// through addresses to dodge any limit.
    pub fn rate_limit_key(&self) -> String {
        match self.0 {
            IpAddr::V4(v4) => v4.to_string(),
            IpAddr::V6(v6) => {
                let network = u128::from(v6) & !((1u128 << 64) - 1);
                format!("{}/64", std::net::Ipv6Addr::from(network))
            }
        }
    }
}

/// One `X-Forwarded-For` hop: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1` or `[2001:db8::1]:5678`.
fn parse_forwarded_entry(entry: &str) -> Option<IpAddr> {
    let entry = entry.trim();
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|s| s.ip()))
        .or_else(|| {
            entry
                .strip_prefix('[')
                .and_then(|rest| rest.strip_suffix(']'))
                .and_then(|inner| inner.parse().ok())
        })
}

/// Anything that can tell which proxies are trusted (the application state).
pub trait HasTrustedProxies {
    fn trusted_proxies(&self) -> &TrustedProxies;
}

impl<S> FromRequestParts<S> for ClientIp
where
    S: HasTrustedProxies + Send + Sync,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let ConnectInfo(peer) = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .copied()
            .ok_or_else(|| anyhow::anyhow!("server started without connect info"))?;
        let forwarded: Vec<&str> = parts
            .headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        Ok(Self::resolve(
            peer.ip(),
            &forwarded,
            state.trusted_proxies(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn untrusted_peer_is_the_client_whatever_it_claims() {
        let trusted = TrustedProxies::parse("10.0.0.0/8").unwrap();
        let got = ClientIp::resolve(ip("203.0.113.9"), &["1.2.3.4"], &trusted);
        assert_eq!(got.0, ip("203.0.113.9"));
    }

    #[test]
    fn trusted_peer_yields_the_rightmost_untrusted_hop() {
        let trusted = TrustedProxies::parse("10.0.0.0/8").unwrap();
        // The client forged 6.6.6.6; 198.51.100.7 is what our first proxy saw.
        let got = ClientIp::resolve(
            ip("10.0.0.2"),
            &["6.6.6.6, 198.51.100.7", "10.0.0.1"],
            &trusted,
        );
        assert_eq!(got.0, ip("198.51.100.7"));
    }

    #[test]
    fn trusted_peer_without_header_is_the_client() {
        let trusted = TrustedProxies::parse("10.0.0.0/8").unwrap();
        assert_eq!(
            ClientIp::resolve(ip("10.0.0.2"), &[], &trusted).0,
            ip("10.0.0.2")
        );
    }

    #[test]
    fn hops_with_ports_are_understood() {
        let trusted = TrustedProxies::parse("10.0.0.0/8").unwrap();
        for (header, client) in [
            ("198.51.100.7:51234", "198.51.100.7"),
            ("[2001:db8::7]:443", "2001:db8::7"),
            ("[2001:db8::7]", "2001:db8::7"),
        ] {
            let got = ClientIp::resolve(ip("10.0.0.2"), &[header], &trusted);
            assert_eq!(got.0, ip(client), "{header}");
        }
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_64() {
        let a = ClientIp(ip("2001:db8:1:2:aaaa::1")).rate_limit_key();
        let b = ClientIp(ip("2001:db8:1:2:ffff::9")).rate_limit_key();
        let c = ClientIp(ip("2001:db8:1:3::1")).rate_limit_key();
        assert_eq!(a, "2001:db8:1:2::/64");
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(ClientIp(ip("203.0.113.9")).rate_limit_key(), "203.0.113.9");
    }

    #[test]
    fn garbage_stops_the_walk() {
        let trusted = TrustedProxies::parse("10.0.0.0/8").unwrap();
        let got = ClientIp::resolve(ip("10.0.0.2"), &["198.51.100.7, nonsense"], &trusted);
        assert_eq!(got.0, ip("10.0.0.2"));
    }
}
