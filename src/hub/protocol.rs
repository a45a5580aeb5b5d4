//! The SignalR JSON hub protocol, version 1: what the official clients (`@microsoft/signalr`
//! and the .NET, Java and Swift ones) speak over the WebSocket after negotiating.
//!
//! Every message is one JSON object followed by the record separator `0x1e`; a frame may hold
//! several records, and the official clients never split a record across frames, so neither
//! do we accept one split (a frame whose last record is unterminated is a protocol error). The
//! first record is the handshake request; the server answers `{}` or `{"error": ...}`.
//!
//! Parsing is lenient where the clients differ (unknown fields and message types are ignored,
//! as ASP.NET does) and strict where a mistake would be ours to answer (an Invocation's
//! `target` and `arguments`).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

pub const RECORD_SEPARATOR: char = '\u{1e}';

/// The only protocol this hub serves.
pub const PROTOCOL: &str = "json";
/// The versions of it we accept: 1, as every client sends without stateful reconnect (which
/// negotiate never offers).
const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("a message was not terminated by the record separator")]
    Unterminated,
    #[error("a message is not valid JSON for the hub protocol: {0}")]
    Malformed(String),
}

/// The records of a text frame, without their separators.
pub fn records(frame: &str) -> Result<impl Iterator<Item = &str>, ProtocolError> {
    let Some(body) = frame.strip_suffix(RECORD_SEPARATOR) else {
        return Err(ProtocolError::Unterminated);
    };
    Ok(body.split(RECORD_SEPARATOR))
}

#[derive(Deserialize)]
struct HandshakeRequest {
    protocol: String,
    version: u32,
}

/// Checks the handshake request; `Err` holds the error to answer with (safe to show).
pub fn handshake(record: &str) -> Result<(), String> {
    let request: HandshakeRequest = serde_json::from_str(record)
        .map_err(|_| "the handshake request is not valid JSON with a protocol and a version")?;
    if request.protocol != PROTOCOL {
        return Err(format!(
            "Requested protocol '{}' is not available.",
            request.protocol
        ));
    }
    if request.version != VERSION {
        return Err(format!(
            "The server does not support version {} of the '{}' protocol.",
            request.version, request.protocol
        ));
    }
    Ok(())
}

/// The handshake's success answer, a record of its own.
pub fn handshake_ok() -> String {
    format!("{{}}{RECORD_SEPARATOR}")
}

/// The handshake's failure answer; the socket closes after it.
pub fn handshake_error(error: &str) -> String {
    let body = serde_json::json!({ "error": error });
    format!("{body}{RECORD_SEPARATOR}")
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawIncoming {
    #[serde(rename = "type")]
    kind: u32,
    invocation_id: Option<String>,
    target: Option<String>,
    arguments: Option<Vec<Box<RawValue>>>,
}

pub fn parse(record: &str) -> Result<Incoming, ProtocolError> {
    let raw: RawIncoming =
        serde_json::from_str(record).map_err(|e| ProtocolError::Malformed(e.to_string()))?;
    let malformed = |what: &str| ProtocolError::Malformed(what.to_owned());
    Ok(match raw.kind {
        1 => Incoming::Invocation {
            id: match raw.invocation_id {
                Some(id) if id.is_empty() => return Err(malformed("an empty invocationId")),
                id => id,
            },
            target: raw
                .target
                .filter(|t| !t.is_empty())
                .ok_or_else(|| malformed("an invocation without a target"))?,
            arguments: raw
                .arguments
                .ok_or_else(|| malformed("an invocation without arguments"))?,
        },
        4 => Incoming::StreamInvocation {
            id: raw
                .invocation_id
                .filter(|id| !id.is_empty())
                .ok_or_else(|| malformed("a stream invocation without an invocationId"))?,
            target: raw.target.unwrap_or_default(),
        },
        6 => Incoming::Ping,
        7 => Incoming::Close,
        _ => Incoming::Ignored,
    })
}

/// A message to a client.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Outgoing<'a> {
    /// An event: a call of the client's handler `target` with `arguments`, no answer expected.
    Invocation {
        #[serde(rename = "type")]
        kind: Kind<1>,
        target: &'a str,
        arguments: [&'a RawValue; 1],
    },
    /// The answer to an Invocation that carried an id: a result or an error, never both.
    Result {
        #[serde(rename = "type")]
        kind: Kind<3>,
        #[serde(rename = "invocationId")]
        id: &'a str,
        result: &'a Value,
    },
    Error {
        #[serde(rename = "type")]
        kind: Kind<3>,
        #[serde(rename = "invocationId")]
        id: &'a str,
        error: &'a str,
    },
    Ping {
        #[serde(rename = "type")]
        kind: Kind<6>,
    },
    /// The server ends the connection; `allow_reconnect` tells an auto-reconnecting client
    /// whether to negotiate again.
    Close {
        #[serde(rename = "type")]
        kind: Kind<7>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'a str>,
        #[serde(rename = "allowReconnect")]
        allow_reconnect: bool,
    },
}

/// A message type number, serialised as itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct Kind<const N: u8>;

impl<const N: u8> Serialize for Kind<N> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(N)
    }
}

impl Outgoing<'_> {
    /// The message as a record, separator included.
    pub fn record(&self) -> String {
        // Serialising plain data to a string cannot fail.
        let mut out = serde_json::to_string(self).unwrap_or_default();
        out.push(RECORD_SEPARATOR);
        out
    }
}

pub fn ping() -> String {
    Outgoing::Ping { kind: Kind }.record()
}

pub fn close(error: Option<&str>, allow_reconnect: bool) -> String {
    Outgoing::Close {
        kind: Kind,
        error,
        allow_reconnect,
    }
    .record()
}

pub fn completion_result(id: &str, result: &Value) -> String {
    Outgoing::Result {
        kind: Kind,
        id,
        result,
    }
    .record()
}

pub fn completion_error(id: &str, error: &str) -> String {
    Outgoing::Error {
        kind: Kind,
        id,
        error,
    }
    .record()
}

/// An event record: `target` called with one argument, already serialised.
pub fn event(target: &str, argument: &RawValue) -> String {
    Outgoing::Invocation {
        kind: Kind,
        target,
        arguments: [argument],
    }
    .record()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_splits_into_its_records() {
        let frame = "{\"type\":6}\u{1e}{\"type\":1,\"target\":\"Typing\",\"arguments\":[]}\u{1e}";
        let all: Vec<&str> = records(frame).unwrap().collect();
        assert_eq!(all.len(), 2);
        assert!(matches!(parse(all[0]).unwrap(), Incoming::Ping));
        assert!(matches!(
            parse(all[1]).unwrap(),
            Incoming::Invocation { id: None, ref target, .. } if target == "Typing"
        ));
    }

    #[test]
    fn an_unterminated_record_is_refused() {
        assert_eq!(
            records("{\"type\":6}").err(),
            Some(ProtocolError::Unterminated)
        );
        assert_eq!(
            records("{\"type\":6}\u{1e}{\"ty").err(),
            Some(ProtocolError::Unterminated)
        );
    }

    #[test]
    fn the_json_protocol_version_1_is_the_one_handshake_accepted() {
        assert_eq!(handshake(r#"{"protocol":"json","version":1}"#), Ok(()));
        assert_eq!(
            handshake(r#"{"protocol":"messagepack","version":1}"#),
            Err("Requested protocol 'messagepack' is not available.".into())
        );
        assert!(handshake(r#"{"protocol":"json","version":2}"#).is_err());
        assert!(handshake(r#"{"protocol":"json"}"#).is_err());
        assert!(handshake("not json").is_err());
        assert_eq!(handshake_ok(), "{}\u{1e}");
        assert_eq!(
            handshake_error("no"),
            "{\"error\":\"no\"}\u{1e}",
            "an object with the error"
        );
    }

    #[test]
    fn invocations_keep_their_id_target_and_raw_arguments() {
        let Incoming::Invocation {
            id,
            target,
            arguments,
        } = parse(r#"{"type":1,"invocationId":"7","target":"SendNote","arguments":["c",{"a":1}],"extra":true}"#)
            .unwrap()
        else {
            panic!("an invocation");
        };
        assert_eq!(id.as_deref(), Some("7"));
        assert_eq!(target, "SendNote");
        assert_eq!(arguments.len(), 2);
        assert_eq!(arguments[1].get(), r#"{"a":1}"#);
    }

    #[test]
    fn malformed_invocations_are_protocol_errors() {
        for bad in [
            r#"{"type":1,"arguments":[]}"#,
            r#"{"type":1,"target":"","arguments":[]}"#,
            r#"{"type":1,"target":"X"}"#,
            r#"{"type":1,"invocationId":"","target":"X","arguments":[]}"#,
            r#"{"type":4,"target":"X","arguments":[]}"#,
            r#"{"target":"X"}"#,
            r#"{"type":"1"}"#,
            "[]",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn other_and_future_message_types_are_ignored() {
        for other in [
            r#"{"type":2,"invocationId":"1","item":null}"#,
            r#"{"type":3,"invocationId":"1","result":1}"#,
            r#"{"type":5,"invocationId":"1"}"#,
            r#"{"type":8,"sequenceId":1}"#,
            r#"{"type":42}"#,
        ] {
            assert!(
                matches!(parse(other).unwrap(), Incoming::Ignored),
                "{other}"
            );
        }
        assert!(matches!(
            parse(r#"{"type":7,"error":"bye"}"#).unwrap(),
            Incoming::Close
        ));
    }

    #[test]
    fn server_messages_are_records_of_the_documented_shape() {
        assert_eq!(ping(), "{\"type\":6}\u{1e}");
        assert_eq!(
            close(None, true),
            "{\"type\":7,\"allowReconnect\":true}\u{1e}"
        );
        assert_eq!(
            close(Some("deactivated"), false),
            "{\"type\":7,\"error\":\"deactivated\",\"allowReconnect\":false}\u{1e}"
        );
        assert_eq!(
            completion_result("3", &serde_json::json!({"id": 1})),
            "{\"type\":3,\"invocationId\":\"3\",\"result\":{\"id\":1}}\u{1e}"
        );
        assert_eq!(
            completion_error("3", "not found"),
            "{\"type\":3,\"invocationId\":\"3\",\"error\":\"not found\"}\u{1e}"
        );
        let payload = RawValue::from_string(r#"{"agentId":"a"}"#.into()).unwrap();
        assert_eq!(
            event("PresenceChanged", &payload),
            "{\"type\":1,\"target\":\"PresenceChanged\",\"arguments\":[{\"agentId\":\"a\"}]}\u{1e}"
        );
    }
}
