//! The log's SQL: appending a transaction's events, numbering those that waited, and reading
//! a page of them.
//!
//! Appending takes the next numbers from `event_log_head` when no one holds it (its row lock
//! then lasts until the transaction ends: see `tenant_migrations/V7__event_log.sql`), and
//! otherwise writes the events without numbers, for [`number_waiting`] to number after the
//! commit (`tenant_migrations/V27__event_numbering.sql` says why and what still holds), by
//! one `event_batches` row a pass (`tenant_migrations/V28__event_batches.sql`). Readers see
//! numbered events only, read through `supportdesk_core::numbered_events!`. (An agent's reply, the busiest writer, records its one
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

/// The newest arrival of an event written without a number, as an SQL expression (`NULL` when
/// there is none). An event waits to be numbered when its arrival is above the head's
/// watermark (`batched_through`) and no batch numbered it, so a newest arrival at or below the
/// watermark means none waits. Read newest first: the index of arrivals is read from its end,
/// one entry.
macro_rules! newest_arrival {
    () => {
        "(SELECT arrival FROM {schema}.events WHERE seq IS NULL ORDER BY arrival DESC LIMIT 1)"
    };
}

/// Whether an event waits to be numbered, as an SQL expression over the head (`h`): an arrival
/// above the watermark that no batch numbered (those that did are listed in `above`).
macro_rules! any_waiting {
    () => {
        "EXISTS (SELECT FROM {schema}.events e WHERE e.seq IS NULL
                    AND e.arrival > h.batched_through AND e.arrival <> ALL (h.above))"
    };
}

/// The condition under which a writer takes numbers from the log's head, as the `WHERE` of
/// an `UPDATE` of `event_log_head`: the head is free and no event waits to be numbered
/// (`tenant_migrations/V27__event_numbering.sql`). The subquery, run once before the
/// `UPDATE` reads the head, locks the head or skips it, and the `UPDATE` changes the head
/// only when the subquery locked it, so a busy head is never waited for. A macro, so that
/// every statement taking numbers spells it once (`concat!`). A writer that finds numbered
/// arrivals above the watermark waits too (telling them from waiting ones costs more than
/// waiting, `docs/performance.md`): the pass after its commit moves the watermark.
macro_rules! head_is_free {
    () => {
        concat!(
            "EXISTS (SELECT FROM {schema}.event_log_head h WHERE coalesce(",
            $crate::events::log::newest_arrival!(),
            ", 0) <= h.batched_through FOR UPDATE SKIP LOCKED)"
        )
    };
}
pub(crate) use {head_is_free, newest_arrival};

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
/// sequence's numbers, in the order they are taken. Run after [`HOLD_XID`].
pub(crate) const TAKE_ARRIVALS: &str =
    "SELECT nextval('{schema}.event_arrivals') FROM generate_series(1, $1)";

/// Gives the writer's transaction its id, where the workspace's tables are, before it takes
/// an arrival: a pass moves its watermark past an arrival only once every transaction whose
/// id was assigned before it read the arrivals handed out has ended
/// (`tenant_migrations/V28__event_batches.sql`). A `SELECT` over a tenant table, so that on
/// Citus the node holding the schema runs it (a writer has usually written there already;
/// this makes sure).
pub(crate) const HOLD_XID: &str = "SELECT pg_current_xact_id()::text FROM {schema}.event_log_head";

/// The `INSERT` of `count` events: `$1` and `$2` the actor's kind and id, then six
/// parameters an event (seq, arrival, id, type, data, conversation). A multi-row `VALUES`, so
/// that on Citus the statement goes to the workspace's node as it is, in the writer's own
/// transaction there, whose id [`HOLD_XID`] took before the arrivals. Written before as an
/// `INSERT ... SELECT FROM unnest(...)`, the rows reached the node in a transaction whose id
/// came after the arrivals (seen in `tests/api/citus.rs`, under load: a pass's horizon
/// passed an arrival whose rows were not yet visible, and they were never numbered).
fn insert_events(count: usize) -> String {
    let rows: Vec<String> = (0..count)
        .map(|n| {
            let p = 3 + 6 * n;
            format!(
                "(${}::bigint, ${}::bigint, ${}::uuid, ${}::text, $1, $2, ${}::json, ${}::uuid)",
                p,
                p + 1,
                p + 2,
                p + 3,
                p + 4,
                p + 5
            )
        })
        .collect();
    format!(
        "INSERT INTO {{schema}}.events
                (seq, arrival, id, type, actor_kind, actor_id, data, conversation_id)
         VALUES {}
         RETURNING seq, id, occurred_at",
        rows.join(", ")
    )
}

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
            sqlx::query(schema.sql(HOLD_XID))
                .execute(&mut *conn)
                .await?;
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
    let mut insert = sqlx::query_as(schema.sql(&insert_events(events.len())))
        .bind(kind)
        .bind(actor_id);
    for (n, ((id, (event_type, json)), conversation_id)) in ids
        .iter()
        .zip(types.iter().zip(&data))
        .zip(&activity_of)
        .enumerate()
    {
        let offset = i64::try_from(n).unwrap_or(i64::MAX);
        insert = insert
            .bind(base.map(|base| base + offset + 1))
            .bind(arrivals.as_ref().and_then(|a| a.get(n).copied()))
            .bind(id)
            .bind(event_type)
            .bind(json)
            .bind(conversation_id);
    }
    let rows: Vec<(Option<i64>, Uuid, OffsetDateTime)> = insert.fetch_all(conn).await?;
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

/// Arrivals numbered per pass of [`number_waiting`].
const NUMBERING_BATCH: i64 = supportdesk_core::event_log::BATCH_MAX;

/// What a pass left: the events it numbered, oldest first, as stored, and whether the log is
/// settled (no numbered arrival is left above the watermark, so the next writer may take
/// numbers in its own transaction again).
#[derive(Debug, Default)]
pub struct Numbered {
    pub events: Vec<Stored>,
    pub settled: bool,
}

/// The head as a pass reads it.
#[derive(Debug, FromRow)]
struct PassHead {
    seq: i64,
    batched_through: i64,
    above: Vec<i64>,
    ticket_arrival: i64,
    ticket_xmax: i64,
}

/// Whether every transaction that could hold an arrival up to a ticket taken when
/// `ticket_xmax` was the next transaction id has ended, seen from a snapshot whose oldest
/// running id is `oldest_running` and next one `next_xid`. A ticket above this node's next id
/// was taken on another node: the workspace's tables moved (Citus), and a move waits for every
/// transaction writing them to end first.
fn ripe(oldest_running: i64, next_xid: i64, ticket_xmax: i64) -> bool {
    oldest_running >= ticket_xmax || next_xid < ticket_xmax
}

/// Where the watermark goes, what stays above it, and the next ticket, after a pass that was
/// given `got` (arrivals above the watermark not numbered yet, oldest first, at most
/// [`NUMBERING_BATCH`]). `ripe`: every transaction that could hold an arrival up to the
/// head's ticket has ended. `ticket`: the last arrival handed out and the first transaction
/// id not yet assigned, read in that order during this pass.
fn advance(
    head: &PassHead,
    got: &[i64],
    ripe: bool,
    ticket: (i64, i64),
) -> (i64, Vec<i64>, (i64, i64)) {
    let current = (head.ticket_arrival, head.ticket_xmax);
    let (watermark, ticket) = if ripe {
        // A full pass may have left arrivals up to the ticket for the next one: the
        // watermark stops at the last arrival it took.
        let full = got.len() as i64 >= NUMBERING_BATCH;
        let reach = match got.last() {
            Some(&last) if full => head.ticket_arrival.min(last),
            _ => head.ticket_arrival,
        };
        let watermark = head.batched_through.max(reach);
        let next = if watermark >= head.ticket_arrival {
            ticket
        } else {
            current
        };
        (watermark, next)
    } else {
        (head.batched_through, current)
    };
    let mut above: Vec<i64> = head
        .above
        .iter()
        .chain(got)
        .copied()
        .filter(|&arrival| arrival > watermark)
        .collect();
    above.sort_unstable();
    (watermark, above, ticket)
}

/// Numbers the workspace's events that wait for it, in arrival order, under the log's head,
/// and commits: one `event_batches` row a pass, the events' rows untouched. Several passes,
/// on any replicas, may run at once: they take turns on the head, and each numbers what the
/// one before left.
pub async fn number_waiting(db: &PgPool, schema: &TenantSchema) -> sqlx::Result<Numbered> {
    let mut numbered = Vec::new();
    loop {
        let mut tx = db.begin().await?;
        // The head first: every statement after it sees what the pass before this one
        // numbered (a statement's snapshot is taken when it starts). Locked by an `UPDATE`,
        // not `SELECT ... FOR UPDATE`: on Citus a write holds the shard's placement until the
        // transaction ends, so a move of the workspace's tables to another node cannot
        // switch nodes between the horizon read below and the rest of the pass.
        let head: PassHead = sqlx::query_as(schema.sql(
            "UPDATE {schema}.event_log_head SET seq = seq
             RETURNING seq, batched_through, above, ticket_arrival, ticket_xmax",
        ))
        .fetch_one(&mut *tx)
        .await?;
        // The next ticket: the last arrival handed out (where the sequence is: the
        // coordinator, on Citus), then the first transaction id not yet assigned where the
        // workspace's tables are. In this order: a writer takes its id before its arrival.
        let last_arrival: i64 = sqlx::query_scalar(
            schema.sql("SELECT coalesce(pg_sequence_last_value('{schema}.event_arrivals'), 0)"),
        )
        .fetch_one(&mut *tx)
        .await?;
        let (oldest_running, next_xid): (i64, i64) = sqlx::query_as(schema.sql(
            "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint,
                    pg_snapshot_xmax(pg_current_snapshot())::text::bigint
               FROM {schema}.event_log_head",
        ))
        .fetch_one(&mut *tx)
        .await?;
        let ripe = ripe(oldest_running, next_xid, head.ticket_xmax);
        // Read after the horizon: every transaction that took an arrival up to the ticket
        // and committed is seen here when `ripe`. Oldest first: the `n`-th gets seq
        // `head.seq + n`.
        let arrived: Vec<Arrived> = sqlx::query_as(schema.sql(
            "SELECT arrival, 0::bigint AS seq, id, type, occurred_at, actor_kind, actor_id, data
               FROM {schema}.events
              WHERE seq IS NULL AND arrival > $1 AND arrival <> ALL ($2)
              ORDER BY arrival LIMIT $3",
        ))
        .bind(head.batched_through)
        .bind(&head.above)
        .bind(NUMBERING_BATCH)
        .fetch_all(&mut *tx)
        .await?;
        let got: Vec<i64> = arrived.iter().map(|a| a.arrival).collect();
        let (watermark, above, ticket) = advance(&head, &got, ripe, (last_arrival, next_xid));
        if got.is_empty() && (!ripe || head.above.is_empty()) {
            tx.rollback().await?;
            return Ok(Numbered {
                events: numbered,
                settled: head.above.is_empty(),
            });
        }
        let count = got.len() as i64;
        if let Some(&max_arrival) = got.last() {
            sqlx::query(schema.sql(
                "INSERT INTO {schema}.event_batches (first_seq, arrivals, max_arrival)
                 VALUES ($1, $2, $3)",
            ))
            .bind(head.seq + 1)
            .bind(&got)
            .bind(max_arrival)
            .execute(&mut *tx)
            .await?;
        }
        let mut batch: Vec<Stored> = arrived
            .into_iter()
            .zip(1..)
            .map(|(Arrived { mut stored, .. }, n)| {
                stored.seq = head.seq + n;
                stored
            })
            .collect();
        sqlx::query(schema.sql(
            "UPDATE {schema}.event_log_head
                SET seq = seq + $1, batched_through = $2, above = $3,
                    ticket_arrival = $4, ticket_xmax = $5",
        ))
        .bind(count)
        .bind(watermark)
        .bind(&above)
        .bind(ticket.0)
        .bind(ticket.1)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        numbered.append(&mut batch);
        if count < NUMBERING_BATCH {
            return Ok(Numbered {
                events: numbered,
                settled: above.is_empty(),
            });
        }
    }
}

/// An event a pass numbered, with its arrival.
struct Arrived {
    arrival: i64,
    stored: Stored,
}

impl FromRow<'_, PgRow> for Arrived {
    fn from_row(row: &PgRow) -> sqlx::Result<Self> {
        Ok(Self {
            arrival: row.try_get("arrival")?,
            stored: Stored::from_row(row)?,
        })
    }
}

/// Whether any of the workspace's events waits to be numbered.
pub async fn any_waiting(db: &PgPool, schema: &TenantSchema) -> sqlx::Result<bool> {
    sqlx::query_scalar(schema.sql(concat!(
        "SELECT ",
        any_waiting!(),
        " FROM {schema}.event_log_head h"
    )))
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
        any_waiting!(),
        " AS waiting FROM {schema}.event_log_head h",
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
    // Seqs have no gaps: the page is the range after `after`, `limit` long.
    let mut upto = after.saturating_add(limit);
    if let Some(before) = before {
        upto = upto.min(before - 1);
    }
    sqlx::query_as(schema.sql(concat!(
        "SELECT seq, id, type, occurred_at, actor_kind, actor_id, data FROM ",
        supportdesk_core::numbered_events!(),
        " e ORDER BY seq"
    )))
    .bind(after)
    .bind(upto)
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
    // An event numbered by a batch is found from its arrival: its batch is the first one,
    // in the order of their newest arrivals, that holds it.
    sqlx::query_as(schema.sql(
        "SELECT * FROM (
             SELECT n.seq, e.id, e.type, e.occurred_at, e.actor_kind, e.actor_id, e.data
               FROM {schema}.events e
              CROSS JOIN LATERAL (SELECT coalesce(e.seq, (
                         SELECT b.first_seq + array_position(b.arrivals, e.arrival) - 1
                           FROM {schema}.event_batches b
                          WHERE b.max_arrival >= e.arrival AND e.arrival = ANY (b.arrivals)
                          ORDER BY b.max_arrival LIMIT 1)) AS seq) n
              WHERE e.conversation_id = $1 AND n.seq IS NOT NULL
              ORDER BY n.seq DESC LIMIT $2
         ) newest ORDER BY seq",
    ))
    .bind(conversation_id)
    .bind(limit)
    .fetch_all(conn)
    .await
}

#[cfg(test)]
mod tests {
    use super::{NUMBERING_BATCH, PassHead, advance, ripe};

    #[test]
    fn a_ticket_is_ripe_once_every_transaction_older_than_it_has_ended() {
        assert!(
            !ripe(90, 130, 100),
            "a transaction from before the ticket runs"
        );
        assert!(ripe(100, 130, 100));
        assert!(ripe(120, 130, 100));
        assert!(ripe(40, 60, 100), "taken on another node, before a move");
    }

    fn head(batched_through: i64, above: &[i64], ticket: (i64, i64)) -> PassHead {
        PassHead {
            seq: 0,
            batched_through,
            above: above.to_vec(),
            ticket_arrival: ticket.0,
            ticket_xmax: ticket.1,
        }
    }

    #[test]
    fn a_ripe_ticket_moves_the_watermark_to_it_and_takes_the_next() {
        let head = head(10, &[12, 15], (14, 100));
        let (watermark, above, ticket) = advance(&head, &[11, 16], true, (16, 120));
        assert_eq!(watermark, 14);
        assert_eq!(above, [15, 16]);
        assert_eq!(ticket, (16, 120));
    }

    #[test]
    fn an_unripe_ticket_keeps_the_watermark_and_lists_what_was_numbered_above_it() {
        let head = head(10, &[12], (14, 100));
        let (watermark, above, ticket) = advance(&head, &[13, 16], false, (16, 120));
        assert_eq!(watermark, 10);
        assert_eq!(above, [12, 13, 16]);
        assert_eq!(ticket, (14, 100));
    }

    #[test]
    fn a_full_pass_moves_the_watermark_no_further_than_what_it_took() {
        let got: Vec<i64> = (11..11 + NUMBERING_BATCH).collect();
        let last = *got.last().unwrap();
        let head = head(10, &[], (last + 500, 100));
        let (watermark, above, ticket) = advance(&head, &got, true, (last + 900, 120));
        assert_eq!(
            watermark, last,
            "arrivals after the batch, up to the ticket, still wait"
        );
        assert!(above.is_empty());
        assert_eq!(
            ticket,
            (last + 500, 100),
            "the ticket is kept until reached"
        );
    }

    #[test]
    fn the_watermark_never_moves_back() {
        let head = head(20, &[], (5, 100));
        let (watermark, _, _) = advance(&head, &[], true, (25, 120));
        assert_eq!(watermark, 20);
    }
}
