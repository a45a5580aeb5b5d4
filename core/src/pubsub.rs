//! Listening on a Redis pub/sub channel for as long as the process runs: what the membership
//! cache (invalidations), the chat hub (events across replicas) and the worker's webhook
//! deliveries (woken by committed events) need.
//!
//! A subscription that fails is made again after a pause that doubles up to 5 s. A half-open
//! connection delivers nothing and reports nothing, so the subscription pings every second
//! and counts as lost when a ping goes unanswered. The caller learns each time the
//! subscription comes up and goes down: messages published meanwhile are lost, and only it
//! knows what that costs.

use std::time::Duration;

use futures::StreamExt;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// How often the subscription proves it still hears.
const HEARTBEAT: Duration = Duration::from_secs(1);

/// The channel on which every API replica publishes the events it commits (the chat hub's
/// backplane): `{namespace}:hub:events`.
pub fn events_channel(namespace: &str) -> String {
    format!("{namespace}:hub:events")
}

/// The workspace a message of [`events_channel`] names, when it carries logged events (the
/// hub's `{"body": {"kind": "logged", "content": {"workspaceId": ...}}}`); `None` for
/// typing and presence, and for anything unreadable.
pub fn logged_workspace(payload: &str) -> Option<Uuid> {
    #[derive(Deserialize)]
    struct Envelope {
        body: Body,
    }
    #[derive(Deserialize)]
    #[serde(tag = "kind", content = "content", rename_all = "camelCase")]
    enum Body {
        #[serde(rename_all = "camelCase")]
        Logged { workspace_id: Uuid },
        #[serde(other)]
        Other,
    }
    match serde_json::from_str::<Envelope>(payload).ok()?.body {
        Body::Logged { workspace_id } => Some(workspace_id),
        Body::Other => None,
    }
}

/// A channel to listen on and how long Redis may take to answer.
pub struct Channel<'a> {
    pub client: &'a redis::Client,
    pub name: &'a str,
    pub timeout: Duration,
    /// Names the channel in logs.
    pub purpose: &'static str,
}

/// Hands every message's payload to `on_message` until `stop`; `on_state(true)` once
/// subscribed (again), `on_state(false)` once the subscription is lost or ends.
pub async fn listen<F: Future<Output = ()>>(
    channel: Channel<'_>,
    stop: &CancellationToken,
    mut on_state: impl FnMut(bool),
    mut on_message: impl FnMut(String) -> F,
) {
    let mut failures = 0u32;
    while !stop.is_cancelled() {
        let result = listen_once(&channel, stop, &mut on_state, &mut on_message).await;
        on_state(false);
        let Err(err) = result else { return };
        failures += 1;
        let pause =
            (Duration::from_millis(200) * 2u32.pow(failures.min(5))).min(Duration::from_secs(5));
        tracing::warn!(error = %err, "{} lost; resubscribing", channel.purpose);
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(pause) => {}
        }
    }
}

async fn listen_once<F: Future<Output = ()>>(
    channel: &Channel<'_>,
    stop: &CancellationToken,
    on_state: &mut impl FnMut(bool),
    on_message: &mut impl FnMut(String) -> F,
) -> anyhow::Result<()> {
    let connect = async {
        let pubsub = channel.client.get_async_pubsub().await?;
        let (mut sink, messages) = pubsub.split();
        sink.subscribe(channel.name).await?;
        anyhow::Ok((sink, messages))
    };
    let (mut sink, mut messages) = tokio::time::timeout(channel.timeout * 4, connect)
        .await
        .map_err(|_| anyhow::anyhow!("subscribing timed out"))??;
    on_state(true);
    tracing::info!("{} subscribed", channel.purpose);
    let mut heartbeat = tokio::time::interval(HEARTBEAT);
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.cancelled() => return Ok(()),
            _ = heartbeat.tick() => {
                match tokio::time::timeout(channel.timeout, sink.ping::<redis::Value>()).await {
                    Ok(Ok(_)) => {}
                    Ok(Err(err)) => anyhow::bail!("subscription ping failed: {err}"),
                    Err(_) => anyhow::bail!("subscription ping timed out"),
                }
            }
            message = messages.next() => {
                let Some(message) = message else {
                    anyhow::bail!("subscription ended");
                };
                on_message(message.get_payload()?).await;
            }
        }
    }
}
