//! One hub connection, from the handshake to its close, in one task.
//!
//! The connection's place in the registry was taken at the upgrade; the task reads the
//! handshake (JSON or MessagePack), checks the caller's access once more (a membership change
//! between negotiate and now is caught here, one after it by the registry), and only then
//! hears events. It reads the client's frames through a `Reader` (records may span frames),
//! runs the methods they invoke one after another (so a client's calls take effect in the
//! order it sent them), writes what the registry queues for it, pings every 15 s and drops a
//! client silent for 30 s. It ends with a Close message whose `allowReconnect` tells the
//! client whether to negotiate again: yes at token expiry, on shutdown and for a slow
//! consumer; no when the member may no longer connect. However that is found (at the
//! handshake, on a call, by `lifecycle`), `access::AccessLost::close` tells the registry,
//! and the task ends as on any close it is told of.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, close_code};
use futures::{SinkExt, StreamExt};
use time::OffsetDateTime;
use tokio::time::{Instant, sleep_until};

use crate::hub::protocol::{self, Completion, Incoming, Protocol, Reader};
use crate::hub::registry::{CloseReason, Delivery, Mailbox, Participant};
use crate::hub::tokens::Grant;
use crate::state::AppState;

use super::access::{self, Access, Noticed};
use super::methods::{self, Caller};

/// The server pings this often.
pub const PING_INTERVAL: Duration = Duration::from_secs(15);
/// A client heard from less recently is dropped.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(30);
/// The handshake must arrive this soon after the upgrade.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(15);
/// Why a connection closes when its credential expires.
const EXPIRED: &str = "the token expired; reconnect with a new one";
/// Why a connection closes when the server shuts down.
const CLOSING: &str = "the server is restarting";
/// A write the client does not take within this long (its socket full) ends the connection.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

type Sink = futures::stream::SplitSink<WebSocket, Message>;
type Stream = futures::stream::SplitStream<WebSocket>;

/// Writes one message; false when the client is gone or stopped reading.
async fn send(sink: &mut Sink, message: Message) -> bool {
    matches!(
        tokio::time::timeout(SEND_TIMEOUT, sink.send(message)).await,
        Ok(Ok(()))
    )
}
/// Inbound records a connection may send: a burst of this many, refilled at
/// [`RATE_PER_SECOND`]. Typing indicators and messages stay far below it.
const RATE_BURST: f64 = 40.0;
const RATE_PER_SECOND: f64 = 10.0;

/// The bytes of a data frame; `None` for control frames.
fn data_of(message: &Message) -> Option<&[u8]> {
    match message {
        Message::Text(text) => Some(text.as_str().as_bytes()),
        Message::Binary(bytes) => Some(bytes),
        Message::Ping(_) | Message::Pong(_) | Message::Close(_) => None,
    }
}

pub async fn serve(state: AppState, grant: Grant, mut mailbox: Mailbox, socket: WebSocket) {
    let (mut sink, mut stream) = socket.split();
    let who = grant.who;
    let mut reader = Reader::new();
    let Some(protocol) = handshake(
        &state,
        &who,
        &mut mailbox,
        &mut reader,
        &mut sink,
        &mut stream,
    )
    .await
    else {
        // Dropping the mailbox gives the place back.
        return;
    };
    let hub = state.hub.clone();
    metrics::gauge!("hub_open_connections", "kind" => who.kind().label()).increment(1.0);
    if let Some(agent) = who.agent()
        && !hub.registry().is_connected_elsewhere(agent, mailbox.id())
    {
        hub.agent_connected(agent).await;
    }
    let caller = Caller::new(who, mailbox.id());
    let mut rate = Bucket::new();
    let expires_at = deadline_of(grant.expires_at);
    let mut last_heard = Instant::now();
    // The first ping comes at a random point of the interval: after a deploy every client
    // reconnects at once, and their pings would otherwise stay in step for good.
    let mut next_ping = Instant::now() + PING_INTERVAL.mul_f64(rand::random::<f64>());

    // What followed the handshake in its frame, unless the credential has expired meanwhile.
    let mut end = if Instant::now() >= expires_at {
        Some(End::Close(CloseReason::reconnect(Some(EXPIRED))))
    } else {
        act_on(
            &state,
            &caller,
            protocol,
            reader.read(&[]),
            &mut rate,
            &mut sink,
        )
        .await
    };
    while end.is_none() {
        // Checked before each turn: a frame that is ready as the credential expires (or the
        // server closes) is not acted on. The select below stays fair, so a client that keeps
        // sending cannot starve its own deliveries and pings.
        if Instant::now() >= expires_at {
            end = Some(End::Close(CloseReason::reconnect(Some(EXPIRED))));
            break;
        }
        if hub.closing().is_cancelled() {
            end = Some(End::Close(CloseReason::reconnect(Some(CLOSING))));
            break;
        }
        tokio::select! {
            frame = stream.next() => {
                last_heard = Instant::now();
                end = match frame {
                    Some(Ok(message)) => match data_of(&message) {
                        Some(data) => {
                            let read = reader.read(data);
                            act_on(&state, &caller, protocol, read, &mut rate, &mut sink).await
                        }
                        None if matches!(message, Message::Close(_)) => Some(End::Silently),
                        None => None,
                    },
                    // The socket failed or dropped: nothing to say.
                    Some(Err(_)) | None => Some(End::Silently),
                };
            }
            delivery = mailbox.next() => match delivery {
                Delivery::Record(record) => {
                    if !send(&mut sink, record).await {
                        end = Some(End::Silently);
                    }
                    next_ping = Instant::now() + PING_INTERVAL;
                }
                Delivery::Close(told) => {
                    end = Some(End::Close(told.unwrap_or_else(|| CloseReason::reconnect(None))));
                }
                Delivery::Gone => break,
            },
            () = sleep_until(next_ping) => {
                if !send(&mut sink, protocol.ping()).await {
                    end = Some(End::Silently);
                }
                next_ping = Instant::now() + PING_INTERVAL;
            }
            () = sleep_until(last_heard + CLIENT_TIMEOUT) => {
                end = Some(End::Close(CloseReason::reconnect(Some("no message from the client for 30 s"))));
            }
            () = sleep_until(expires_at) => {
                end = Some(End::Close(CloseReason::reconnect(Some(EXPIRED))));
            }
            () = hub.closing().cancelled() => {
                end = Some(End::Close(CloseReason::reconnect(Some(CLOSING))));
            }
        }
    }
    if let Some(End::Close(reason)) = end {
        let close = protocol.close(reason.error(), reason.allows_reconnect());
        if send(&mut sink, close).await {
            let frame = CloseFrame {
                code: close_code::NORMAL,
                reason: Utf8Bytes::from_static(""),
            };
            send(&mut sink, Message::Close(Some(frame))).await;
        }
    }
    metrics::gauge!("hub_open_connections", "kind" => who.kind().label()).decrement(1.0);
    if mailbox.release()
        && let Some(agent) = who.agent()
    {
        hub.agent_disconnected(*agent).await;
    }
}

/// Reads the handshake and lets the connection hear events; the protocol once answered
/// `{}`, `None` when the connection ended (an error answered, or nothing came).
async fn handshake(
    state: &AppState,
    who: &Participant,
    mailbox: &mut Mailbox,
    reader: &mut Reader,
    sink: &mut Sink,
    stream: &mut Stream,
) -> Option<Protocol> {
    let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
    let protocol = loop {
        let message = tokio::select! {
            frame = tokio::time::timeout_at(deadline, stream.next()) => match frame {
                Ok(Some(Ok(message))) => message,
                Err(_) => {
                    refuse(sink, "no handshake within 15 s").await;
                    return None;
                }
                Ok(Some(Err(_)) | None) => return None,
            },
            // Access lost, or a shutdown, while the handshake was pending.
            told = mailbox.told_to_close() => {
                refuse_as_told(sink, told.as_ref()).await;
                return None;
            }
            () = state.hub.closing().cancelled() => {
                refuse(sink, CLOSING).await;
                return None;
            }
        };
        let Some(data) = data_of(&message) else {
            if matches!(message, Message::Close(_)) {
                return None;
            }
            continue;
        };
        match reader.handshake(data) {
            Ok(Some(protocol)) => break protocol,
            Ok(None) => {}
            Err(error) => {
                refuse(sink, &error).await;
                return None;
            }
        }
    };
    // The place was taken at the upgrade, so a change from now on reaches this connection;
    // one that came between negotiate and the upgrade is caught here. Access lost closes the
    // connection as anywhere else: it is told to, so it cannot get ready below.
    match access::of(state, who).await {
        Access::Allowed(()) => {}
        Access::Lost(lost) => {
            lost.close(state.hub.registry(), mailbox.scope(), Noticed::Handshake);
        }
        Access::Unknown(_) => {
            refuse(
                sink,
                "access cannot be checked right now; try again shortly",
            )
            .await;
            return None;
        }
    }
    if !state.hub.registry().ready(mailbox, protocol) {
        refuse_as_told(sink, mailbox.close_reason().as_ref()).await;
        return None;
    }
    send(sink, protocol.handshake_ok())
        .await
        .then_some(protocol)
}

/// Refuses a handshake the way the connection was told to close.
async fn refuse_as_told(sink: &mut Sink, told: Option<&CloseReason>) {
    let error = told.and_then(CloseReason::error);
    refuse(sink, error.unwrap_or("the connection was closed")).await;
}

async fn refuse(sink: &mut Sink, error: &str) {
    let _ = sink.send(protocol::handshake_error(error)).await;
    let _ = sink
        .send(Message::Close(Some(CloseFrame {
            code: close_code::POLICY,
            reason: Utf8Bytes::from_static("handshake failed"),
        })))
        .await;
}

/// How a connection ends.
enum End {
    /// The client left, or the socket failed: nothing more to send.
    Silently,
    /// The server ends it with a Close message.
    Close(CloseReason),
}

/// Acts on the messages of a read, in order, then on its error; `Some` ends the connection.
async fn act_on(
    state: &AppState,
    caller: &Caller,
    protocol: Protocol,
    read: protocol::Read,
    rate: &mut Bucket,
    sink: &mut Sink,
) -> Option<End> {
    let (messages, error) = read.into_parts();
    for message in messages {
        let end = handle(state, caller, protocol, message, rate, sink).await;
        if end.is_some() {
            return end;
        }
    }
    error.map(|error| End::Close(CloseReason::ended(&error.to_string())))
}

/// Acts on one message; `Some` ends the connection.
async fn handle(
    state: &AppState,
    caller: &Caller,
    protocol: Protocol,
    message: Incoming,
    rate: &mut Bucket,
    sink: &mut Sink,
) -> Option<End> {
    metrics::counter!("hub_messages_in_total").increment(1);
    let reply = match message {
        Incoming::Ping | Incoming::Ignored => return None,
        Incoming::Close => return Some(End::Silently),
        Incoming::StreamInvocation { id, target } => Some(protocol.completion(
            &id,
            Completion::Error(&format!(
                "'{target}' is not a streaming method: this hub has none"
            )),
        )),
        Incoming::Invocation {
            id,
            target,
            arguments,
        } => {
            let outcome = if rate.take() {
                methods::invoke(state, caller, &target, &arguments).await
            } else {
                Err(methods::Failure::Refused(
                    "too many messages; slow down".into(),
                ))
            };
            if let Err(methods::Failure::Ended(lost)) = &outcome {
                let reason = lost.close(state.hub.registry(), caller.scope(), Noticed::Call);
                return Some(End::Close(reason));
            }
            id.map(|id| match &outcome {
                Ok(Some(result)) => protocol.completion(&id, Completion::Result(result)),
                Ok(None) => protocol.completion(&id, Completion::Void),
                Err(failure) => protocol.completion(&id, Completion::Error(&failure.message())),
            })
        }
    };
    if let Some(reply) = reply
        && !send(sink, reply).await
    {
        return Some(End::Silently);
    }
    None
}

/// When a token that expires at `exp` (Unix seconds) stops being good.
fn deadline_of(exp: i64) -> Instant {
    let left = exp - OffsetDateTime::now_utc().unix_timestamp();
    Instant::now() + Duration::from_secs(u64::try_from(left).unwrap_or(0))
}

/// A token bucket for inbound calls.
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn new() -> Self {
        Self {
            tokens: RATE_BURST,
            at: Instant::now(),
        }
    }

    fn take(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64() * RATE_PER_SECOND;
        self.tokens = (self.tokens + refill).min(RATE_BURST);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_allows_a_burst_then_refuses() {
        let mut bucket = Bucket::new();
        let allowed = (0..100).filter(|_| bucket.take()).count();
        assert_eq!(allowed, RATE_BURST as usize);
    }

    #[test]
    fn an_expired_token_has_no_time_left() {
        assert!(deadline_of(0) <= Instant::now());
        let later = deadline_of(OffsetDateTime::now_utc().unix_timestamp() + 60);
        assert!(later > Instant::now() + Duration::from_secs(55));
    }
}
