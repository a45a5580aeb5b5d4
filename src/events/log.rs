//! The log's SQL: appending a transaction's events, numbering those that waited, and reading
//! a page of them.
//!
//! Appending takes the next numbers from `event_log_head` when no one holds it (its row lock
//! then lasts until the transaction ends: see `tenant_migrations/V7__event_log.sql`), and
//! otherwise writes the events without numbers, for [`number_waiting`] to number after the
//! commit (`tenant_migrations/V27__event_numbering.sql` says why and what still holds).
//! Readers see numbered events only. (An agent's reply, the busiest writer, records its one
//! event itself: `conversations::messages::record_created`.)

use serde::Serialize;
use serde_json::value::RawValue;
use sqlx::postgres::PgRow;
use sqlx::types::Json;
use sqlx::{FromRow, PgConnection, PgPool, Row};
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

/// A transaction's events as [`append`] wrote them: hand them to
/// [`Publisher::committed`](super::publisher::Publisher::committed) after the commit.
#[must_use = "subscribers hear of the events through `Publisher::committed`, after the commit"]
#[derive(Debug)]
pub enum Appended {
    /// Numbered in the transaction (the log's head was free): subscribers hear them as they
    /// are.
    Numbered(Vec<Recorded>),
    /// Written without numbers (the head was busy, or events waited to be numbered): they
    /// are numbered after the commit ([`number_waiting`]), then heard.
    Waiting(TenantSchema),
}

impl Appended {
    /// Nothing was recorded.
    pub fn nothing() -> Self {
        Self::Numbered(Vec::new())
    }
}

/// Whether an event waits to be numbered, as an SQL expression: the newest waiting event's
/// arrival, `NULL` when none waits. Asked newest first: the index of waiting events
/// (`events_unnumbered`) still holds entries for the events passes numbered moments ago, and
/// those are its oldest (a pass numbers in arrival order). Until no transaction can see their
/// old row versions, a reader cannot skip those entries without visiting each row. Read
/// oldest first (`EXISTS`), every write of a busy workspace visited 15 to 40 such rows before
/// it found a waiting event; newest first, 1 to 8 (`docs/performance.md`).
macro_rules! newest_waiting {
    () => {
        "(SELECT arrival FROM {schema}.events WHERE seq IS NULL ORDER BY arrival DESC LIMIT 1)"
    };
}

/// The condition under which a writer takes numbers from the log's head, as the `WHERE` of
/// an `UPDATE` of `event_log_head`: the head is free and no event waits to be numbered
/// (`tenant_migrations/V27__event_numbering.sql`). The subquery, run once before the
/// `UPDATE` reads the head, locks the head or skips it, and the `UPDATE` changes the head
/// only when the subquery locked it, so a busy head is never waited for. A macro, so that
/// every statement taking numbers spells it once (`concat!`).
macro_rules! head_is_free {
    () => {
        concat!(
            "EXISTS (SELECT FROM {schema}.event_log_head WHERE ",
            $crate::events::log::newest_waiting!(),
            " IS NULL FOR UPDATE SKIP LOCKED)"
        )
    };
}
pub(crate) use {head_is_free, newest_waiting};

/// Takes `count` numbers from the log's head when it is free ([`head_is_free`]): the first
/// of them, and the actor's id as [`By::parts`] left it to be found. `None` when the head was
/// busy: the caller writes its events without numbers.
const TAKE_NUMBERS: &str = concat!(
    "UPDATE {schema}.event_log_head SET seq = seq + $1 WHERE ",
    head_is_free!(),
    " RETURNING seq - $1,
                coalesce($2, (SELECT id FROM {schema}.agent_profiles WHERE user_id = $3))"
);

/// Arrivals for `$1` events written without numbers. No table is read, so on Citus the
/// coordinator evaluates it (always the same node, whichever holds the schema): one
/// sequence's numbers, in the order they are taken.
const TAKE_ARRIVALS: &str = "SELECT nextval('{schema}.event_arrivals') FROM generate_series(1, $1)";

/// Records `events`, in this order, in the transaction `conn` is in, numbered when the log's
/// head is free and waiting to be numbered after the commit otherwise ([`Appended`]).
/// Nothing is written for an empty list.
///
/// Callers append after every statement that reads or locks what the events report (their
/// arrival is taken here, and an event must arrive after anything its transaction saw), and
/// as late as they can: a numbered append holds the head until the commit.
pub async fn append(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    by: By,
    events: Vec<DomainEvent>,
) -> sqlx::Result<Appended> {
    if events.is_empty() {
        return Ok(Appended::nothing());
    }
    let count = i64::try_from(events.len()).unwrap_or(i64::MAX);
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
    // Statements of their own, each a plain single-node statement on Citus (a data-modifying
    // CTE is a plan Citus runs in steps and, for a table with a `now()` default, deparses
    // wrongly).
    let numbered: Option<(i64, Option<Uuid>)> = sqlx::query_as(schema.sql(TAKE_NUMBERS))
        .bind(count)
        .bind(id)
        .bind(user_id)
        .fetch_optional(&mut *conn)
        .await?;
    let (base, arrivals, actor_id) = match numbered {
        Some((base, actor_id)) => (Some(base), None, actor_id),
        None => {
            let arrivals: Vec<i64> = sqlx::query_scalar(schema.sql(TAKE_ARRIVALS))
                .bind(count)
                .fetch_all(&mut *conn)
                .await?;
            let actor_id = match (id, user_id) {
                (None, Some(user_id)) => {
                    sqlx::query_scalar(
                        schema.sql("SELECT id FROM {schema}.agent_profiles WHERE user_id = $1"),
                    )
                    .bind(user_id)
                    .fetch_optional(&mut *conn)
                    .await?
                }
                _ => id,
            };
            (None, Some(arrivals), actor_id)
        }
    };
    let rows: Vec<(Option<i64>, Uuid, OffsetDateTime)> = sqlx::query_as(schema.sql(
        "INSERT INTO {schema}.events
                (seq, arrival, id, type, actor_kind, actor_id, data, conversation_id)
         SELECT $4 + e.n, ($8::bigint[])[e.n], e.id, e.type, $5, $6, e.data, e.conversation_id
           FROM unnest($1::uuid[], $2::text[], $3::text[]::json[], $7::uuid[])
                    WITH ORDINALITY AS e(id, type, data, conversation_id, n)
          ORDER BY e.n
         RETURNING seq, id, occurred_at",
    ))
    .bind(&ids)
    .bind(&types)
    .bind(&data)
    .bind(base)
    .bind(kind)
    .bind(actor_id)
    .bind(&activity_of)
    .bind(arrivals)
    .fetch_all(conn)
    .await?;
    if base.is_none() {
        return Ok(Appended::Waiting(schema.clone()));
    }
    let mut recorded: Vec<Recorded> = rows
        .into_iter()
        .zip(events)
        .filter_map(|((seq, id, occurred_at), event)| {
            Some(Recorded {
                id,
                seq: seq?,
                occurred_at,
                actor: EventActor { kind, id: actor_id },
                event,
            })
        })
        .collect();
    recorded.sort_by_key(|r| r.seq);
    Ok(Appended::Numbered(recorded))
}

/// Events numbered per pass of [`number_waiting`].
const NUMBERING_BATCH: i64 = 1000;

/// Numbers the workspace's events that wait for it, in arrival order, under the log's head,
/// and commits: what it numbered, oldest first, as stored. Several passes, on any replicas,
/// may run at once: they take turns on the head, and each numbers what the one before left.
pub async fn number_waiting(db: &PgPool, schema: &TenantSchema) -> sqlx::Result<Vec<Stored>> {
    let mut numbered = Vec::new();
    loop {
        let mut tx = db.begin().await?;
        // The head first: every statement after it sees what the pass before this one
        // numbered (a statement's snapshot is taken when it starts).
        let base: i64 =
            sqlx::query_scalar(schema.sql("SELECT seq FROM {schema}.event_log_head FOR UPDATE"))
                .fetch_one(&mut *tx)
                .await?;
        let mut batch: Vec<Stored> = sqlx::query_as(schema.sql(
            "UPDATE {schema}.events e SET seq = $1 + w.n
               FROM (SELECT arrival, row_number() OVER (ORDER BY arrival) AS n
                       FROM {schema}.events WHERE seq IS NULL
                      ORDER BY arrival LIMIT $2) w
              WHERE e.arrival = w.arrival AND e.seq IS NULL
             RETURNING e.seq, e.id, e.type, e.occurred_at, e.actor_kind, e.actor_id, e.data",
        ))
        .bind(base)
        .bind(NUMBERING_BATCH)
        .fetch_all(&mut *tx)
        .await?;
        let Some(last) = batch.iter().map(|e| e.seq).max() else {
            tx.rollback().await?;
            return Ok(numbered);
        };
        sqlx::query(schema.sql("UPDATE {schema}.event_log_head SET seq = $1"))
            .bind(last)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        let full = batch.len() as i64 >= NUMBERING_BATCH;
        batch.sort_by_key(|e| e.seq);
        numbered.append(&mut batch);
        if !full {
            return Ok(numbered);
        }
    }
}

/// Whether any of the workspace's events waits to be numbered.
pub async fn any_waiting(db: &PgPool, schema: &TenantSchema) -> sqlx::Result<bool> {
    sqlx::query_scalar(schema.sql(concat!("SELECT ", newest_waiting!(), " IS NOT NULL")))
        .fetch_one(db)
        .await
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

/// Where the log stands: the newest seq, the newest one pruned, and whether events wait to
/// be numbered after it.
#[derive(Debug, Clone, Copy, FromRow)]
pub struct Head {
    pub seq: i64,
    pub pruned_through: i64,
    pub waiting: bool,
}

pub async fn head(conn: &mut PgConnection, schema: &TenantSchema) -> sqlx::Result<Head> {
    sqlx::query_as(schema.sql(concat!(
        "SELECT seq, pruned_through, ",
        newest_waiting!(),
        " IS NOT NULL AS waiting FROM {schema}.event_log_head",
    )))
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
              WHERE conversation_id = $1 AND seq IS NOT NULL ORDER BY seq DESC LIMIT $2
         ) newest ORDER BY seq",
    ))
    .bind(conversation_id)
    .bind(limit)
    .fetch_all(conn)
    .await
}
