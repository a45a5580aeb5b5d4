//! Who may act in which workspace, looked up once per (user, workspace) and cached.
//!
//! Every request with a workspace token needs the caller's current membership: the token's
//! role claim may be stale (roles change), and a deactivated member must be refused at once.
//! A moka cache keyed by (user, workspace) answers most requests without PostgreSQL; any
//! membership change invalidates the entry here and, through a Redis channel, on every other
//! replica.
//!
//! The cache is trusted only while this replica is known to hear that channel: the listener
//! (`supportdesk_core::pubsub`) pings its subscription every second, and from the moment the subscription fails (Redis
//! down or unreachable, a half-open connection) until it is re-established, every lookup
//! goes to PostgreSQL ("fail closed"). On every (re)subscription the whole cache is dropped,
//! since messages may have been missed meanwhile. `TTL` remains as a last bound.
//!
//! Also a member's workspaces as the API lists them (`MembershipSummary`, `memberships_of`),
//! here rather than in `workspaces` so `auth` (`/auth/me`) need not depend on `workspaces`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use redis::aio::ConnectionManager;
use serde::Serialize;
use sqlx::{PgExecutor, PgPool};
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::migrations::latest_version;
use tokio_util::sync::CancellationToken;
use utoipa::ToSchema;
use uuid::Uuid;

use supportdesk_core::role::Role;

use supportdesk_core::pubsub;

/// The longest a membership change can go unnoticed by a replica that missed its message.
pub const TTL: Duration = Duration::from_secs(15);
/// How long a failed broadcast is retried (after commit) before other replicas are left to
/// the TTL.
const BROADCAST_RETRY_FOR: Duration = Duration::from_secs(30);

#[derive(Debug, Clone)]
pub struct Membership {
    pub workspace_id: Uuid,
    pub user_id: Uuid,
    pub role: Role,
    /// The membership is active and the workspace is not being deleted.
    pub active: bool,
    pub workspace_active: bool,
    pub schema: TenantSchema,
    /// The account's token version: workspace tokens issued before a password reset carry an
    /// older one and are refused.
    pub token_version: i32,
    /// The schema is at (or past) the tenant migrations this binary expects. Not during a
    /// rolling deploy in which an older replica provisioned the workspace after the new
    /// version's migrations ran: `tenants migrate` brings it up, and until then its requests
    /// are refused with a clear 503 rather than failing half-way through a handler.
    pub schema_current: bool,
}

type Key = (Uuid, Uuid);

/// Whose access may have changed: one membership, every membership of an account, or every
/// membership of a workspace. Told to this replica's listeners (the chat hub closes the
/// connections that lost access) after the cache forgot the entries. The chat widget's
/// visitors travel the same way: a change to a whole workspace concerns its visitors too, and
/// a change to one widget contact (`contact_id`) concerns that contact's visitors only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MembershipChange {
    pub user_id: Option<Uuid>,
    pub workspace_id: Option<Uuid>,
    /// A contact of `workspace_id` whose visitors' tokens may have lost their trust (its
    /// identity was verified): no member is concerned.
    pub contact_id: Option<Uuid>,
}

impl MembershipChange {
    pub fn concerns(&self, user_id: Uuid, workspace_id: Uuid) -> bool {
        self.contact_id.is_none()
            && self.user_id.is_none_or(|u| u == user_id)
            && self.workspace_id.is_none_or(|w| w == workspace_id)
    }
}

/// A cached lookup, with the [`MembershipCache::generation`] before and after it ran.
#[derive(Clone)]
struct Loaded {
    membership: Option<Arc<Membership>>,
    started: u64,
    finished: u64,
}

#[derive(Clone)]
pub struct MembershipCache {
    cache: moka::future::Cache<Key, Loaded>,
    /// Bumped before every invalidation. A load that overlapped one may have read the row
    /// before the change committed, and moka stores a finished load whatever was invalidated
    /// meanwhile; such a result is neither kept nor given to anyone (the requests that joined
    /// the load may have arrived after the change): each reads the row afresh.
    generation: Arc<AtomicU64>,
    /// True while the invalidation channel is known to be heard; the cache is bypassed
    /// otherwise.
    subscribed: Arc<AtomicBool>,
    redis: ConnectionManager,
    channel: Arc<str>,
    redis_timeout: Duration,
    changes: tokio::sync::broadcast::Sender<MembershipChange>,
}

impl MembershipCache {
    pub fn new(redis: ConnectionManager, namespace: &str, redis_timeout: Duration) -> Self {
        Self {
            cache: moka::future::Cache::builder()
                .max_capacity(100_000)
                .time_to_live(TTL)
                .support_invalidation_closures()
                .build(),
            generation: Arc::default(),
            subscribed: Arc::default(),
            redis,
            channel: format!("{namespace}:memberships").into(),
            redis_timeout,
            changes: tokio::sync::broadcast::channel(1024).0,
        }
    }

    /// The membership of `user_id` in `workspace_id` (None: not a member, or no such
    /// workspace). Concurrent misses for one key share a single query.
    pub async fn get(
        &self,
        db: &PgPool,
        user_id: Uuid,
        workspace_id: Uuid,
    ) -> Result<Option<Arc<Membership>>, Arc<sqlx::Error>> {
        if !self.is_subscribed() {
            return load(db, user_id, workspace_id).await.map_err(Arc::new);
        }
        let key = (user_id, workspace_id);
        let before = self.generation.load(Ordering::SeqCst);
        let loaded = self
            .cache
            .try_get_with(key, async {
                let started = self.generation.load(Ordering::SeqCst);
                let membership = load(db, user_id, workspace_id).await?;
                let finished = self.generation.load(Ordering::SeqCst);
                Ok::<_, sqlx::Error>(Loaded {
                    membership,
                    started,
                    finished,
                })
            })
            .await?;
        if loaded.started != loaded.finished {
            // Something was invalidated while it loaded, perhaps this very membership.
            self.cache.invalidate(&key).await;
            return load(db, user_id, workspace_id).await.map_err(Arc::new);
        }
        if self.generation.load(Ordering::SeqCst) != before {
            // Invalidated since this request arrived: moka may have stored the load after.
            self.cache.invalidate(&key).await;
        }
        Ok(loaded.membership)
    }

    /// Whether cached memberships may be trusted: the invalidation channel is heard.
    pub fn is_subscribed(&self) -> bool {
        self.subscribed.load(Ordering::SeqCst)
    }

    /// Forget one membership here and on every replica. The broadcast runs in a task of its
    /// own, so a caller dropped after its commit (a client that went away) cannot cancel it.
    /// Changes on this replica and, through Redis, on the others, after the cache forgot them.
    pub fn subscribe_changes(&self) -> tokio::sync::broadcast::Receiver<MembershipChange> {
        self.changes.subscribe()
    }

    fn tell(&self, user_id: Option<Uuid>, workspace_id: Option<Uuid>) {
        let _ = self.changes.send(MembershipChange {
            user_id,
            workspace_id,
            contact_id: None,
        });
    }

    fn tell_contact(&self, workspace_id: Uuid, contact_id: Uuid) {
        let _ = self.changes.send(MembershipChange {
            user_id: None,
            workspace_id: Some(workspace_id),
            contact_id: Some(contact_id),
        });
    }

    pub async fn changed(&self, user_id: Uuid, workspace_id: Uuid) {
        self.invalidate_one(user_id, workspace_id).await;
        self.tell(Some(user_id), Some(workspace_id));
        self.broadcast(format!("m:{user_id}:{workspace_id}")).await;
    }

    /// Forget every membership of an account here and on every replica (its tokens were
    /// revoked).
    pub async fn user_changed(&self, user_id: Uuid) {
        self.invalidate_user(user_id);
        self.tell(Some(user_id), None);
        self.broadcast(format!("u:{user_id}")).await;
    }

    /// Forget every membership of a workspace here and on every replica.
    pub async fn workspace_changed(&self, workspace_id: Uuid) {
        self.invalidate_workspace(workspace_id);
        self.tell(None, Some(workspace_id));
        self.broadcast(format!("w:{workspace_id}")).await;
    }

    /// Forget one membership on this replica only, so the next look-up reads the database
    /// (the hub's periodic check of its connections, which must not trust what may be stale).
    pub async fn forget_here(&self, user_id: Uuid, workspace_id: Uuid) {
        self.invalidate_one(user_id, workspace_id).await;
    }

    /// A chat widget contact's visitors may have lost access (the contact was verified), here
    /// and on every replica. No membership changed, so the cache keeps its entries.
    pub async fn contact_changed(&self, workspace_id: Uuid, contact_id: Uuid) {
        self.tell_contact(workspace_id, contact_id);
        self.broadcast(format!("c:{workspace_id}:{contact_id}"))
            .await;
    }

    async fn invalidate_one(&self, user_id: Uuid, workspace_id: Uuid) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.cache.invalidate(&(user_id, workspace_id)).await;
    }

    fn invalidate_all(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.cache.invalidate_all();
    }

    /// Publishes once before returning (the common case: other replicas know before the
    /// caller answers); if that fails, keeps retrying in the background for a while.
    async fn broadcast(&self, message: String) {
        let this = self.clone();
        let _ = tokio::spawn(async move {
            if this.publish(&message).await {
                return;
            }
            tokio::spawn(async move {
                let deadline = tokio::time::Instant::now() + BROADCAST_RETRY_FOR;
                let mut pause = Duration::from_millis(250);
                while tokio::time::Instant::now() < deadline {
                    tokio::time::sleep(pause).await;
                    if this.publish(&message).await {
                        return;
                    }
                    pause = (pause * 2).min(Duration::from_secs(5));
                }
            });
        })
        .await;
    }

    fn invalidate_user(&self, user_id: Uuid) {
        self.invalidate_matching(move |key| key.0 == user_id);
    }

    fn invalidate_workspace(&self, workspace_id: Uuid) {
        self.invalidate_matching(move |key| key.1 == workspace_id);
    }

    fn invalidate_matching(&self, matches: impl Fn(&Key) -> bool + Send + Sync + 'static) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        if let Err(err) = self.cache.invalidate_entries_if(move |key, _| matches(key)) {
            tracing::warn!(error = %err, "could not invalidate memberships selectively; dropping all");
            self.invalidate_all();
        }
    }

    /// Whether the message reached Redis.
    async fn publish(&self, message: &str) -> bool {
        let mut conn = self.redis.clone();
        let mut command = redis::cmd("PUBLISH");
        command.arg(&*self.channel).arg(message);
        let publish = command.query_async::<i64>(&mut conn);
        match tokio::time::timeout(self.redis_timeout, publish).await {
            Ok(Ok(_)) => true,
            Ok(Err(err)) => {
                tracing::warn!(error = %err, "membership change not broadcast yet; retrying");
                false
            }
            Err(_) => {
                tracing::warn!("membership change broadcast timed out; retrying");
                false
            }
        }
    }

    /// Applies other replicas' changes until `stop`; reconnects with backoff, and drops the
    /// whole cache on every (re)subscription since messages may have been missed meanwhile.
    pub async fn listen(self, client: redis::Client, stop: CancellationToken) {
        let channel = pubsub::Channel {
            client: &client,
            name: &self.channel,
            timeout: self.redis_timeout,
            purpose: "membership invalidation channel",
        };
        let on_state = |subscribed: bool| {
            if subscribed {
                // Whatever was published while we were not listening is lost: start from
                // nothing, and tell the listeners that anyone's access may have changed.
                self.invalidate_all();
                self.tell(None, None);
            }
            self.subscribed.store(subscribed, Ordering::SeqCst);
        };
        let this = &self;
        pubsub::listen(channel, &stop, on_state, |payload| async move {
            this.apply(&payload).await;
        })
        .await;
    }

    async fn apply(&self, payload: &str) {
        let mut parts = payload.split(':');
        match (parts.next(), parts.next(), parts.next()) {
            (Some("m"), Some(user), Some(workspace)) => {
                if let (Ok(user), Ok(workspace)) = (user.parse(), workspace.parse()) {
                    self.invalidate_one(user, workspace).await;
                    self.tell(Some(user), Some(workspace));
                }
            }
            (Some("u"), Some(user), None) => {
                if let Ok(user) = user.parse() {
                    self.invalidate_user(user);
                    self.tell(Some(user), None);
                }
            }
            (Some("w"), Some(workspace), None) => {
                if let Ok(workspace) = workspace.parse() {
                    self.invalidate_workspace(workspace);
                    self.tell(None, Some(workspace));
                }
            }
            (Some("c"), Some(workspace), Some(contact)) => {
                if let (Ok(workspace), Ok(contact)) = (workspace.parse(), contact.parse()) {
                    self.tell_contact(workspace, contact);
                }
            }
            _ => tracing::warn!(payload, "unknown membership invalidation message"),
        }
    }
}

async fn load<'e>(
    db: impl PgExecutor<'e>,
    user_id: Uuid,
    workspace_id: Uuid,
) -> Result<Option<Arc<Membership>>, sqlx::Error> {
    let row = sqlx::query!(
        r#"SELECT m.role AS "role: Role", m.status, w.status AS workspace_status, w.schema_name,
                  w.schema_version, u.token_version
             FROM public.memberships m
             JOIN public.workspaces w ON w.id = m.workspace_id
             JOIN public.users u ON u.id = m.user_id
            WHERE m.user_id = $1 AND m.workspace_id = $2"#,
        user_id,
        workspace_id,
    )
    .fetch_optional(db)
    .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let decode = |e: String| sqlx::Error::Decode(e.into());
    let workspace_active = row.workspace_status == "active";
    Ok(Some(Arc::new(Membership {
        workspace_id,
        user_id,
        role: row.role,
        active: row.status == "active" && workspace_active,
        workspace_active,
        schema: TenantSchema::parse(&row.schema_name).map_err(decode)?,
        token_version: row.token_version,
        schema_current: row.schema_version >= latest_version(),
    })))
}

/// An element of `workspaces` in `/auth/me` and `GET /workspaces`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MembershipSummary {
    pub id: Uuid,
    pub name: String,
    pub slug: String,
    pub role: Role,
}

/// The user's active memberships in workspaces that are not being deleted, oldest first.
pub async fn memberships_of(
    db: impl PgExecutor<'_>,
    user_id: Uuid,
) -> sqlx::Result<Vec<MembershipSummary>> {
    sqlx::query_as!(
        MembershipSummary,
        r#"SELECT w.id, w.name, w.slug, m.role AS "role: Role"
             FROM public.memberships m
             JOIN public.workspaces w ON w.id = m.workspace_id
            WHERE m.user_id = $1 AND m.status = 'active' AND w.status = 'active'
            ORDER BY m.created_at, w.id"#,
        user_id,
    )
    .fetch_all(db)
    .await
}
