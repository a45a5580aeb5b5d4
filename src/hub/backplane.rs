//! Events across replicas: Redis pub/sub on one channel per installation.
//!
//! A replica delivers its own events to its own connections at once, then publishes them; every
//! replica hears the channel and delivers what other replicas raised. One task publishes, in
//! the order events were raised, and Redis hands subscribers messages in publication order.
//! Logged events cross as recorded (each replica projects them itself) and are put in `seq`
//! order on arrival (`sequencer`), so two replicas writing to one conversation cannot reach
//! clients out of order.
//!
//! When Redis does not answer, events still reach this replica's connections; the ones meant
//! for other replicas are dropped and counted, and the replicas that missed logged events
//! read them from the log at the next event of that workspace (clients also catch up through
//! `GET /api/events`). Both loops reconnect by themselves.

use std::time::Duration;

use redis::aio::ConnectionManager;
use time::OffsetDateTime;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::Hub;
use super::events::{Body, Envelope};
use supportdesk_core::pubsub;

/// Publishes what `outbox` yields until `stop`.
pub async fn publish(
    mut outbox: mpsc::Receiver<String>,
    mut redis: ConnectionManager,
    channel: String,
    timeout: Duration,
    stop: CancellationToken,
) {
    loop {
        let message = tokio::select! {
            () = stop.cancelled() => return,
            message = outbox.recv() => match message {
                Some(message) => message,
                None => return,
            },
        };
        publish_one(&mut redis, &channel, &message, timeout).await;
    }
}

/// Publishes what `outbox` holds now, and returns: for a command that writes and exits.
pub async fn flush(
    outbox: &mut mpsc::Receiver<String>,
    mut redis: ConnectionManager,
    channel: &str,
    timeout: Duration,
) {
    while let Ok(message) = outbox.try_recv() {
        publish_one(&mut redis, channel, &message, timeout).await;
    }
}

async fn publish_one(
    redis: &mut ConnectionManager,
    channel: &str,
    message: &str,
    timeout: Duration,
) {
    let mut command = redis::cmd("PUBLISH");
    command.arg(channel).arg(message);
    match tokio::time::timeout(timeout, command.query_async::<i64>(redis)).await {
        Ok(Ok(_)) => metrics::counter!("hub_backplane_published_total").increment(1),
        Ok(Err(err)) => {
            metrics::counter!("hub_backplane_dropped_total").increment(1);
            tracing::warn!(error = %err, "event not sent to other replicas");
        }
        Err(_) => {
            metrics::counter!("hub_backplane_dropped_total").increment(1);
            tracing::warn!("event not sent to other replicas: Redis timed out");
        }
    }
}

/// Delivers other replicas' events to this replica's connections until `stop`.
pub async fn subscribe(hub: Hub, client: redis::Client, stop: CancellationToken) {
    let channel = pubsub::Channel {
        client: &client,
        name: &hub.channel,
        timeout: hub.redis_timeout,
        purpose: "hub backplane",
    };
    pubsub::listen(
        channel,
        &stop,
        |_| {},
        async |payload: String| match serde_json::from_str::<Envelope>(&payload) {
            Ok(envelope) if envelope.origin == hub.replica => {}
            Ok(envelope) => {
                let lag = OffsetDateTime::now_utc() - envelope.sent_at;
                metrics::histogram!("hub_backplane_lag_seconds")
                    .record(lag.as_seconds_f64().max(0.0));
                match envelope.body {
                    Body::Logged {
                        workspace_id,
                        events,
                    } => hub.heard(workspace_id, events),
                    Body::Live(event) => hub.arrived(&event),
                }
            }
            Err(err) => tracing::warn!(error = %err, "unreadable hub event ignored"),
        },
    )
    .await;
}
