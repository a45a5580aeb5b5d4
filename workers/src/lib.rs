//! The Support Desk worker: relays the outbox to the job queues, delivers emails and webhooks,
//! folds the event log into reports, keeps house, keeps spare tenant schemas ready for new
//! workspaces, and answers Kubernetes probes on a small port.
//!
//! Built on apalis with Redis queues, one per kind of email. PostgreSQL stays the record of
//! what was sent: the queues carry delivery attempts, the outbox rows carry their outcomes.

pub mod delivery;
pub mod email;
pub mod event_retention;
pub mod health;
pub mod janitor;
pub mod queues;
pub mod relay;
pub mod reports;
pub mod spares;
pub mod unsent_files;
pub mod wake;
pub mod webhooks;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use apalis::prelude::{BackendExt, Monitor, WorkerBuilder, WorkerBuilderExt};
use supportdesk_core::config::Settings;
use supportdesk_core::db;
use supportdesk_core::email_tokens::EmailTokenKey;
use supportdesk_core::outbox::MessageKind;
use supportdesk_core::sealed_credentials::CredentialKey;
use supportdesk_core::webhooks::guard::AddressGuard;
use tokio_util::sync::CancellationToken;

use crate::delivery::{Deliverer, deliver};
use crate::email::render::Renderer;
use crate::email::transport::Mailer;

/// How long in-flight deliveries may take to finish after a shutdown signal; longer than the
/// SMTP timeout, shorter than the chart's termination grace period.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(25);
/// How often an idle worker asks its queue for work.
const POLL: Duration = Duration::from_millis(100);

/// A name no other worker process has had: the queue refuses a name whose last heartbeat is
/// recent, which a restarted pod with a reused name would have.
fn worker_base_name() -> String {
    let host = hostname::get()
        .ok()
        .and_then(|h| h.into_string().ok())
        .unwrap_or_else(|| "worker".into());
    format!("{host}-{:06x}", rand::random::<u32>() & 0xff_ffff)
}

/// Runs the worker until `shutdown` resolves, then drains. `settings` are the worker's
/// (`Settings::load_for(Component::Worker, ..)`), which include its own section.
pub async fn run(
    settings: Settings,
    health_listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let worker = settings
        .worker
        .clone()
        .context("the worker's settings are loaded with Component::Worker")?;
    let db = db::pool(&settings.database, (worker.concurrency * 2 + 4) as u32);
    let redis = queues::connect(&settings)?;
    let store = supportdesk_core::storage::open(&settings.storage)?;
    let deliverer = Arc::new(Deliverer {
        db: db.clone(),
        tokens: EmailTokenKey::derive(&settings.email.token_secret),
        renderer: Renderer::new(&settings.application.app_url, &settings.email.from)?,
        mailer: Mailer::new(&settings.email.transport)?,
        settings: worker.clone(),
        store: store.clone(),
        delete_batch: settings.storage.delete_batch,
        inbound_domain: settings.inbound.domain.clone(),
        credentials: CredentialKey::derive(&settings.email.token_secret),
        widget_url: settings.application.widget_url.clone(),
    });
    let namespace = settings.redis.namespace.clone();

    let stop = CancellationToken::new();
    tokio::spawn({
        let stop = stop.clone();
        async move {
            shutdown.await;
            stop.cancel();
        }
    });

    let probes = health::Probes {
        db: db.clone(),
        redis: settings.redis.connection_manager().context("REDIS_URL")?,
    };
    let health_stop = CancellationToken::new();
    let health = tokio::spawn(health::serve(health_listener, probes, health_stop.clone()));
    let relay =
        tokio::spawn(relay::Relay::new(db.clone(), redis.clone(), &namespace).run(stop.clone()));
    let janitor = tokio::spawn(janitor::run(
        db.clone(),
        redis.clone(),
        namespace.clone(),
        stop.clone(),
    ));
    let event_retention = tokio::spawn(event_retention::run(db.clone(), stop.clone()));
    let webhooks = webhooks::Webhooks::new(
        db.clone(),
        CredentialKey::for_webhooks(&settings.email.token_secret),
        webhooks::http::Sender::new(
            AddressGuard::new(settings.webhooks.allowed_private_ranges.clone()),
            settings.webhooks.allow_http,
        )?,
    );
    let webhooks = tokio::spawn(webhooks.run(
        settings.redis.client().context("REDIS_URL")?,
        supportdesk_core::pubsub::events_channel(&namespace),
        stop.clone(),
    ));
    let reports = tokio::spawn(reports::run(
        db.clone(),
        settings.redis.client().context("REDIS_URL")?,
        supportdesk_core::pubsub::events_channel(&namespace),
        stop.clone(),
    ));
    let unsent_files = tokio::spawn(unsent_files::run(db.clone(), store, stop.clone()));
    // SPARE_SCHEMAS=0: no refill; creating a workspace then makes its schema on the spot.
    let spares = (worker.spare_schemas > 0)
        .then(|| tokio::spawn(spares::run(db.clone(), worker.spare_schemas, stop.clone())));

    let base = worker_base_name();
    let mut monitor = Monitor::new();
    for kind in MessageKind::ALL {
        let storage = queues::storage(redis.clone(), &namespace, kind);
        let deliverer = deliverer.clone();
        let name = format!("{base}-{}", queues::queue_name(&namespace, kind));
        let concurrency = worker.concurrency;
        monitor = monitor.register(move |restarts| {
            WorkerBuilder::new(format!("{name}-{restarts}"))
                .backend(storage.clone().poll_with_interval(POLL))
                .concurrency(concurrency)
                .catch_panic()
                .data(deliverer.clone())
                .build(deliver)
        });
    }
    tracing::info!(worker = %base, concurrency = worker.concurrency, "worker started");
    let result = monitor
        // A queue worker stops on any Redis error (an outage, a timeout). Restart it, after a
        // pause that grows with repeated failures, instead of the library's immediate retry
        // loop that would spin through thousands of restarts a second while Redis is down.
        .should_restart({
            let stop = stop.clone();
            move |worker, error| {
                if stop.is_cancelled() {
                    return false;
                }
                let pause = Duration::from_millis(200)
                    .saturating_mul(1 << worker.restarts().min(5))
                    .min(Duration::from_secs(5));
                tracing::warn!(worker = worker.name(), %error, pause_ms = pause.as_millis() as u64,
                "queue worker stopped; restarting");
                tokio::task::block_in_place(|| std::thread::sleep(pause));
                !stop.is_cancelled()
            }
        })
        .shutdown_timeout(DRAIN_TIMEOUT)
        .run_with_signal({
            let stop = stop.clone();
            async move {
                stop.cancelled().await;
                Ok(())
            }
        })
        .await
        .context("running the queue workers");

    stop.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(3), relay).await;
    let _ = tokio::time::timeout(Duration::from_secs(1), janitor).await;
    let _ = tokio::time::timeout(Duration::from_secs(1), event_retention).await;
    let _ = tokio::time::timeout(Duration::from_secs(21), webhooks).await;
    let _ = tokio::time::timeout(Duration::from_secs(1), unsent_files).await;
    let _ = tokio::time::timeout(Duration::from_secs(3), reports).await;
    if let Some(spares) = spares {
        let _ = tokio::time::timeout(Duration::from_secs(1), spares).await;
    }
    health_stop.cancel();
    let _ = tokio::time::timeout(health::DRAIN_TIMEOUT, health).await;
    tracing::info!("worker stopped");
    result
}
