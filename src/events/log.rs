//! The log's SQL: appending a transaction's events, and reading a page of them.
//!
//! Appending takes the next numbers from `event_log_head` (whose row lock then lasts until
//! the transaction ends: see `tenant_migrations/V7__event_log.sql`), then writes the events,
//! so callers append as the last statements before their commit. (An agent's reply, the
//! busiest writer, records its one event itself: `conversations::messages::record_created`.)

use serde::Serialize;
use serde_json::value::RawValue;
use sqlx::PgConnection;
use sqlx::postgres::PgRow;
use sqlx::types::Json;
use sqlx::{FromRow, Row};
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use uuid::Uuid;

use super::catalogue::{ActorKind, DomainEvent, EventActor, Recorded};

/// Who makes the change being recorded, as the writer knows them.
#[derive(Debug, Clone, Copy)]
pub enum By {
    /// A member acting with their workspace token: the log names their agent id.
    Member(Uuid),
    /// An agent already known by their agent id.
    Agent(Uuid),
    /// A widget visitor: their contact id.
    Visitor(Uuid),
    ApiKey(Uuid),
    System,
}

impl By {
    /// The actor as stored, the member's agent id left for the statement to find.
    fn parts(self) -> (ActorKind, Option<Uuid>, Option<Uuid>) {
        match self {
            Self::Member(user_id) => (ActorKind::Agent, None, Some(user_id)),
            Self::Agent(id) => (ActorKind::Agent, Some(id), None),
            Self::Visitor(id) => (ActorKind::Visitor, Some(id), None),
            Self::ApiKey(id) => (ActorKind::ApiKey, Some(id), None),
            Self::System => (ActorKind::System, None, None),
        }
    }
}

impl From<&crate::authz::Actor> for By {
    fn from(actor: &crate::authz::Actor) -> Self {
        match actor.principal {
            crate::authz::Principal::Member { user_id, .. } => Self::Member(user_id),
            crate::authz::Principal::ApiKey { key_id } => Self::ApiKey(key_id),
        }
    }
}

/// The type and data columns of an event (the data as JSON text).
fn columns(event: &DomainEvent) -> Result<(String, String), serde_json::Error> {
    #[derive(serde::Deserialize)]
    struct Columns<'a> {
        r#type: String,
        #[serde(borrow)]
        data: &'a RawValue,
    }
    let json = serde_json::to_string(event)?;
    let columns: Columns<'_> = serde_json::from_str(&json)?;
    Ok((columns.r#type, columns.data.get().to_owned()))
}

/// Records `events`, in this order, in the transaction `conn` is in. Nothing is written for
/// an empty list.
pub async fn append(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    by: By,
    events: Vec<DomainEvent>,
) -> sqlx::Result<Vec<Recorded>> {
    if events.is_empty() {
        return Ok(Vec::new());
    }
    let mut ids = Vec::with_capacity(events.len());
    let mut types = Vec::with_capacity(events.len());
    let mut data = Vec::with_capacity(events.len());
    let mut activity_of = Vec::with_capacity(events.len());
    for event in &events {
        activity_of.push(event.activity_of());
        let (kind, json) = columns(event).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
        ids.push(Uuid::now_v7());
        types.push(kind);
        data.push(json);
    }
    let (kind, id, user_id) = by.parts();
    // Two statements: the numbers taken from the head (its row lock held until commit, so
    // numbers are taken in commit order), with the acting member's agent id when only their
    // account is known; then the events. One statement that did both (a data-modifying CTE
    // feeding an `INSERT ... SELECT`) is a plan Citus runs in steps and, for a table with a
    // `now()` default, deparses wrongly; these two are plain single-node statements.
    let (base, actor_id): (i64, Option<Uuid>) = sqlx::query_as(schema.sql(
        "UPDATE {schema}.event_log_head SET seq = seq + $1
         RETURNING seq - $1,
                   coalesce($2, (SELECT id FROM {schema}.agent_profiles WHERE user_id = $3))",
    ))
    .bind(i64::try_from(events.len()).unwrap_or(i64::MAX))
    .bind(id)
    .bind(user_id)
    .fetch_one(&mut *conn)
    .await?;
    let rows: Vec<(i64, Uuid, time::OffsetDateTime, Option<Uuid>)> = sqlx::query_as(schema.sql(
        "INSERT INTO {schema}.events
                (seq, id, type, actor_kind, actor_id, data, conversation_id)
         SELECT $4 + e.n, e.id, e.type, $5, $6, e.data, e.conversation_id
           FROM unnest($1::uuid[], $2::text[], $3::text[]::json[], $7::uuid[])
                    WITH ORDINALITY AS e(id, type, data, conversation_id, n)
         RETURNING seq, id, occurred_at, actor_id",
    ))
    .bind(&ids)
    .bind(&types)
    .bind(&data)
    .bind(base)
    .bind(kind)
    .bind(actor_id)
    .bind(&activity_of)
    .fetch_all(conn)
    .await?;
    let mut recorded: Vec<Recorded> = rows
        .into_iter()
        .zip(events)
        .map(|((seq, id, occurred_at, actor_id), event)| Recorded {
            id,
            seq,
            occurred_at,
            actor: EventActor { kind, id: actor_id },
            event,
        })
        .collect();
    recorded.sort_by_key(|r| r.seq);
    Ok(recorded)
}

/// One recorded event as stored and as `GET /api/events` shows it: `type` names it and
/// `data` is the resource as the REST API shows it, the JSON text written, handed out as it is.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = LoggedEvent)]
pub struct Stored {
    pub id: Uuid,
    pub seq: i64,
    #[schema(example = "message.created")]
    pub r#type: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub occurred_at: OffsetDateTime,
    pub actor: EventActor,
    #[schema(value_type = Object)]
    pub data: Box<RawValue>,
}

impl FromRow<'_, PgRow> for Stored {
    fn from_row(row: &PgRow) -> sqlx::Result<Self> {
        let Json(data) = row.try_get::<Json<Box<RawValue>>, _>("data")?;
        Ok(Self {
            id: row.try_get("id")?,
            seq: row.try_get("seq")?,
            r#type: row.try_get("type")?,
            occurred_at: row.try_get("occurred_at")?,
            actor: EventActor {
                kind: row.try_get("actor_kind")?,
                id: row.try_get("actor_id")?,
            },
            data,
        })
    }
}

impl TryFrom<Stored> for Recorded {
    type Error = serde_json::Error;

    /// The typed event (the hub projects it).
    fn try_from(stored: Stored) -> Result<Self, serde_json::Error> {
        let tagged = format!(
            "{{\"type\":{},\"data\":{}}}",
            serde_json::to_string(&stored.r#type)?,
            stored.data.get()
        );
        Ok(Self {
            id: stored.id,
            seq: stored.seq,
            occurred_at: stored.occurred_at,
            actor: stored.actor,
            event: serde_json::from_str(&tagged)?,
        })
    }
}

/// Where the log stands: the newest seq, and the newest one pruned.
#[derive(Debug, Clone, Copy, FromRow)]
pub struct Head {
    pub seq: i64,
    pub pruned_through: i64,
}

pub async fn head(conn: &mut PgConnection, schema: &TenantSchema) -> sqlx::Result<Head> {
    sqlx::query_as(schema.sql("SELECT seq, pruned_through FROM {schema}.event_log_head"))
        .fetch_one(conn)
        .await
}

/// Up to `limit` events after `after` and before `before` (exclusive), oldest first, typed.
pub async fn read(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    after: i64,
    before: Option<i64>,
    limit: i64,
) -> sqlx::Result<Vec<Recorded>> {
    read_stored(conn, schema, after, before, limit)
        .await?
        .into_iter()
        .map(|stored| Recorded::try_from(stored).map_err(|e| sqlx::Error::Decode(Box::new(e))))
        .collect()
}

/// Up to `limit` events after `after` and before `before` (exclusive), oldest first, as
/// stored.
pub async fn read_stored(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    after: i64,
    before: Option<i64>,
    limit: i64,
) -> sqlx::Result<Vec<Stored>> {
    sqlx::query_as(schema.sql(
        "SELECT seq, id, type, occurred_at, actor_kind, actor_id, data FROM {schema}.events
          WHERE seq > $1 AND ($2::bigint IS NULL OR seq < $2)
          ORDER BY seq LIMIT $3",
    ))
    .bind(after)
    .bind(before)
    .bind(limit)
    .fetch_all(conn)
    .await
}

/// The activity of a conversation (see [`DomainEvent::activity_of`]), oldest first: at most
/// `limit` events, the newest ones when there are more.
pub async fn activity_of(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation_id: Uuid,
    limit: i64,
) -> sqlx::Result<Vec<Stored>> {
    sqlx::query_as(schema.sql(
        "SELECT * FROM (
             SELECT seq, id, type, occurred_at, actor_kind, actor_id, data FROM {schema}.events
              WHERE conversation_id = $1 ORDER BY seq DESC LIMIT $2
         ) newest ORDER BY seq",
    ))
    .bind(conversation_id)
    .bind(limit)
    .fetch_all(conn)
    .await
}
