//! The JSON hub protocol: one JSON object per record, ended by the record separator `0x1e`,
//! in text frames.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Completion, Incoming, ProtocolError, Split};

pub const RECORD_SEPARATOR: char = '\u{1e}';
const SEPARATOR: u8 = 0x1e;

/// The first record of `bytes` (without its separator) and what follows it, once whole.
pub fn split(bytes: &[u8]) -> Split<'_> {
    let end = bytes.iter().position(|&b| b == SEPARATOR)?;
    Some((&bytes[..end], &bytes[end + 1..]))
}

/// The handshake's success answer, a record of its own.
pub fn handshake_ok() -> String {
    format!("{{}}{RECORD_SEPARATOR}")
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

pub fn parse(record: &[u8]) -> Result<Incoming, ProtocolError> {
    let raw: RawIncoming =
        serde_json::from_slice(record).map_err(|e| ProtocolError::Malformed(e.to_string()))?;
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
enum Outgoing<'a> {
    /// An event: a call of the client's handler `target` with `arguments`, no answer expected.
    Invocation {
        #[serde(rename = "type")]
        kind: Kind<1>,
        target: &'a str,
        arguments: [&'a RawValue; 1],
    },
    /// The answer to an Invocation that carried an id: a result, nothing (a void method)
    /// or an error, never two of them.
    Result {
        #[serde(rename = "type")]
        kind: Kind<3>,
        #[serde(rename = "invocationId")]
        id: &'a str,
        result: &'a Value,
    },
    Void {
        #[serde(rename = "type")]
        kind: Kind<3>,
        #[serde(rename = "invocationId")]
        id: &'a str,
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
struct Kind<const N: u8>;

impl<const N: u8> Serialize for Kind<N> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(N)
    }
}

impl Outgoing<'_> {
    /// The message as a record, separator included.
    fn record(&self) -> String {
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

pub fn completion(id: &str, completion: Completion<'_>) -> String {
    match completion {
        Completion::Void => Outgoing::Void { kind: Kind, id },
        Completion::Result(result) => Outgoing::Result {
            kind: Kind,
            id,
            result,
        },
        Completion::Error(error) => Outgoing::Error {
            kind: Kind,
            id,
            error,
        },
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

    fn parse_str(record: &str) -> Result<Incoming, ProtocolError> {
        parse(record.as_bytes())
    }

    #[test]
    fn records_split_at_their_separator() {
        let frame = "{\"type\":6}\u{1e}{\"type\":1,\"target\":\"Typing\",\"arguments\":[]}\u{1e}";
        let (first, rest) = split(frame.as_bytes()).unwrap();
        assert!(matches!(parse(first).unwrap(), Incoming::Ping));
        let (second, rest) = split(rest).unwrap();
        assert!(rest.is_empty());
        assert!(matches!(
            parse(second).unwrap(),
            Incoming::Invocation { id: None, ref target, .. } if target == "Typing"
        ));
        assert_eq!(split(b"{\"type\":6}"), None, "unfinished");
    }

    #[test]
    fn invocations_keep_their_id_target_and_raw_arguments() {
        let Incoming::Invocation {
            id,
            target,
            arguments,
        } = parse_str(r#"{"type":1,"invocationId":"7","target":"SendNote","arguments":["c",{"a":1}],"extra":true}"#)
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
            assert!(parse_str(bad).is_err(), "{bad}");
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
                matches!(parse_str(other).unwrap(), Incoming::Ignored),
                "{other}"
            );
        }
        assert!(matches!(
            parse_str(r#"{"type":7,"error":"bye"}"#).unwrap(),
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
            completion("3", Completion::Result(&serde_json::json!({"id": 1}))),
            "{\"type\":3,\"invocationId\":\"3\",\"result\":{\"id\":1}}\u{1e}"
        );
        assert_eq!(
            completion("3", Completion::Void),
            "{\"type\":3,\"invocationId\":\"3\"}\u{1e}",
            "a void method's completion has no result, not a null one"
        );
        assert_eq!(
            completion("3", Completion::Error("not found")),
            "{\"type\":3,\"invocationId\":\"3\",\"error\":\"not found\"}\u{1e}"
        );
        let payload = RawValue::from_string(r#"{"agentId":"a"}"#.into()).unwrap();
        assert_eq!(
            event("PresenceChanged", &payload),
            "{\"type\":1,\"target\":\"PresenceChanged\",\"arguments\":[{\"agentId\":\"a\"}]}\u{1e}"
        );
        assert_eq!(handshake_ok(), "{}\u{1e}");
    }
}
