//! Building and running the API: `Application::build` wires everything from `Settings`;
//! `launch` serves a router on a listener until a shutdown future resolves, so tests bind
//! port 0 and stop the server when they are done.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

use supportdesk_core::config::Settings;
use supportdesk_core::db::{self, ReadPool};
use supportdesk_core::email_tokens::EmailTokenKey;
use supportdesk_core::telemetry;
use supportdesk_core::tenancy::migrations::{Selection, migrate_all};

use crate::credentials::jwt::JwtKeys;
use crate::credentials::password::PasswordHasher;
use crate::credentials::widget_identity::IdentityKey;
use crate::events::publisher::Publisher;
use crate::hub::Hub;
use crate::memberships::MembershipCache;
use crate::rate_limit::RateLimiter;
use crate::state::{AppState, Shared};
use crate::{http, migrate};

/// How long in-flight requests may take to finish after a shutdown signal.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(25);
/// How long a client may take to send a request's head, from when its connection opens or
/// its previous response went out.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long hub connections get to send their Close message on shutdown.
const HUB_CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

pub struct Application {
    listener: TcpListener,
    metrics_listener: TcpListener,
    router: Router,
    state: AppState,
    redis_client: redis::Client,
}

impl Application {
    pub async fn build(settings: Settings, bind: &str) -> anyhow::Result<Self> {
        if settings.application.run_migrations_on_startup {
            let report = migrate::control_plane(&settings.database)
                .await
                .context("running migrations on startup")?;
            tracing::info!(applied = ?report.applied, "control-plane migrations are current");
            migrate_tenants_on_startup(&settings).await?;
        }
        let state = app_state(settings)?;
        let listener = TcpListener::bind(bind)
            .await
            .with_context(|| format!("binding {bind}"))?;
        let metrics_bind = &state.settings.application.metrics_bind;
        let metrics_listener = TcpListener::bind(metrics_bind)
            .await
            .with_context(|| format!("binding METRICS_BIND {metrics_bind}"))?;
        Ok(Self {
            listener,
            metrics_listener,
            router: http::router(state.clone()),
            redis_client: state.settings.redis.client().context("REDIS_URL")?,
            state,
        })
    }

    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Where `/metrics` is served (`METRICS_BIND`).
    pub fn metrics_addr(&self) -> std::io::Result<SocketAddr> {
        self.metrics_listener.local_addr()
    }

    /// The state the handlers share (tests inspect it).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Serves until `shutdown`, applying other replicas' membership changes meanwhile.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let stop = CancellationToken::new();
        let listener = tokio::spawn(
            self.state
                .memberships
                .clone()
                .listen(self.redis_client.clone(), stop.clone()),
        );
        let hub = tokio::spawn(self.state.hub.clone().run(self.redis_client, stop.clone()));
        let lifecycle = tokio::spawn(crate::chat::lifecycle::run(
            self.state.clone(),
            stop.clone(),
        ));
        // Hub connections are not requests the server drains: they are told to reconnect
        // (to another replica) first, and given a moment to say so.
        let closing = self.state.hub.clone();
        let shutdown = async move {
            shutdown.await;
            closing.closing().cancel();
            let deadline = tokio::time::Instant::now() + HUB_CLOSE_TIMEOUT;
            while !closing.registry().is_empty() && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        let metrics = tokio::spawn(launch(
            self.metrics_listener,
            http::metrics_router(),
            stop.clone().cancelled_owned(),
        ));
        let reaper = tokio::spawn(close_idle_reads(self.state.reads.clone(), stop.clone()));
        let numbering = tokio::spawn(self.state.events.clone().run_sweeps(stop.clone()));
        let mailboxes = tokio::spawn(crate::email_channel::imap::run(
            self.state.clone(),
            crate::email_channel::settings::credential_key(&self.state),
            stop.clone(),
        ));
        let served = launch(self.listener, self.router, shutdown).await;
        // The requests are done; the numbering passes they started finish before the pools
        // close.
        self.state.events.drain().await;
        stop.cancel();
        let _ = listener.await;
        let _ = hub.await;
        let _ = lifecycle.await;
        let _ = metrics.await;
        let _ = reaper.await;
        let _ = numbering.await;
        let _ = mailboxes.await;
        served
    }
}

/// Closes read connections nobody used for five minutes, as the main pool's idle timeout does.
async fn close_idle_reads(reads: ReadPool, stop: CancellationToken) {
    const IDLE: Duration = Duration::from_secs(300);
    let mut tick = tokio::time::interval(Duration::from_secs(60));
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tick.tick() => reads.close_idle(IDLE),
        }
    }
}

/// One replica brings the workspaces up to date while the others start serving; a workspace
/// that fails is logged (and left for `supportdesk tenants migrate`) rather than keeping every
/// replica from starting.
async fn migrate_tenants_on_startup(settings: &Settings) -> anyhow::Result<()> {
    let pool = db::pool(&settings.database, 5);
    let mut lock = pool.acquire().await?;
    let acquired: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
        .bind(supportdesk_core::locks::STARTUP_TENANT_MIGRATIONS)
        .fetch_one(&mut *lock)
        .await?;
    if !acquired {
        tracing::info!("another replica is migrating workspaces; not waiting for it");
        return Ok(());
    }
    let result = migrate_all(&pool, &Selection::default(), 4, Arc::new(|_| {})).await;
    let _ = sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(supportdesk_core::locks::STARTUP_TENANT_MIGRATIONS)
        .execute(&mut *lock)
        .await;
    drop(lock);
    pool.close().await;
    let report = result.context("running tenant migrations on startup")?;
    for failure in &report.failed {
        tracing::error!(
            workspace = failure.slug,
            error = failure.error,
            "workspace migration failed; run `supportdesk tenants migrate` after fixing it"
        );
    }
    tracing::info!(
        migrated = report.migrated,
        failed = report.failed.len(),
        "workspace migrations done"
    );
    Ok(())
}

pub fn app_state(settings: Settings) -> anyhow::Result<AppState> {
    let redis = connect_redis(&settings)?;
    let jwt_secret = settings
        .application
        .jwt_secret
        .as_ref()
        .context("JWT_SECRET is required by the API")?;
    let reads = ReadPool::new(
        &settings.database,
        settings.database.max_connections as usize,
    )?;
    let hub = Hub::new(
        redis.clone(),
        reads.clone(),
        {
            // Hub events carry attachments with links minted as they are sent.
            let links = crate::attachments::links::LinkKey::derive(jwt_secret);
            Box::new(move |workspace_id, recorded| {
                crate::chat::projection::project(&links, workspace_id, recorded)
            })
        },
        &settings.redis.namespace,
        settings.redis.timeout(),
    );
    let db = db::pool(&settings.database, settings.database.max_connections);
    Ok(AppState::new(Shared {
        events: Publisher::new(vec![Arc::new(hub.clone())], db.clone()),
        db,
        engine: db::EngineOf::default(),
        reads,
        jwt: JwtKeys::new(jwt_secret),
        widget_identity: IdentityKey::derive(jwt_secret),
        passwords: PasswordHasher::new(settings.application.password_hash_concurrency)?,
        rate_limiter: RateLimiter::new(
            redis.clone(),
            &settings.redis.namespace,
            settings.redis.timeout(),
        ),
        email_tokens: EmailTokenKey::derive(&settings.email.token_secret),
        memberships: MembershipCache::new(
            redis,
            &settings.redis.namespace,
            settings.redis.timeout(),
        ),
        files: Arc::new(crate::attachments::Files::open(
            &settings.storage,
            jwt_secret,
        )?),
        hub,
        reply_times: crate::reply_times::ReplyTimes::default(),
        settings: Arc::new(settings),
    }))
}

/// A Redis connection that connects on first use and reconnects by itself
/// (`RedisSettings::connection_manager`).
pub fn connect_redis(settings: &Settings) -> anyhow::Result<redis::aio::ConnectionManager> {
    settings.redis.connection_manager().context("REDIS_URL")
}

/// Serves `router` on `listener` until `shutdown` resolves, then lets in-flight requests
/// finish for up to [`DRAIN_TIMEOUT`].
///
/// Each connection speaks HTTP/1.1 (with upgrades, for the chat hub) under hyper's header
/// read timeout: a client gets [`HEADER_READ_TIMEOUT`] to send a request's head, counted from
/// when the connection opens or the previous response went out, so a silent connection or
/// one that trickles its headers cannot hold a file descriptor for long without an ingress in
/// front. (axum's `serve` sets no timer, and its protocol detection waits without one.)
pub async fn launch(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    telemetry::spawn_metrics_upkeep();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .keep_alive(true);
    let builder = Arc::new(builder);
    let (draining, drain_rx) = tokio::sync::watch::channel(false);
    let connections = TaskTracker::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, remote) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    pause_after_accept_error(&err).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(remote));
            router.clone().oneshot(request)
        });
        let builder = builder.clone();
        let mut drain_rx = drain_rx.clone();
        connections.spawn(async move {
            let connection = builder
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = drain_rx.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    drop(listener);
    let _ = draining.send(true);
    connections.close();
    if tokio::time::timeout(DRAIN_TIMEOUT, connections.wait())
        .await
        .is_err()
    {
        tracing::warn!("requests still running after the drain timeout; stopping anyway");
    }
    Ok(())
}

/// An accept that failed: a connection reset before it was accepted is nothing; anything
/// else (out of file descriptors, say) is logged and waited out, as accepting again at once
/// would fail again at once.
async fn pause_after_accept_error(err: &std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::error!(error = %err, "accepting a connection failed; pausing for a second");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
