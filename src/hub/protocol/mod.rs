//! The SignalR hub protocols, version 1, as the official clients (`@microsoft/signalr` with
//! or without `@microsoft/signalr-protocol-msgpack`, and the .NET, Java, Swift and Python
//! ones) speak them over the WebSocket after negotiating (`HubProtocol.md`):
//!
//! - `json`: text frames, each record one JSON object ended by the separator `0x1e`;
//! - `msgpack`: binary frames, each record a MessagePack array behind its length as a varint.
//!
//! The handshake request that opens every connection is JSON whichever protocol it chooses,
//! and so is its answer. A client may put several records in one WebSocket message or split
//! one record across several, so its bytes go through a [`Reader`] that keeps an unfinished
//! record until the rest arrives, within [`MAX_RECORD_BYTES`], as ASP.NET Core does.
//!
//! Parsing is lenient where the clients differ (unknown fields and message types are ignored,
//! as ASP.NET does) and strict where a mistake would be ours to answer (an Invocation's
//! `target` and `arguments`). Both protocols parse into the same [`Incoming`] (arguments as
//! raw JSON, which the hub methods bind by position) and encode the same replies, so nothing
//! past this module knows which one a connection speaks.

pub mod json;
pub mod msgpack;

use axum::extract::ws::Message;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// The largest record a client may send, and what a connection keeps of an unfinished one:
/// room for a message of the longest body REST takes (10 000 characters) written the longest
/// way JSON may write it (six bytes a character, `\u001f`), and the rest of the invocation.
/// (`tests/api/hub.rs` holds it to the REST limit.)
pub const MAX_RECORD_BYTES: usize = 64 * 1024;
/// The version of both protocols this hub speaks; a client asking for an older one is
/// served, as ASP.NET Core serves any version up to its own.
const VERSION: u32 = 1;

/// The first whole record of some bytes (without its framing) and what follows it; `None`
/// while the record is unfinished.
pub type Split<'a> = Option<(&'a [u8], &'a [u8])>;

/// Which hub protocol a connection speaks, from its handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    Json,
    MessagePack,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("a message is larger than the hub accepts ({MAX_RECORD_BYTES} bytes)")]
    TooLarge,
    #[error("a message is not valid for the hub protocol: {0}")]
    Malformed(String),
}

/// A message from a client, as far as the hub acts on it.
#[derive(Debug)]
pub enum Incoming {
    /// A hub method call. `id` absent: the caller expects no Completion.
    Invocation {
        id: Option<String>,
        target: String,
        arguments: Vec<Box<RawValue>>,
    },
    /// The hub has no streaming methods: answered with a Completion error.
    StreamInvocation {
        id: String,
        target: String,
    },
    Ping,
    Close,
    /// Stream items, completions of server-to-client calls (the hub makes none),
    /// cancellations, acks and message types added after version 1: nothing to do.
    Ignored,
}

/// The answer to an Invocation that carried an id.
#[derive(Debug, Clone, Copy)]
pub enum Completion<'a> {
    /// A method that returns nothing: the Completion carries no `result` at all.
    Void,
    Result(&'a Value),
    /// A message safe to show.
    Error(&'a str),
}

#[derive(Deserialize)]
struct HandshakeRequest {
    protocol: String,
    version: u32,
}

/// The protocol a handshake request asks for; `Err` holds the error to answer with (safe to
/// show, worded as ASP.NET Core words it).
pub fn handshake(record: &[u8]) -> Result<Protocol, String> {
    let request: HandshakeRequest = serde_json::from_slice(record)
        .map_err(|_| "the handshake request is not valid JSON with a protocol and a version")?;
    let protocol = match request.protocol.as_str() {
        "json" => Protocol::Json,
        "messagepack" => Protocol::MessagePack,
        other => return Err(format!("Requested protocol '{other}' is not available.")),
    };
    if request.version > VERSION {
        return Err(format!(
            "The server does not support version {} of the '{}' protocol.",
            request.version, request.protocol
        ));
    }
    Ok(protocol)
}

/// The handshake's failure answer (a JSON record in a text frame); the socket closes after it.
pub fn handshake_error(error: &str) -> Message {
    let body = serde_json::json!({ "error": error });
    Message::Text(format!("{body}{}", json::RECORD_SEPARATOR).into())
}

impl Protocol {
    /// The handshake's success answer, `{}` and the separator, in the frame type the
    /// protocol uses from then on.
    pub fn handshake_ok(self) -> Message {
        match self {
            Self::Json => text(json::handshake_ok()),
            Self::MessagePack => binary(json::handshake_ok().into_bytes()),
        }
    }

    pub fn ping(self) -> Message {
        match self {
            Self::Json => text(json::ping()),
            Self::MessagePack => binary(msgpack::ping()),
        }
    }

    /// The server ends the connection; `allow_reconnect` tells an auto-reconnecting client
    /// whether to negotiate again.
    pub fn close(self, error: Option<&str>, allow_reconnect: bool) -> Message {
        match self {
            Self::Json => text(json::close(error, allow_reconnect)),
            Self::MessagePack => binary(msgpack::close(error, allow_reconnect)),
        }
    }

    pub fn completion(self, id: &str, completion: Completion<'_>) -> Message {
        match self {
            Self::Json => text(json::completion(id, completion)),
            Self::MessagePack => binary(msgpack::completion(id, completion)),
        }
    }

    /// An event: the client's handler `target` called with one argument, already
    /// serialised as JSON where it was raised.
    pub fn event(self, target: &str, argument: &RawValue) -> Message {
        match self {
            Self::Json => text(json::event(target, argument)),
            Self::MessagePack => binary(msgpack::event(target, argument)),
        }
    }

    /// Splits off the first whole record of `bytes`: `Ok(Some((record, rest)))`, or
    /// `Ok(None)` while it is unfinished.
    fn split(self, bytes: &[u8]) -> Result<Split<'_>, ProtocolError> {
        match self {
            Self::Json => Ok(json::split(bytes)),
            Self::MessagePack => msgpack::split(bytes),
        }
    }

    fn parse(self, record: &[u8]) -> Result<Incoming, ProtocolError> {
        match self {
            Self::Json => json::parse(record),
            Self::MessagePack => msgpack::parse(record),
        }
    }
}

fn text(record: String) -> Message {
    Message::Text(record.into())
}

fn binary(record: Vec<u8>) -> Message {
    Message::Binary(record.into())
}

/// A client's bytes, as records: whole ones are parsed, an unfinished one is kept until the
/// rest arrives.
pub struct Reader {
    protocol: Option<Protocol>,
    unfinished: Vec<u8>,
}

/// What a connection's bytes held: the messages they completed, in order, and the error
/// that ends the connection after them, if any.
#[derive(Debug, Default)]
pub struct Read {
    messages: Vec<Incoming>,
    error: Option<ProtocolError>,
}

impl Read {
    /// The messages, in order, and the error after them.
    pub fn into_parts(self) -> (Vec<Incoming>, Option<ProtocolError>) {
        (self.messages, self.error)
    }
}

impl Reader {
    /// A reader of the handshake, then of the protocol it chooses.
    pub fn new() -> Self {
        Self {
            protocol: None,
            unfinished: Vec::new(),
        }
    }

    /// The protocol chosen by the handshake, once it was read.
    pub fn protocol(&self) -> Option<Protocol> {
        self.protocol
    }

    /// Reads the handshake request: `Ok(None)` while it is unfinished, `Ok(Some(protocol))`
    /// once read (what followed it waits for [`Reader::read`]), `Err` with the answer to
    /// give when it is refused.
    pub fn handshake(&mut self, data: &[u8]) -> Result<Option<Protocol>, String> {
        self.unfinished.extend_from_slice(data);
        let Some((request, rest)) = json::split(&self.unfinished) else {
            if self.unfinished.len() > MAX_RECORD_BYTES {
                return Err(ProtocolError::TooLarge.to_string());
            }
            return Ok(None);
        };
        let protocol = handshake(request)?;
        self.unfinished = rest.to_vec();
        self.protocol = Some(protocol);
        Ok(Some(protocol))
    }

    /// The messages `data` completes (with what was kept of an earlier frame).
    pub fn read(&mut self, data: &[u8]) -> Read {
        let Some(protocol) = self.protocol else {
            return Read {
                messages: Vec::new(),
                error: Some(ProtocolError::Malformed("no handshake yet".into())),
            };
        };
        let mut held = std::mem::take(&mut self.unfinished);
        let bytes: &[u8] = if held.is_empty() {
            data
        } else {
            held.extend_from_slice(data);
            &held
        };
        let mut read = Read::default();
        let mut rest = bytes;
        loop {
            match protocol.split(rest) {
                Ok(Some((record, after))) => {
                    rest = after;
                    match protocol.parse(record) {
                        Ok(message) => read.messages.push(message),
                        Err(error) => {
                            read.error = Some(error);
                            return read;
                        }
                    }
                }
                Ok(None) if rest.len() > MAX_RECORD_BYTES => {
                    read.error = Some(ProtocolError::TooLarge);
                    return read;
                }
                Ok(None) => break,
                Err(error) => {
                    read.error = Some(error);
                    return read;
                }
            }
        }
        self.unfinished = rest.to_vec();
        read
    }
}

impl Default for Reader {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(protocol: Protocol) -> Reader {
        let mut reader = Reader::new();
        let request = match protocol {
            Protocol::Json => "{\"protocol\":\"json\",\"version\":1}\u{1e}",
            Protocol::MessagePack => "{\"protocol\":\"messagepack\",\"version\":1}\u{1e}",
        };
        assert_eq!(reader.handshake(request.as_bytes()), Ok(Some(protocol)));
        reader
    }

    #[test]
    fn handshakes_choose_a_protocol_at_any_version_up_to_ours() {
        for (request, protocol) in [
            (r#"{"protocol":"json","version":1}"#, Protocol::Json),
            (r#"{"protocol":"json","version":0}"#, Protocol::Json),
            (
                r#"{"protocol":"messagepack","version":1}"#,
                Protocol::MessagePack,
            ),
        ] {
            assert_eq!(handshake(request.as_bytes()), Ok(protocol), "{request}");
        }
        assert_eq!(
            handshake(br#"{"protocol":"xml","version":1}"#),
            Err("Requested protocol 'xml' is not available.".into())
        );
        assert!(handshake(br#"{"protocol":"json","version":2}"#).is_err());
        assert!(handshake(br#"{"protocol":"json"}"#).is_err());
        assert!(handshake(b"not json").is_err());
    }

    #[test]
    fn a_handshake_split_across_frames_waits_for_its_end() {
        let mut reader = Reader::new();
        assert_eq!(reader.handshake(b"{\"protocol\":\"js"), Ok(None));
        assert_eq!(
            reader.handshake("on\",\"version\":1}\u{1e}{\"type\":6}".as_bytes()),
            Ok(Some(Protocol::Json))
        );
        let read = reader.read("\u{1e}".as_bytes());
        assert!(matches!(read.messages[..], [Incoming::Ping]), "{read:?}");
    }

    #[test]
    fn a_json_record_split_across_frames_is_kept_until_its_separator() {
        let mut reader = reader(Protocol::Json);
        let first = reader.read(b"{\"type\":1,\"target\":\"Typ");
        assert!(first.messages.is_empty() && first.error.is_none());
        let rest =
            reader.read("ing\",\"arguments\":[true]}\u{1e}{\"type\":6}\u{1e}{\"ty".as_bytes());
        assert!(rest.error.is_none(), "{rest:?}");
        assert!(matches!(
            &rest.messages[..],
            [Incoming::Invocation { target, .. }, Incoming::Ping] if target == "Typing"
        ));
        let last = reader.read("pe\":6}\u{1e}".as_bytes());
        assert!(matches!(last.messages[..], [Incoming::Ping]));
    }

    #[test]
    fn an_unfinished_record_beyond_the_limit_ends_the_connection() {
        let mut reader = reader(Protocol::Json);
        let big = vec![b' '; MAX_RECORD_BYTES + 1];
        assert_eq!(reader.read(&big).error, Some(ProtocolError::TooLarge));
        let mut reader = Reader::new();
        assert!(reader.handshake(&big).is_err());
    }

    #[test]
    fn a_messagepack_record_split_across_frames_is_kept_until_its_length() {
        let mut reader = reader(Protocol::MessagePack);
        let mut frame = msgpack::tests::record(&rmpv::Value::Array(vec![6.into()]));
        frame.extend(msgpack::tests::record(&rmpv::Value::Array(vec![
            1.into(),
            rmpv::Value::Map(vec![]),
            "7".into(),
            "Typing".into(),
            rmpv::Value::Array(vec![true.into()]),
        ])));
        let (head, tail) = frame.split_at(5);
        let first = reader.read(head);
        assert!(matches!(first.messages[..], [Incoming::Ping]), "{first:?}");
        let rest = reader.read(tail);
        assert!(matches!(
            &rest.messages[..],
            [Incoming::Invocation { id: Some(id), arguments, .. }]
                if id == "7" && arguments[0].get() == "true"
        ));
    }

    #[test]
    fn records_before_a_bad_one_are_read_and_the_bad_one_ends_the_connection() {
        let mut reader = reader(Protocol::Json);
        let read = reader.read("{\"type\":6}\u{1e}[]\u{1e}{\"type\":6}\u{1e}".as_bytes());
        assert!(matches!(read.messages[..], [Incoming::Ping]));
        assert!(matches!(read.error, Some(ProtocolError::Malformed(_))));
    }

    #[test]
    fn replies_use_the_frame_type_of_their_protocol() {
        assert!(
            matches!(Protocol::Json.handshake_ok(), Message::Text(t) if t.as_str() == "{}\u{1e}")
        );
        assert!(
            matches!(Protocol::MessagePack.handshake_ok(), Message::Binary(b) if &b[..] == "{}\u{1e}".as_bytes())
        );
        assert!(matches!(Protocol::Json.ping(), Message::Text(_)));
        assert!(matches!(Protocol::MessagePack.ping(), Message::Binary(_)));
        assert!(matches!(
            handshake_error("no"),
            Message::Text(t) if t.as_str() == "{\"error\":\"no\"}\u{1e}"
        ));
    }
}
