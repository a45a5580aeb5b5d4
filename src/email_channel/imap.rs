//! Watching workspaces' IMAP mailboxes: each API process takes a share of the mailboxes by
//! lease (`public.email_mailboxes.lease_until`, renewed every [`RENEW`]; a process that dies
//! loses its share within [`LEASE`]), and keeps one connection per mailbox:
//!
//! 1. log in, select the folder, and take every message whose UID is above the last one taken
//!    (all of them the first time, or when the folder's UIDVALIDITY changed), oldest first,
//!    each through the same receiving as `POST /inbound/email`, the last UID recorded after
//!    each: a restart neither loses nor repeats one (a message taken again after a crash
//!    between the two is a duplicate by its Message-ID). `BODY.PEEK[]`: nothing is marked
//!    read, nothing is deleted.
//! 2. wait with IDLE for new mail (or poll every [`POLL`] where the server has no IDLE), then
//!    take it as in 1.
//!
//! A failure (the server unreachable, a refused login, a folder that is not there) is recorded
//! on the mailbox as `failing` with the server's words, shown in Settings, and tried again
//! after a backoff (5 s doubling to 5 minutes); a settings change restarts the watcher at once.
//! A refused login also emails the Owners, once per failure: again only after it worked.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_imap::Session;
use async_imap::extensions::idle::IdleResponse;
use futures::TryStreamExt;
use secrecy::ExposeSecret;
use supportdesk_core::outbox::{self, OutboxMessage};
use supportdesk_core::tenancy::TenantSchema;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::receive::{self, Recipient};
use crate::error::Error;
use crate::state::AppState;
use supportdesk_core::sealed_credentials::CredentialKey;

/// How long a lease lasts without renewal.
const LEASE: Duration = Duration::from_secs(30);
/// How often leases are renewed and free mailboxes looked for.
const RENEW: Duration = Duration::from_secs(5);
/// Mailboxes one process watches at most.
const SHARE: i64 = 500;
/// Between checks of a server without IDLE.
const POLL: Duration = Duration::from_secs(30);
/// IDLE is renewed before servers drop it (RFC 2177: 29 minutes).
const IDLE_FOR: Duration = Duration::from_secs(20 * 60);
/// Connecting and each command that is not IDLE.
const TIMEOUT: Duration = Duration::from_secs(30);
/// Messages fetched per command.
const BATCH: usize = 50;

/// A stream IMAP can speak over: plain TCP or TLS.
trait Connection: AsyncRead + AsyncWrite + Unpin + Send + std::fmt::Debug {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + std::fmt::Debug> Connection for T {}
type ImapSession = Session<Box<dyn Connection>>;

/// Watches this process's share of the mailboxes until `stop`.
pub async fn run(state: AppState, key: CredentialKey, stop: CancellationToken) {
    let owner = Uuid::new_v4();
    let key = Arc::new(key);
    let mut watching: HashMap<Uuid, (i32, CancellationToken)> = HashMap::new();
    let mut tick = tokio::time::interval(RENEW);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            _ = tick.tick() => {}
        }
        let held = match lease(&state, owner).await {
            Ok(held) => held,
            Err(e) => {
                tracing::warn!(error = %e, "renewing mailbox leases failed");
                continue;
            }
        };
        watching.retain(|workspace_id, (version, cancel)| {
            let keep = held.get(workspace_id) == Some(version);
            if !keep {
                cancel.cancel();
            }
            keep
        });
        for (workspace_id, version) in held {
            if watching.contains_key(&workspace_id) {
                continue;
            }
            let cancel = stop.child_token();
            watching.insert(workspace_id, (version, cancel.clone()));
            tokio::spawn(watch(state.clone(), key.clone(), workspace_id, cancel));
        }
    }
    for (_, cancel) in watching.values() {
        cancel.cancel();
    }
    let _ = sqlx::query(
        "UPDATE public.email_mailboxes SET lease_owner = NULL, lease_until = NULL
          WHERE lease_owner = $1",
    )
    .bind(owner)
    .execute(&state.db)
    .await;
}

/// Renews this process's leases and takes free mailboxes, up to [`SHARE`]; what it holds now,
/// with each mailbox's settings version.
async fn lease(state: &AppState, owner: Uuid) -> sqlx::Result<HashMap<Uuid, i32>> {
    let rows: Vec<(Uuid, i32)> = sqlx::query_as(
        "UPDATE public.email_mailboxes m
            SET lease_owner = $1, lease_until = now() + make_interval(secs => $2)
          WHERE m.workspace_id IN (
                SELECT workspace_id FROM public.email_mailboxes
                 WHERE lease_owner = $1 OR lease_until IS NULL OR lease_until < now()
                 ORDER BY lease_owner = $1 DESC, workspace_id
                 LIMIT $3 FOR UPDATE SKIP LOCKED)
            AND EXISTS (SELECT 1 FROM public.workspaces w
                         WHERE w.id = m.workspace_id AND w.status = 'active')
          RETURNING m.workspace_id, m.version",
    )
    .bind(owner)
    .bind(LEASE.as_secs_f64())
    .bind(SHARE)
    .fetch_all(&state.db)
    .await?;
    Ok(rows.into_iter().collect())
}

/// Keeps one mailbox's connection until `cancel`, starting over after a failure.
async fn watch(
    state: AppState,
    key: Arc<CredentialKey>,
    workspace_id: Uuid,
    cancel: CancellationToken,
) {
    let mut backoff = Duration::from_secs(5);
    loop {
        let outcome = tokio::select! {
            () = cancel.cancelled() => return,
            outcome = session(&state, &key, workspace_id, &cancel) => outcome,
        };
        let Err(error) = outcome else { return };
        tracing::warn!(%workspace_id, %error, "watching a mailbox failed; trying again");
        metrics::counter!("email_mailbox_failures_total").increment(1);
        if let Err(e) = record_failure(&state, workspace_id, &error).await {
            tracing::warn!(error = %e, "recording a mailbox failure failed");
        }
        tokio::select! {
            () = cancel.cancelled() => return,
            () = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(Duration::from_secs(300));
    }
}

/// Why a session ended.
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error("cannot reach {0}: {1}")]
    Connect(String, String),
    #[error("the server refused the login: {0}")]
    Login(String),
    #[error("{0}")]
    Imap(String),
    #[error("{0}")]
    Receiving(String),
    #[error("{0}")]
    Unreadable(#[from] supportdesk_core::sealed_credentials::Unreadable),
    #[error("the database failed: {0}")]
    Database(#[from] sqlx::Error),
}

fn imap(e: impl std::fmt::Display) -> Failure {
    Failure::Imap(format!("IMAP: {e}"))
}

/// What a session needs of the mailbox row.
#[derive(sqlx::FromRow)]
struct Settings {
    host: String,
    port: i32,
    tls: bool,
    username: String,
    password_sealed: Vec<u8>,
    folder: String,
    uid_validity: Option<i64>,
    last_uid: i64,
    schema_name: String,
}

async fn settings(state: &AppState, workspace_id: Uuid) -> sqlx::Result<Option<Settings>> {
    sqlx::query_as(
        "SELECT m.host, m.port, m.tls, m.username, m.password_sealed, m.folder, m.uid_validity,
                m.last_uid, w.schema_name
           FROM public.email_mailboxes m JOIN public.workspaces w ON w.id = m.workspace_id
          WHERE m.workspace_id = $1",
    )
    .bind(workspace_id)
    .fetch_optional(&state.db)
    .await
}

/// One connection: log in, take what waits, then wait for more; returns when cancelled.
async fn session(
    state: &AppState,
    key: &CredentialKey,
    workspace_id: Uuid,
    cancel: &CancellationToken,
) -> Result<(), Failure> {
    let Some(settings) = settings(state, workspace_id).await? else {
        return Ok(());
    };
    let password = key.open(&settings.password_sealed)?;
    let stream = connect(&settings.host, settings.port, settings.tls).await?;
    let mut client = async_imap::Client::new(stream);
    let greeting = tokio::time::timeout(TIMEOUT, client.read_response())
        .await
        .map_err(|_| imap("no greeting from the server"))?
        .map_err(imap)?;
    if greeting.is_none() {
        return Err(imap("the server closed the connection"));
    }
    let mut session = tokio::time::timeout(
        TIMEOUT,
        client.login(&settings.username, password.expose_secret()),
    )
    .await
    .map_err(|_| imap("the login got no answer"))?
    .map_err(|(e, _)| Failure::Login(e.to_string()))?;
    let selected = tokio::time::timeout(TIMEOUT, session.select(&settings.folder))
        .await
        .map_err(|_| imap("selecting the folder got no answer"))?
        .map_err(|e| Failure::Imap(format!("folder {:?}: {e}", settings.folder)))?;
    let validity = selected.uid_validity.map(i64::from);
    let mut last_uid = if validity == settings.uid_validity {
        settings.last_uid
    } else {
        0
    };
    sqlx::query(
        "UPDATE public.email_mailboxes
            SET status = 'connected', last_error = NULL, owners_alerted = false,
                uid_validity = $2, last_uid = $3
          WHERE workspace_id = $1",
    )
    .bind(workspace_id)
    .bind(validity)
    .bind(last_uid)
    .execute(&state.db)
    .await?;
    let idle = session.capabilities().await.map_err(imap)?.has_str("IDLE");
    let schema = TenantSchema::parse(&settings.schema_name).map_err(Failure::Receiving)?;
    let recipient = Recipient {
        workspace_id,
        schema,
    };
    loop {
        last_uid = take_new(state, &mut session, &recipient, last_uid, cancel).await?;
        if cancel.is_cancelled() {
            let _ = session.logout().await;
            return Ok(());
        }
        session = if idle {
            wait_idle(session, cancel).await?
        } else {
            tokio::select! {
                () = cancel.cancelled() => {}
                () = tokio::time::sleep(POLL) => {}
            }
            session.noop().await.map_err(imap)?;
            session
        };
    }
}

async fn connect(host: &str, port: i32, tls: bool) -> Result<Box<dyn Connection>, Failure> {
    let address = format!("{host}:{port}");
    let port =
        u16::try_from(port).map_err(|_| Failure::Connect(address.clone(), "bad port".into()))?;
    let tcp = tokio::time::timeout(TIMEOUT, TcpStream::connect((host, port)))
        .await
        .map_err(|_| Failure::Connect(address.clone(), "timed out".into()))?
        .map_err(|e| Failure::Connect(address.clone(), e.to_string()))?;
    if !tls {
        return Ok(Box::new(tcp));
    }
    let roots: tokio_rustls::rustls::RootCertStore =
        webpki_roots::TLS_SERVER_ROOTS.iter().cloned().collect();
    let config = tokio_rustls::rustls::ClientConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| Failure::Connect(address.clone(), e.to_string()))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name = tokio_rustls::rustls::pki_types::ServerName::try_from(host.to_owned())
        .map_err(|e| Failure::Connect(address.clone(), e.to_string()))?;
    let stream = tokio::time::timeout(
        TIMEOUT,
        tokio_rustls::TlsConnector::from(Arc::new(config)).connect(name, tcp),
    )
    .await
    .map_err(|_| Failure::Connect(address.clone(), "TLS timed out".into()))?
    .map_err(|e| Failure::Connect(address, format!("TLS: {e}")))?;
    Ok(Box::new(stream))
}

/// Takes every message above `last_uid`, oldest first, recording each; the new last UID.
async fn take_new(
    state: &AppState,
    session: &mut ImapSession,
    recipient: &Recipient,
    mut last_uid: i64,
    cancel: &CancellationToken,
) -> Result<i64, Failure> {
    let query = format!("UID {}:*", last_uid + 1);
    let mut uids: Vec<u32> = tokio::time::timeout(TIMEOUT, session.uid_search(&query))
        .await
        .map_err(|_| imap("searching got no answer"))?
        .map_err(imap)?
        .into_iter()
        .filter(|uid| i64::from(*uid) > last_uid)
        .collect();
    uids.sort_unstable();
    for batch in uids.chunks(BATCH) {
        let set = batch
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let mut fetched: Vec<(u32, Vec<u8>)> = {
            let stream = session
                .uid_fetch(&set, "(UID BODY.PEEK[])")
                .await
                .map_err(imap)?;
            let messages: Vec<_> = stream.try_collect().await.map_err(imap)?;
            messages
                .iter()
                .filter_map(|m| Some((m.uid?, m.body()?.to_vec())))
                .collect()
        };
        fetched.sort_by_key(|(uid, _)| *uid);
        for (uid, raw) in fetched {
            if cancel.is_cancelled() {
                return Ok(last_uid);
            }
            match receive::receive_for(state, recipient, raw.into()).await {
                Ok(receipt) => {
                    tracing::debug!(uid, ?receipt, "a mailbox message was received");
                }
                // Refused for good (no sender, too large): skipped, as a bounce would be.
                Err(Error::Body { detail, .. }) => {
                    tracing::warn!(uid, %detail, "a mailbox message was refused");
                }
                Err(e) => return Err(Failure::Receiving(e.to_string())),
            }
            last_uid = i64::from(uid);
            sqlx::query("UPDATE public.email_mailboxes SET last_uid = $2 WHERE workspace_id = $1")
                .bind(recipient.workspace_id)
                .bind(last_uid)
                .execute(&state.db)
                .await?;
            metrics::counter!("email_mailbox_messages_total").increment(1);
        }
    }
    Ok(last_uid)
}

/// Waits with IDLE until the server reports a change, the IDLE is due for renewal, or
/// `cancel`; the session back.
async fn wait_idle(
    session: ImapSession,
    cancel: &CancellationToken,
) -> Result<ImapSession, Failure> {
    let mut handle = session.idle();
    handle.init().await.map_err(imap)?;
    let (wait, interrupt) = handle.wait_with_timeout(IDLE_FOR);
    let response = tokio::select! {
        response = wait => response.map_err(imap)?,
        () = cancel.cancelled() => {
            drop(interrupt);
            IdleResponse::ManualInterrupt
        }
    };
    tracing::trace!(?response, "IDLE ended");
    handle.done().await.map_err(imap)
}

/// Marks the mailbox failing with the reason shown in Settings; a refused login also emails
/// the workspace's Owners, once until the mailbox works again.
async fn record_failure(
    state: &AppState,
    workspace_id: Uuid,
    failure: &Failure,
) -> sqlx::Result<()> {
    let reason: String = failure.to_string().chars().take(500).collect();
    let login = matches!(failure, Failure::Login(_) | Failure::Unreadable(_));
    let mut tx = state.db.begin().await?;
    let alert: Option<bool> = sqlx::query_scalar(
        "UPDATE public.email_mailboxes
            SET status = 'failing', last_error = $2, owners_alerted = owners_alerted OR $3
          WHERE workspace_id = $1
      RETURNING $3 AND NOT (SELECT owners_alerted FROM public.email_mailboxes
                             WHERE workspace_id = $1)",
    )
    .bind(workspace_id)
    .bind(reason)
    .bind(login)
    .fetch_optional(&mut *tx)
    .await?;
    if alert == Some(true) {
        let owners: Vec<Uuid> = sqlx::query_scalar(
            "SELECT user_id FROM public.memberships
              WHERE workspace_id = $1 AND role = 'admin' AND status = 'active'",
        )
        .bind(workspace_id)
        .fetch_all(&mut *tx)
        .await?;
        for user_id in owners {
            outbox::enqueue(
                &mut tx,
                &OutboxMessage::MailboxFailingEmail {
                    workspace_id,
                    user_id,
                },
            )
            .await?;
        }
    }
    tx.commit().await
}
