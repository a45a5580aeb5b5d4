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

/// Waits `wait`, or less if a notification arrives; false once `stop` is cancelled.
pub async fn pause(
    listener: &mut Option<PgListener>,
    wait: Duration,
    stop: &CancellationToken,
) -> bool {
    let notified = async {
        match listener.as_mut() {
            Some(l) => l.recv().await.map(drop),
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        () = stop.cancelled() => return false,
        () = tokio::time::sleep(wait) => {}
        received = notified => if received.is_err() { *listener = None; },
    }
    true
}
