//! The wait between passes of a polling loop that PostgreSQL can also wake (`NOTIFY`): the
//! relay and the spare-schema refill both poll on a timer, and a notification cuts the wait
//! short. A listener that fails is dropped, and the caller opens a new one on its next pass.

use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgListener;
use tokio_util::sync::CancellationToken;

/// A listener on `channel`, or `None` when PostgreSQL cannot be reached (the timer still runs).
pub async fn listen(db: &PgPool, channel: &str) -> Option<PgListener> {
    let mut listener = PgListener::connect_with(db).await.ok()?;
    listener.listen(channel).await.ok()?;
    Some(listener)
}

/// What ended a [`pause`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Woken {
    /// The wait ran out (or the listener failed and was dropped).
    Timer,
    /// A notification arrived on the channel.
    Notified,
    /// `stop` was cancelled: the caller returns.
    Stopped,
}

/// Waits `wait`, or less if a notification arrives or `stop` is cancelled.
pub async fn pause(
    listener: &mut Option<PgListener>,
    wait: Duration,
    stop: &CancellationToken,
) -> Woken {
    let notified = async {
        match listener.as_mut() {
            Some(l) => l.recv().await.map(drop),
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        () = stop.cancelled() => Woken::Stopped,
        () = tokio::time::sleep(wait) => Woken::Timer,
        received = notified => if received.is_ok() {
            Woken::Notified
        } else {
            *listener = None;
            Woken::Timer
        },
    }
}
