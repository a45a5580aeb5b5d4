//! The MessagePack hub protocol: each record a MessagePack array behind its length as a
//! varint (7 bits a byte, least significant first, at most 5 bytes), in binary frames.
//!
//! Records are arrays whose first item is the message type (`HubProtocol.md`):
//! Invocation `[1, headers, invocationId | nil, target, arguments, streamIds]` (stream ids
//! optional from clients, always written by us),
//! StreamInvocation `[4, ...the same]`, Completion `[3, headers, invocationId, kind, result?]`
//! (kind 1 error, 2 void, 3 result), Ping `[6]`, Close `[7, error | nil, allowReconnect]`.
//! Arguments arrive as MessagePack values and leave this module as JSON, which the hub
//! methods bind by position; an event's payload, serialised as JSON where it was raised, is
//! re-encoded here once per event and replica.

use rmpv::Value as Pack;
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Completion, Incoming, MAX_RECORD_BYTES, ProtocolError, Split};

/// The longest length prefix: 5 bytes carry up to 2^35, more than any record may hold.
const MAX_PREFIX_BYTES: usize = 5;

/// The first record of `bytes` (without its length) and what follows it, once whole.
pub fn split(bytes: &[u8]) -> Result<Split<'_>, ProtocolError> {
    let mut length: usize = 0;
    for (index, byte) in bytes.iter().take(MAX_PREFIX_BYTES).enumerate() {
        length |= usize::from(byte & 0x7f) << (7 * index);
        if byte & 0x80 == 0 {
            if length > MAX_RECORD_BYTES {
                return Err(ProtocolError::TooLarge);
            }
            let body = &bytes[index + 1..];
            return Ok((body.len() >= length).then(|| body.split_at(length)));
        }
    }
    if bytes.len() >= MAX_PREFIX_BYTES {
        return Err(ProtocolError::Malformed(
            "a length prefix longer than 5 bytes".into(),
        ));
    }
    Ok(None)
}

fn malformed(what: &str) -> ProtocolError {
    ProtocolError::Malformed(what.to_owned())
}

pub fn parse(record: &[u8]) -> Result<Incoming, ProtocolError> {
    let value = rmpv::decode::read_value(&mut &record[..])
        .map_err(|e| ProtocolError::Malformed(e.to_string()))?;
    let Pack::Array(items) = value else {
        return Err(malformed("a message that is not an array"));
    };
    let kind = items
        .first()
        .and_then(Pack::as_u64)
        .ok_or_else(|| malformed("a message without a type"))?;
    let id = |items: &[Pack]| -> Result<Option<String>, ProtocolError> {
        match items.get(2) {
            Some(Pack::Nil) => Ok(None),
            Some(Pack::String(id)) => match id.as_str() {
                Some("") => Err(malformed("an empty invocationId")),
                Some(id) => Ok(Some(id.to_owned())),
                None => Err(malformed("an invocationId that is not UTF-8")),
            },
            _ => Err(malformed("an invocation without an invocationId")),
        }
    };
    let target = |items: &[Pack]| -> Result<String, ProtocolError> {
        items
            .get(3)
            .and_then(Pack::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| malformed("an invocation without a target"))
    };
    Ok(match kind {
        1 => Incoming::Invocation {
            id: id(&items)?,
            target: target(&items)?,
            arguments: arguments(items.get(4))?,
        },
        4 => Incoming::StreamInvocation {
            id: id(&items)?.ok_or_else(|| malformed("a stream invocation without an id"))?,
            target: target(&items)?,
        },
        6 => Incoming::Ping,
        7 => Incoming::Close,
        _ => Incoming::Ignored,
    })
}

/// An invocation's arguments as JSON, each bound later to the type the method takes.
fn arguments(arguments: Option<&Pack>) -> Result<Vec<Box<RawValue>>, ProtocolError> {
    let Some(Pack::Array(arguments)) = arguments else {
        return Err(malformed("an invocation without arguments"));
    };
    arguments
        .iter()
        .map(|argument| {
            serde_json::value::to_raw_value(argument).map_err(|_| {
                malformed("an argument with no JSON form (a map key that is not text)")
            })
        })
        .collect()
}

/// `items` as a record: the array behind its length (the benchmark's client frames its
/// records with it too).
pub fn record(items: Vec<Pack>) -> Vec<u8> {
    let mut body = Vec::with_capacity(64);
    // Writing into a Vec cannot fail.
    let _ = rmpv::encode::write_value(&mut body, &Pack::Array(items));
    let mut out = Vec::with_capacity(body.len() + MAX_PREFIX_BYTES);
    let mut length = body.len();
    loop {
        let low = (length & 0x7f) as u8;
        length >>= 7;
        if length == 0 {
            out.push(low);
            break;
        }
        out.push(low | 0x80);
    }
    out.extend_from_slice(&body);
    out
}

fn no_headers() -> Pack {
    Pack::Map(Vec::new())
}

pub fn ping() -> Vec<u8> {
    record(vec![6.into()])
}

pub fn close(error: Option<&str>, allow_reconnect: bool) -> Vec<u8> {
    record(vec![
        7.into(),
        error.map_or(Pack::Nil, Pack::from),
        allow_reconnect.into(),
    ])
}

pub fn completion(id: &str, completion: Completion<'_>) -> Vec<u8> {
    let mut items = vec![3.into(), no_headers(), id.into()];
    match completion {
        Completion::Error(error) => items.extend([1.into(), error.into()]),
        Completion::Void => items.push(2.into()),
        Completion::Result(result) => items.extend([3.into(), pack_json(result)]),
    }
    record(items)
}

/// An event record: `target` called with one argument, given as JSON.
pub fn event(target: &str, argument: &RawValue) -> Vec<u8> {
    let argument = serde_json::from_str::<Pack>(argument.get()).unwrap_or(Pack::Nil);
    // The empty stream ids close the array as ASP.NET Core writes it: some clients read
    // all six items.
    record(vec![
        1.into(),
        no_headers(),
        Pack::Nil,
        target.into(),
        Pack::Array(vec![argument]),
        Pack::Array(Vec::new()),
    ])
}

fn pack_json(value: &Value) -> Pack {
    rmpv::ext::to_value(value).unwrap_or(Pack::Nil)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// `value` as a client frames it.
    pub fn record(value: &Pack) -> Vec<u8> {
        let Pack::Array(items) = value else {
            panic!("records are arrays");
        };
        super::record(items.clone())
    }

    fn decode(record: &[u8]) -> Pack {
        let (body, rest) = split(record).unwrap().unwrap();
        assert!(rest.is_empty());
        rmpv::decode::read_value(&mut &body[..]).unwrap()
    }

    #[test]
    fn lengths_are_varints_of_seven_bits_least_significant_first() {
        let short = ping();
        assert_eq!(
            short,
            vec![2, 0x91, 6],
            "[6] is 0x91 0x06 behind its length 2"
        );
        let body = "x".repeat(200);
        let long = completion("1", Completion::Error(&body));
        let length = long.len() - 2;
        assert_eq!(long[0], (length as u8 & 0x7f) | 0x80);
        assert_eq!(long[1], (length >> 7) as u8);
        assert!(matches!(split(&long[..100]), Ok(None)), "unfinished");
        assert_eq!(
            split(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
            Err(malformed("a length prefix longer than 5 bytes"))
        );
        // 131 071 bytes, past the limit.
        assert_eq!(split(&[0xff, 0xff, 0x07]), Err(ProtocolError::TooLarge));
    }

    #[test]
    fn invocations_parse_to_json_arguments() {
        let incoming = Pack::Array(vec![
            1.into(),
            no_headers(),
            "4".into(),
            "SendMessage".into(),
            Pack::Array(vec![
                "c0ffee".into(),
                Pack::Map(vec![("a".into(), 1.into())]),
                true.into(),
                Pack::Nil,
            ]),
            Pack::Array(vec![]),
        ]);
        let frame = record(&incoming);
        let (body, _) = split(&frame).unwrap().unwrap();
        let Incoming::Invocation {
            id,
            target,
            arguments,
        } = parse(body).unwrap()
        else {
            panic!("an invocation");
        };
        assert_eq!((id.as_deref(), target.as_str()), (Some("4"), "SendMessage"));
        let arguments: Vec<&str> = arguments.iter().map(|a| a.get()).collect();
        assert_eq!(arguments, ["\"c0ffee\"", "{\"a\":1}", "true", "null"]);

        let without_id = record(&Pack::Array(vec![
            1.into(),
            no_headers(),
            Pack::Nil,
            "Typing".into(),
            Pack::Array(vec![false.into()]),
        ]));
        let (body, _) = split(&without_id).unwrap().unwrap();
        assert!(matches!(
            parse(body).unwrap(),
            Incoming::Invocation { id: None, .. }
        ));
    }

    #[test]
    fn malformed_records_are_protocol_errors_and_others_are_ignored() {
        for bad in [
            Pack::Array(vec![
                1.into(),
                no_headers(),
                Pack::Nil,
                "".into(),
                Pack::Array(vec![]),
            ]),
            Pack::Array(vec![1.into(), no_headers(), Pack::Nil, "X".into()]),
            Pack::Array(vec![
                1.into(),
                no_headers(),
                "".into(),
                "X".into(),
                Pack::Array(vec![]),
            ]),
            Pack::Array(vec![
                4.into(),
                no_headers(),
                Pack::Nil,
                "X".into(),
                Pack::Array(vec![]),
            ]),
            Pack::Array(vec!["1".into()]),
            Pack::Array(vec![
                1.into(),
                no_headers(),
                Pack::Nil,
                "X".into(),
                Pack::Array(vec![Pack::Map(vec![(Pack::Nil, 1.into())])]),
            ]),
        ] {
            let frame = record(&bad);
            let (body, _) = split(&frame).unwrap().unwrap();
            assert!(parse(body).is_err(), "{bad:?}");
        }
        assert!(parse(&[0xc1]).is_err(), "not MessagePack");
        assert!(parse(&[0x01]).is_err(), "not an array");
        for other in [
            Pack::Array(vec![3.into(), no_headers(), "1".into(), 2.into()]),
            Pack::Array(vec![5.into(), no_headers(), "1".into()]),
            Pack::Array(vec![8.into(), 1.into()]),
        ] {
            let frame = record(&other);
            let (body, _) = split(&frame).unwrap().unwrap();
            assert!(matches!(parse(body).unwrap(), Incoming::Ignored));
        }
        let ping = ping();
        let (body, _) = split(&ping).unwrap().unwrap();
        assert!(matches!(parse(body).unwrap(), Incoming::Ping));
    }

    #[test]
    fn server_messages_are_arrays_of_the_documented_shape() {
        assert_eq!(
            decode(&close(Some("bye"), false)),
            Pack::Array(vec![7.into(), "bye".into(), false.into()])
        );
        assert_eq!(
            decode(&close(None, true)),
            Pack::Array(vec![7.into(), Pack::Nil, true.into()])
        );
        assert_eq!(
            decode(&completion("9", Completion::Void)),
            Pack::Array(vec![3.into(), no_headers(), "9".into(), 2.into()])
        );
        assert_eq!(
            decode(&completion("9", Completion::Error("no"))),
            Pack::Array(vec![
                3.into(),
                no_headers(),
                "9".into(),
                1.into(),
                "no".into()
            ])
        );
        assert_eq!(
            decode(&completion(
                "9",
                Completion::Result(&serde_json::json!({"id": 1}))
            )),
            Pack::Array(vec![
                3.into(),
                no_headers(),
                "9".into(),
                3.into(),
                Pack::Map(vec![("id".into(), 1.into())]),
            ])
        );
        let payload = RawValue::from_string(r#"{"agentId":"a","n":[1,2.5,null]}"#.into()).unwrap();
        assert_eq!(
            decode(&event("PresenceChanged", &payload)),
            Pack::Array(vec![
                1.into(),
                no_headers(),
                Pack::Nil,
                "PresenceChanged".into(),
                Pack::Array(vec![Pack::Map(vec![
                    ("agentId".into(), "a".into()),
                    (
                        "n".into(),
                        Pack::Array(vec![1.into(), Pack::F64(2.5), Pack::Nil])
                    ),
                ])]),
                Pack::Array(vec![]),
            ])
        );
    }
}
