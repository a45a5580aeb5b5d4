//! Extractors whose failures speak our error format.
//!
//! axum's own `Json` answers rejections in plain text and uses 422 for a missing field; our
//! contract is problem+json with 400 for any malformed body, 415 for a wrong content type and
//! 413 for an oversized one. `AppJson` is `Json` with that mapping, for requests and responses.
//!
//! Both `AppJson` and `AppQuery` also refuse text holding U+0000, at the edge and for every
//! handler at once: PostgreSQL `text` cannot store the NUL character, so a NUL that got as far
//! as a query would fail there as a 500. The check is a validation error naming the field.
//! It costs a byte scan per request: a JSON body can carry NUL only as the escape `\u0000`,
//! a query string only as `%00`, and only when one of those appears is the input decoded a
//! second time to find which field holds it.
//!
//! `PathId` (in `path_id`) is the id of the record a route's path names, under the same
//! rule everywhere: one that is not a UUID names nothing, 404.

mod path_id;

pub use path_id::{PathId, Resource};

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::{IpAddr, SocketAddr};

use axum::body::Bytes;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use supportdesk_core::config::TrustedProxies;

use crate::error::{Error, Problem};

#[derive(Debug, Clone, Copy, Default)]
pub struct AppJson<T>(pub T);

impl<T, S> FromRequest<S> for AppJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = InputRejection;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        // As axum's `Json` does, in its order: the content type before a byte of the body is
        // read, then the body within the limit, then its shape. The NUL check sits between the
        // last two, so it sees every string of the body, fields the handler ignores included.
        if !json_content_type(req.headers()) {
            return Err(unsupported_media_type().into());
        }
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|rejection| json_rejection(rejection.into()))?;
        let fields = nul_fields_in_json(&bytes);
        if !fields.is_empty() {
            return Err(InputRejection::Nul(fields));
        }
        match axum::Json::<T>::from_bytes(&bytes) {
            Ok(axum::Json(value)) => Ok(Self(value)),
            Err(rejection) => Err(json_rejection(rejection).into()),
        }
    }
}

impl<T: Serialize> IntoResponse for AppJson<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

/// axum's test of a JSON content type, which axum does not export: `application/json`, or
/// any `application/*+json`, in any case, with or without parameters; the type and subtype
/// are HTTP tokens, as the `mime` crate that axum asks requires.
fn json_content_type(headers: &HeaderMap) -> bool {
    let Some(value) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let essence = value.split(';').next().unwrap_or_default();
    let Some((kind, subtype)) = essence.split_once('/') else {
        return false;
    };
    let token = |s: &str| !s.is_empty() && s.bytes().all(is_token_byte);
    if !token(kind) || !token(subtype) || !kind.eq_ignore_ascii_case("application") {
        return false;
    }
    subtype.eq_ignore_ascii_case("json")
        || subtype
            .rsplit_once('+')
            .is_some_and(|(base, suffix)| !base.is_empty() && suffix.eq_ignore_ascii_case("json"))
}

/// RFC 9110 `tchar`.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn unsupported_media_type() -> Error {
    Error::Body {
        status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
        code: "unsupported_media_type",
        detail: "expected a request with `Content-Type: application/json`".to_owned(),
    }
}

fn json_rejection(rejection: JsonRejection) -> Error {
    let (status, code, detail) = match &rejection {
        JsonRejection::MissingJsonContentType(_) => return unsupported_media_type(),
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
    type Rejection = InputRejection;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let fields = nul_fields_in_query(parts.uri.query().unwrap_or_default());
        if !fields.is_empty() {
            return Err(InputRejection::Nul(fields));
        }
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(value)) => Ok(Self(value)),
            Err(rejection) => Err(query_rejection(&rejection).into()),
        }
    }
}

fn query_rejection(rejection: &QueryRejection) -> Error {
    Error::bad_request(
        "invalid_query",
        format!("the query string is not valid: {}", serde_cause(rejection)),
    )
}

/// Why `AppJson` or `AppQuery` refused a request.
///
/// A NUL is answered as the validation error it is (`validation_failed`, with `errors` naming
/// each field), built here rather than through `Error::Validation` because the names come
/// from the request (`contact.name`, `tags[2]`) and `Error`'s field names are static.
#[derive(Debug)]
pub enum InputRejection {
    /// Any other refusal, answered by `Error`'s single mapping.
    Error(Error),
    /// The fields (JSON paths or query parameters) whose text holds U+0000.
    Nul(Vec<String>),
}

impl From<Error> for InputRejection {
    fn from(error: Error) -> Self {
        Self::Error(error)
    }
}

/// The message given for each field that holds a NUL.
pub const NUL_MESSAGE: &str = "must not contain the NUL character (U+0000)";

/// At most this many fields are named; a body full of NULs needs no longer answer.
const MAX_NUL_FIELDS: usize = 10;

impl IntoResponse for InputRejection {
    fn into_response(self) -> Response {
        match self {
            Self::Error(error) => error.into_response(),
            Self::Nul(fields) => {
                let detail = fields
                    .iter()
                    .map(|field| format!("{field} {NUL_MESSAGE}"))
                    .collect::<Vec<_>>()
                    .join("; ");
                let mut problem =
                    Problem::new(StatusCode::BAD_REQUEST, "validation_failed", detail);
                problem.errors = Some(
                    fields
                        .into_iter()
                        .map(|field| (field, vec![NUL_MESSAGE.to_owned()]))
                        .collect::<BTreeMap<_, _>>(),
                );
                problem.into_response()
            }
        }
    }
}

/// The JSON paths (`subject`, `contact.name`, `tags[2]`; `$` for the whole body) of the
/// strings and object keys in `body` that hold U+0000; empty for all but a few requests.
///
/// JSON carries a NUL only as the escape `\u0000`, so the body is parsed a second time only
/// when the byte scan finds one. A body that does not parse names nothing here: the typed
/// parse that follows refuses it as malformed.
pub fn nul_fields_in_json(body: &[u8]) -> Vec<String> {
    if !has_nul_escape(body) {
        return Vec::new();
    }
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return Vec::new();
    };
    let mut fields = Vec::new();
    collect_nul_paths(&value, &mut String::new(), &mut fields);
    fields
}

/// Whether `body` holds the escape `\u0000`. Walks escape by escape, so the `\u0000` in
/// `"\\u0000"` (an escaped backslash, then the text `u0000`) is not mistaken for one. The
/// hex digits of NUL are all `0`, so case does not matter; `\U0000` is not JSON at all.
fn has_nul_escape(body: &[u8]) -> bool {
    let mut at = 0;
    while let Some(rest) = body.get(at..) {
        let Some(offset) = rest.iter().position(|&b| b == b'\\') else {
            return false;
        };
        let escape = at + offset;
        if body.get(escape + 1) == Some(&b'u')
            && body
                .get(escape + 2..escape + 6)
                .is_some_and(|hex| hex.iter().all(|&d| d == b'0'))
        {
            return true;
        }
        // Skip the backslash and the character it escapes, whatever that is.
        at = escape + 2;
    }
    false
}

fn collect_nul_paths(value: &Value, path: &mut String, fields: &mut Vec<String>) {
    if fields.len() >= MAX_NUL_FIELDS {
        return;
    }
    match value {
        Value::String(text) if text.contains('\0') => push_field(fields, field_name(path)),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let len = path.len();
                let _ = write!(path, "[{index}]");
                collect_nul_paths(item, path, fields);
                path.truncate(len);
            }
        }
        Value::Object(members) => {
            for (key, member) in members {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&key.replace('\0', "\\u0000"));
                if key.contains('\0') {
                    push_field(fields, path.clone());
                }
                collect_nul_paths(member, path, fields);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// A field is named by at most this many characters: the name may be an object key of any
/// length the client chose, and is echoed twice in the answer.
const MAX_FIELD_CHARS: usize = 100;

fn push_field(fields: &mut Vec<String>, mut field: String) {
    if let Some((cut, _)) = field.char_indices().nth(MAX_FIELD_CHARS) {
        field.truncate(cut);
        field.push('…');
    }
    if fields.len() < MAX_NUL_FIELDS && !fields.contains(&field) {
        fields.push(field);
    }
}

fn field_name(path: &str) -> String {
    if path.is_empty() {
        "$".to_owned()
    } else {
        path.to_owned()
    }
}

/// The query parameters whose name or value, percent-decoded as `Query` decodes them, holds
/// U+0000 (a NUL in a name is shown as `\u0000`). Decoded only when `%00` appears at all.
fn nul_fields_in_query(query: &str) -> Vec<String> {
    if !query.contains("%00") {
        return Vec::new();
    }
    let mut fields: Vec<String> = Vec::new();
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        if name.contains('\0') || value.contains('\0') {
            push_field(&mut fields, name.replace('\0', "\\u0000"));
        }
    }
    fields
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

    fn nul_fields(body: &str) -> Vec<String> {
        nul_fields_in_json(body.as_bytes())
    }

    #[test]
    fn json_without_a_nul_names_nothing() {
        assert!(nul_fields(r#"{"subject":"Order 42","tags":["a","b"]}"#).is_empty());
        assert!(nul_fields("").is_empty());
        // Other escapes, in either case of hex digit, are other characters.
        assert!(nul_fields(r#"{"a":"\u000A\u000a\u00e9\u00E9\n\"\t"}"#).is_empty());
        assert!(nul_fields(r#"{"a":"\u0001","b":"\u1000","c":"0000"}"#).is_empty());
    }

    #[test]
    fn an_escaped_backslash_before_u0000_is_not_a_nul() {
        // The text `\u0000`: a backslash, then "u0000".
        let body = r#"{"subject":"C:\\u0000 and \\\\u0000"}"#;
        assert!(!has_nul_escape(body.as_bytes()), "{body}");
        assert!(nul_fields(body).is_empty());
        // Three backslashes: an escaped backslash, then a real NUL escape.
        let body = r#"{"subject":"\\\u0000"}"#;
        assert!(has_nul_escape(body.as_bytes()), "{body}");
        assert_eq!(nul_fields(body), ["subject"]);
    }

    #[test]
    fn a_nul_is_named_by_its_json_path() {
        assert_eq!(nul_fields(r#"{"subject":"\u0000"}"#), ["subject"]);
        assert_eq!(nul_fields(r#"{"subject":"a\u0000b"}"#), ["subject"]);
        assert_eq!(
            nul_fields(r#"{"contact":{"email":"c@example.com","name":"Carl\u0000a"}}"#),
            ["contact.name"]
        );
        assert_eq!(
            nul_fields(r#"{"tags":["ok","bad\u0000",{"deep":["x","\u0000"]}]}"#),
            ["tags[1]", "tags[2].deep[1]"]
        );
        assert_eq!(nul_fields(r#"["\u0000"]"#), ["[0]"]);
        assert_eq!(nul_fields(r#""\u0000""#), ["$"]);
    }

    #[test]
    fn a_nul_in_an_object_key_is_named_too() {
        assert_eq!(
            nul_fields(r#"{"contact":{"na\u0000me":"Carla"}}"#),
            [r"contact.na\u0000me"]
        );
        // The key and its value: one field, named once.
        assert_eq!(nul_fields(r#"{"\u0000":"\u0000"}"#), [r"\u0000"]);
    }

    #[test]
    fn many_nuls_name_a_bounded_number_of_fields() {
        let members: Vec<String> = (0..50).map(|i| format!(r#""f{i}":"\u0000""#)).collect();
        let body = format!("{{{}}}", members.join(","));
        assert_eq!(nul_fields(&body).len(), MAX_NUL_FIELDS);
    }

    #[test]
    fn a_long_name_is_cut_short() {
        let key = "k".repeat(5000);
        let fields = nul_fields(&format!(r#"{{"{key}":"\u0000"}}"#));
        assert_eq!(fields, [format!("{}…", "k".repeat(MAX_FIELD_CHARS))]);
    }

    #[test]
    fn escapes_cut_short_or_malformed_json_name_nothing() {
        // Left to the typed parse, which answers malformed_json.
        assert!(nul_fields(r#"{"a":"\u000"#).is_empty());
        assert!(nul_fields(r#"{"a":"\u0000"#).is_empty());
        assert!(nul_fields(r#"{"a":"\U0000"}"#).is_empty());
        assert!(!has_nul_escape(br"\"));
        assert!(!has_nul_escape(br"\u000"));
    }

    #[test]
    fn a_nul_in_a_query_names_the_parameter() {
        assert!(nul_fields_in_query("").is_empty());
        assert!(nul_fields_in_query("q=order&limit=20").is_empty());
        // `%2500` decodes to the text "%00", not to a NUL.
        assert!(nul_fields_in_query("q=%2500").is_empty());
        assert_eq!(nul_fields_in_query("limit=5&q=t%00x"), ["q"]);
        assert_eq!(
            nul_fields_in_query("q=%00&q=%00&status=%00"),
            ["q", "status"]
        );
        assert_eq!(nul_fields_in_query("a%00b=1"), [r"a\u0000b"]);
    }

    #[test]
    fn json_content_types_are_recognised_as_axum_does() {
        fn is_json(content_type: &str) -> bool {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, content_type.parse().unwrap());
            json_content_type(&headers)
        }
        assert!(is_json("application/json"));
        assert!(is_json("application/json; charset=utf-8"));
        assert!(is_json("application/json;charset=utf-8"));
        assert!(is_json("Application/JSON"));
        assert!(is_json("application/cloudevents+json"));
        assert!(!is_json("text/json"));
        assert!(!is_json("text/plain"));
        assert!(!is_json("application/jsonx"));
        assert!(!is_json("application/+json"));
        assert!(!is_json("application/json garbage"));
        assert!(!is_json("application/"));
        assert!(!is_json("/json"));
        assert!(!json_content_type(&HeaderMap::new()));
    }

    #[test]
    fn a_nul_is_answered_as_a_validation_error_naming_the_field() {
        let response = InputRejection::Nul(vec!["subject".into()]).into_response();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "application/problem+json"
        );
    }

    #[test]
    fn garbage_stops_the_walk() {
        let trusted = TrustedProxies::parse("10.0.0.0/8").unwrap();
        let got = ClientIp::resolve(ip("10.0.0.2"), &["198.51.100.7, nonsense"], &trusted);
        assert_eq!(got.0, ip("10.0.0.2"));
    }
}
