//! The MessagePack hub protocol spoken by hand: the handshake chooses it, records travel in
//! binary frames behind varint lengths (several to a frame, or one split across frames),
//! calls complete with a result, nothing (void) or an error, and events arrive as MessagePack.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use reqwest::{Method, StatusCode};
use rmpv::Value as Pack;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

use crate::helpers::spawn_app;
use crate::helpers_conversations::id;
use crate::helpers_hub::socket_url;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// `items` framed as a client frames a record: the array behind its length (a varint).
fn record(items: Vec<Pack>) -> Vec<u8> {
    let mut body = Vec::new();
    rmpv::encode::write_value(&mut body, &Pack::Array(items)).unwrap();
    let mut out = Vec::new();
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
    out.extend(body);
    out
}

/// The records of a binary frame.
fn records(frame: &[u8]) -> Vec<Vec<Pack>> {
    let mut rest = frame;
    let mut all = Vec::new();
    while !rest.is_empty() {
        let (mut length, mut shift, mut used) = (0usize, 0, 0);
        for byte in rest {
            used += 1;
            length |= usize::from(byte & 0x7f) << shift;
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
        let body = &rest[used..used + length];
        match rmpv::decode::read_value(&mut &body[..]).unwrap() {
            Pack::Array(items) => all.push(items),
            other => panic!("a record is an array: {other:?}"),
        }
        rest = &rest[used + length..];
    }
    all
}

fn invocation(id: &str, target: &str, arguments: Vec<Pack>) -> Vec<Pack> {
    vec![
        1.into(),
        Pack::Map(vec![]),
        id.into(),
        target.into(),
        Pack::Array(arguments),
    ]
}

/// The next record that is not a ping.
async fn next(socket: &mut Socket) -> Vec<Pack> {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("a frame within 10 s")
            .expect("open")
            .expect("a frame");
        let Message::Binary(bytes) = frame else {
            panic!("MessagePack travels in binary frames: {frame:?}");
        };
        if let Some(record) = records(&bytes).into_iter().find(|r| r[0] != Pack::from(6)) {
            return record;
        }
    }
}

/// The next record of type `kind`, skipping others.
async fn next_of(socket: &mut Socket, kind: i64) -> Vec<Pack> {
    loop {
        let record = next(socket).await;
        if record[0] == Pack::from(kind) {
            return record;
        }
    }
}

fn field<'a>(map: &'a Pack, key: &str) -> &'a Pack {
    map.as_map()
        .and_then(|m| m.iter().find(|(k, _)| k.as_str() == Some(key)))
        .map_or_else(|| panic!("{key} in {map:?}"), |(_, v)| v)
}

#[tokio::test]
async fn the_messagepack_protocol_calls_methods_and_hears_events() {
    let app = spawn_app().await;
    let owner = app.owner_with_workspace("hub-msgpack").await;
    let conversation = app
        .start_conversation(&owner.workspace_token, "mia@example.org", "Hello")
        .await;
    let token = app.connection_token(&owner.workspace_token).await;
    let (mut socket, _) = tokio_tungstenite::connect_async(socket_url(&app.address, &token))
        .await
        .unwrap();

    // The handshake is JSON in either protocol; its answer comes in a binary frame.
    socket
        .send(Message::Text(
            "{\"protocol\":\"messagepack\",\"version\":1}\u{1e}".into(),
        ))
        .await
        .unwrap();
    let answer = socket.next().await.unwrap().unwrap();
    assert_eq!(
        answer,
        Message::Binary("{}\u{1e}".as_bytes().to_vec().into())
    );

    // Two calls in one frame: a void method completes with kind 2 and no result.
    let conversation_id = id(&conversation);
    let mut frame = record(invocation(
        "1",
        "JoinConversation",
        vec![conversation_id.as_str().into()],
    ));
    frame.extend(record(invocation("2", "Nope", vec![])));
    socket.send(Message::Binary(frame.into())).await.unwrap();
    assert_eq!(
        next_of(&mut socket, 3).await,
        vec![3.into(), Pack::Map(vec![]), "1".into(), 2.into()]
    );
    assert_eq!(
        next_of(&mut socket, 3).await,
        vec![
            3.into(),
            Pack::Map(vec![]),
            "2".into(),
            1.into(),
            "Unknown hub method 'Nope'".into()
        ]
    );

    // A call split across two frames waits for the rest; its result is a map.
    let call = record(invocation(
        "3",
        "SendNote",
        vec![conversation_id.as_str().into(), "Packed note".into()],
    ));
    let (head, tail) = call.split_at(7);
    socket
        .send(Message::Binary(head.to_vec().into()))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    socket
        .send(Message::Binary(tail.to_vec().into()))
        .await
        .unwrap();
    let done = next_of(&mut socket, 3).await;
    assert_eq!(
        done[..4],
        [3.into(), Pack::Map(vec![]), "3".into(), 3.into()]
    );
    assert_eq!(field(&done[4], "body"), &Pack::from("Packed note"));
    assert_eq!(field(&done[4], "kind"), &Pack::from("note"));

    // A REST write's event, as MessagePack: [1, headers, nil, target, [payload], []].
    app.json_ok(
        Method::POST,
        &format!("/api/conversations/{conversation_id}/messages"),
        &json!({"body": "From REST"}),
        &owner.workspace_token,
        StatusCode::CREATED,
    )
    .await;
    let event = loop {
        let event = next_of(&mut socket, 1).await;
        if event[3] == Pack::from("MessageCreated")
            && field(field(&event[4][0], "message"), "body") == &Pack::from("From REST")
        {
            break event;
        }
    };
    assert_eq!(event[2], Pack::Nil, "events expect no answer");
    assert_eq!(
        event.get(5),
        Some(&Pack::Array(vec![])),
        "stream ids close the array, as ASP.NET Core writes it"
    );
    assert_eq!(
        field(&event[4][0], "conversationId"),
        &Pack::from(conversation_id.as_str())
    );

    // A record that is not MessagePack ends the connection with a Close record.
    socket
        .send(Message::Binary(vec![1, 0xc1].into()))
        .await
        .unwrap();
    let close = next_of(&mut socket, 7).await;
    assert_eq!(close[2], Pack::Boolean(false), "{close:?}");
    assert!(close[1].as_str().is_some_and(|e| e.contains("not valid")));
}
