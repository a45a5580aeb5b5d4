//! One hub connection, from the handshake to its close, in one task.
//!
//! The task reads the client's frames, runs the methods they invoke one after another (so a
//! client's calls take effect in the order it sent them), writes what the registry queues for
//! it, pings every 15 s and drops a client silent for 30 s. It ends with a Close message whose
//! `allowReconnect` tells the client whether to negotiate again: yes at token expiry, on
//! shutdown and for a slow consumer; no when the member may no longer connect.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, close_code};
use futures::{SinkExt, StreamExt};
use time::OffsetDateTime;
use tokio::time::{Instant, sleep_until};

use crate::hub::protocol::{self, Incoming};
use crate::hub::registry::CloseReason;
use crate::hub::tokens::Grant;
use crate::state::AppState;

use super::methods::{self, Caller};

/// The server pings this often.
pub const PING_INTERVAL: Duration = Duration::from_secs(15);
/// A client heard from less recently is dropped.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(30);
/// The handshake must arrive this soon after the upgrade.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(15);
/// A write the client does not take within this long (its socket full) ends the connection.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

type Sink = futures::stream::SplitSink<WebSocket, Message>;

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

pub async fn serve(state: AppState, grant: Grant, socket: WebSocket) {
    let (mut sink, mut stream) = socket.split();
    let Some(rest) = handshake(&mut sink, &mut stream).await else {
        return;
    };
    let who = grant.who;
    let hub = state.hub.clone();
    let mut mailbox = hub.registry.register(who);
    metrics::gauge!("hub_open_connections", "kind" => who.kind()).increment(1.0);
    if let Some(agent) = who.agent()
        && !hub.registry.is_connected_elsewhere(agent, mailbox.id)
    {
        hub.agent_connected(agent).await;
    }
    let caller = Caller {
        who,
        connection: mailbox.id,
    };
    let mut rate = Bucket::new();
    let expires_at = deadline_of(grant.expires_at);
    let mut last_heard = Instant::now();
    // The first ping comes at a random point of the interval: after a deploy every client
    // reconnects at once, and their pings would otherwise stay in step for good.
    let mut next_ping = Instant::now() + PING_INTERVAL.mul_f64(rand::random::<f64>());

    let mut end: Option<End> = None;
    for record in rest {
        end = handle(&state, &caller, &record, &mut rate, &mut sink).await;
        if end.is_some() {
            break;
        }
    }
    while end.is_none() {
        tokio::select! {
            frame = stream.next() => {
                last_heard = Instant::now();
                match frame {
                    Some(Ok(Message::Text(text))) => {
                        match protocol::records(text.as_str()) {
                            Ok(records) => {
                                for record in records {
                                    end = handle(&state, &caller, record, &mut rate, &mut sink).await;
                                    if end.is_some() {
                                        break;
                                    }
                                }
                            }
                            Err(err) => end = Some(End::Close(CloseReason::ended(&err.to_string()))),
                        }
                    }
                    Some(Ok(Message::Binary(_))) => {
                        end = Some(End::Close(CloseReason::ended("this hub speaks the json protocol over text frames")));
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                    // The client left (its Close frame, or the socket dropped): nothing to say.
                    Some(Ok(Message::Close(_)) | Err(_)) | None => end = Some(End::Silently),
                }
            }
            record = mailbox.records.recv() => {
                let Some(record) = record else { break };
                if !send(&mut sink, Message::Text(Utf8Bytes::from(&*record))).await {
                    end = Some(End::Silently);
                }
                next_ping = Instant::now() + PING_INTERVAL;
            }
            changed = mailbox.close.changed() => {
                let told = changed.ok().and_then(|()| mailbox.close.borrow().clone());
                end = Some(End::Close(told.unwrap_or_else(|| CloseReason::reconnect(None))));
            }
            () = sleep_until(next_ping) => {
                if !send(&mut sink, Message::Text(protocol::ping().into())).await {
                    end = Some(End::Silently);
                }
                next_ping = Instant::now() + PING_INTERVAL;
            }
            () = sleep_until(last_heard + CLIENT_TIMEOUT) => {
                end = Some(End::Close(CloseReason::reconnect(Some("no message from the client for 30 s"))));
            }
            () = sleep_until(expires_at) => {
                end = Some(End::Close(CloseReason::reconnect(Some("the token expired; reconnect with a new one"))));
            }
            () = hub.closing.cancelled() => {
                end = Some(End::Close(CloseReason::reconnect(Some("the server is restarting"))));
            }
        }
    }
    if let Some(End::Close(reason)) = end {
        let close = protocol::close(reason.error.as_deref(), reason.allow_reconnect);
        if send(&mut sink, Message::Text(close.into())).await {
            let frame = CloseFrame {
                code: close_code::NORMAL,
                reason: Utf8Bytes::from_static(""),
            };
            send(&mut sink, Message::Close(Some(frame))).await;
        }
    }
    metrics::gauge!("hub_open_connections", "kind" => who.kind()).decrement(1.0);
    if hub.registry.unregister(who.workspace_id(), mailbox.id)
        && let Some(agent) = who.agent()
    {
        hub.agent_disconnected(*agent).await;
    }
}

/// Reads the handshake; `Some(records after it)` once answered `{}`, `None` when the
/// connection ended (an error answered, or nothing came).
async fn handshake(
    sink: &mut Sink,
    stream: &mut futures::stream::SplitStream<WebSocket>,
) -> Option<Vec<String>> {
    let first = tokio::time::timeout(HANDSHAKE_TIMEOUT, stream.next()).await;
    let text = match first {
        Ok(Some(Ok(Message::Text(text)))) => text,
        Ok(Some(Ok(Message::Binary(_)))) => {
            refuse(sink, "the handshake is a JSON text frame").await;
            return None;
        }
        Err(_) => {
            refuse(sink, "no handshake within 15 s").await;
            return None;
        }
        _ => return None,
    };
    let mut records = match protocol::records(text.as_str()) {
        Ok(records) => records,
        Err(err) => {
            refuse(sink, &err.to_string()).await;
            return None;
        }
    };
    let request = records.next().unwrap_or_default();
    if let Err(error) = protocol::handshake(request) {
        refuse(sink, &error).await;
        return None;
    }
    let rest: Vec<String> = records.map(str::to_owned).collect();
    send(sink, Message::Text(protocol::handshake_ok().into()))
        .await
        .then_some(rest)
}

async fn refuse(sink: &mut Sink, error: &str) {
    let _ = sink
        .send(Message::Text(protocol::handshake_error(error).into()))
        .await;
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

/// Acts on one record; `Some` ends the connection.
async fn handle(
    state: &AppState,
    caller: &Caller,
    record: &str,
    rate: &mut Bucket,
    sink: &mut Sink,
) -> Option<End> {
    metrics::counter!("hub_messages_in_total").increment(1);
    let message = match protocol::parse(record) {
        Ok(message) => message,
        Err(err) => return Some(End::Close(CloseReason::ended(&err.to_string()))),
    };
    let reply = match message {
        Incoming::Ping | Incoming::Ignored => return None,
        Incoming::Close => return Some(End::Silently),
        Incoming::StreamInvocation { id, target } => Some(protocol::completion_error(
            &id,
            &format!("'{target}' is not a streaming method: this hub has none"),
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
            if let Err(methods::Failure::Ended(reason)) = &outcome {
                return Some(End::Close(reason.clone()));
            }
            id.map(|id| match outcome {
                Ok(result) => protocol::completion_result(&id, &result),
                Err(failure) => protocol::completion_error(&id, &failure.message()),
            })
        }
    };
    if let Some(reply) = reply
        && !send(sink, Message::Text(reply.into())).await
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
