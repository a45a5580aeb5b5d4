//! One batch of a workspace's events folded into its report tables, with the reports' place
//! in the log moved in the same transaction (see `tenant_migrations/V24__reports.sql`).
//!
//! The definitions (docs/reports.md) live here:
//! - a conversation's *cycles*: its creation starts cycle 1, each reopening (a resolved
//!   conversation set open or pending, by an agent or by the customer writing again) the next;
//! - a cycle's *first response*: from its first incoming message to the first reply an agent
//!   wrote after it; notes, and replies no agent wrote (an API key's), are not responses;
//! - a cycle's *resolution*: from its start to the resolution that ends it, credited to the
//!   assignee at that moment (a reassignment moves the cycle, never counts it twice);
//! - a rating belongs to the cycle whose resolution it rates.

use jiff::Timestamp;
use sqlx::PgConnection;
use supportdesk_core::business_hours::Schedule;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use uuid::Uuid;

use super::events::{Conversation, Folded, Message, MessageKind, Rated};
use super::labels::{self, Counted};

/// Calendar and business seconds between two instants, whole, never negative.
fn durations(schedule: &Schedule, from: OffsetDateTime, to: OffsetDateTime) -> (i32, i32) {
    let calendar = (to - from).whole_seconds().max(0);
    let instant = |at: OffsetDateTime| Timestamp::from_nanosecond(at.unix_timestamp_nanos()).ok();
    let business = match (instant(from), instant(to)) {
        (Some(from), Some(to)) => schedule.business_seconds(from, to).max(0),
        _ => 0,
    };
    let fit = |seconds: i64| i32::try_from(seconds).unwrap_or(i32::MAX);
    (fit(calendar), fit(business))
}

/// The newest cycle of a conversation, as far as folding needs it.
#[derive(sqlx::FromRow)]
struct Cycle {
    cycle: i32,
    channel: String,
    started_at: OffsetDateTime,
    first_incoming_at: Option<OffsetDateTime>,
    first_response_at: Option<OffsetDateTime>,
    resolved_at: Option<OffsetDateTime>,
    labels: Vec<Uuid>,
}

async fn newest_cycle(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation: Uuid,
) -> sqlx::Result<Option<Cycle>> {
    sqlx::query_as(schema.sql(
        "SELECT cycle, channel, started_at, first_incoming_at, first_response_at, resolved_at,
                labels
           FROM {schema}.report_cycles WHERE conversation_id = $1
          ORDER BY cycle DESC LIMIT 1",
    ))
    .bind(conversation)
    .fetch_optional(conn)
    .await
}

async fn start_cycle(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation: &Conversation,
    cycle: i32,
    started_at: OffsetDateTime,
) -> sqlx::Result<()> {
    let started = sqlx::query(schema.sql(
        "INSERT INTO {schema}.report_cycles
                (conversation_id, cycle, channel, started_at, assignee_id, labels)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (conversation_id, cycle) DO NOTHING",
    ))
    .bind(conversation.id)
    .bind(cycle)
    .bind(&conversation.channel)
    .bind(started_at)
    .bind(conversation.assignee_id)
    .bind(conversation.label_ids())
    .execute(&mut *conn)
    .await?;
    if started.rows_affected() == 1 {
        let fact = if cycle == 1 {
            Fact::Created
        } else {
            Fact::Reopened
        };
        let counted = Counted {
            at: started_at,
            channel: &conversation.channel,
            agent: None,
        };
        count(conn, schema, &fact, counted, &conversation.label_ids()).await?;
    }
    Ok(())
}

/// What a cycle adds to its hour's rollups.
pub(super) enum Fact {
    Created,
    Reopened,
    Incoming,
    Responded {
        seconds: i32,
        business: i32,
    },
    Resolved {
        seconds: i32,
        business: i32,
    },
    /// 1 to 5.
    Rated(i16),
}

/// The columns of [`Fact`] as one row to add: counts, the ratings (1 first), and the
/// durations (calendar, business) of a response and of a resolution.
pub(super) struct Added {
    pub counts: [i32; 4],
    pub ratings: Vec<i32>,
    pub response: (Vec<i32>, Vec<i32>),
    pub resolution: (Vec<i32>, Vec<i32>),
}

impl Fact {
    pub(super) fn added(&self) -> Added {
        let mut added = Added {
            counts: [0; 4],
            ratings: vec![0; 5],
            response: (vec![], vec![]),
            resolution: (vec![], vec![]),
        };
        match *self {
            Self::Created => added.counts[0] = 1,
            Self::Reopened => added.counts[1] = 1,
            Self::Incoming => added.counts[3] = 1,
            Self::Responded { seconds, business } => {
                added.response = (vec![seconds], vec![business]);
            }
            Self::Resolved { seconds, business } => {
                added.counts[2] = 1;
                added.resolution = (vec![seconds], vec![business]);
            }
            Self::Rated(rating) => {
                if let Some(slot) = usize::try_from(rating - 1).ok().filter(|r| *r < 5) {
                    added.ratings[slot] = 1;
                }
            }
        }
        added
    }
}

/// Adds `fact` to its UTC hour and channel.
async fn hour(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    at: OffsetDateTime,
    channel: &str,
    fact: &Fact,
) -> sqlx::Result<()> {
    let Added {
        counts,
        ratings,
        response,
        resolution,
    } = fact.added();
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.report_hours AS h
                (hour, channel, created, reopened, resolved, incoming, ratings,
                 response_seconds, response_business_seconds,
                 resolution_seconds, resolution_business_seconds)
         VALUES (date_trunc('hour', $1::timestamptz, 'UTC'), $2, $3, $4, $5, $6, $7,
                 $8, $9, $10, $11)
         ON CONFLICT (hour, channel) DO UPDATE SET
                created = h.created + EXCLUDED.created,
                reopened = h.reopened + EXCLUDED.reopened,
                resolved = h.resolved + EXCLUDED.resolved,
                incoming = h.incoming + EXCLUDED.incoming,
                ratings = ARRAY[h.ratings[1] + EXCLUDED.ratings[1], h.ratings[2] + EXCLUDED.ratings[2],
                                 h.ratings[3] + EXCLUDED.ratings[3], h.ratings[4] + EXCLUDED.ratings[4],
                                 h.ratings[5] + EXCLUDED.ratings[5]],
                response_seconds = h.response_seconds || EXCLUDED.response_seconds,
                response_business_seconds =
                    h.response_business_seconds || EXCLUDED.response_business_seconds,
                resolution_seconds = h.resolution_seconds || EXCLUDED.resolution_seconds,
                resolution_business_seconds =
                    h.resolution_business_seconds || EXCLUDED.resolution_business_seconds",
    ))
    .bind(at)
    .bind(channel)
    .bind(counts[0])
    .bind(counts[1])
    .bind(counts[2])
    .bind(counts[3])
    .bind(ratings)
    .bind(response.0)
    .bind(response.1)
    .bind(resolution.0)
    .bind(resolution.1)
    .execute(conn)
    .await?;
    Ok(())
}

/// Adds `fact` to its UTC hour and to its UTC day, for the agent it is credited to.
async fn agent_hour(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    at: OffsetDateTime,
    agent: Uuid,
    fact: &Fact,
) -> sqlx::Result<()> {
    let Added {
        ratings,
        response,
        resolution,
        ..
    } = fact.added();
    for (table, key, grain) in [
        ("report_agent_hours", "hour", "hour"),
        ("report_agent_days", "day", "day"),
    ] {
        sqlx::query(schema.sql(&format!(
            "INSERT INTO {{schema}}.{table} AS h
                    ({key}, agent_id, ratings, response_seconds, response_business_seconds,
                     resolution_seconds, resolution_business_seconds)
             VALUES (date_trunc('{grain}', $1::timestamptz, 'UTC'), $2, $3, $4, $5, $6, $7)
             ON CONFLICT ({key}, agent_id) DO UPDATE SET
                    ratings = ARRAY[h.ratings[1] + EXCLUDED.ratings[1],
                                    h.ratings[2] + EXCLUDED.ratings[2],
                                    h.ratings[3] + EXCLUDED.ratings[3],
                                    h.ratings[4] + EXCLUDED.ratings[4],
                                    h.ratings[5] + EXCLUDED.ratings[5]],
                    response_seconds = h.response_seconds || EXCLUDED.response_seconds,
                    response_business_seconds =
                        h.response_business_seconds || EXCLUDED.response_business_seconds,
                    resolution_seconds = h.resolution_seconds || EXCLUDED.resolution_seconds,
                    resolution_business_seconds =
                        h.resolution_business_seconds || EXCLUDED.resolution_business_seconds"
        )))
        .bind(at)
        .bind(agent)
        .bind(&ratings)
        .bind(&response.0)
        .bind(&response.1)
        .bind(&resolution.0)
        .bind(&resolution.1)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Adds a fact its cycle has just recorded to every rollup it belongs in: its hour and
/// channel, the agent it is credited to, and the cycle's labels.
async fn count(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    fact: &Fact,
    counted: Counted<'_>,
    labels: &[Uuid],
) -> sqlx::Result<()> {
    hour(conn, schema, counted.at, counted.channel, fact).await?;
    if let Some(agent) = counted.agent {
        agent_hour(conn, schema, counted.at, agent, fact).await?;
    }
    labels::add(conn, schema, fact, counted, labels).await
}

/// Folds one event. Events about conversations the reports never saw created (before they
/// began, or pruned before they were read) start counting from what they show.
pub async fn fold(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    schedule: &Schedule,
    event: Folded,
) -> sqlx::Result<()> {
    match event {
        Folded::ConversationCreated(conversation) => {
            start_cycle(conn, schema, &conversation, 1, conversation.created_at).await
        }
        Folded::ConversationUpdated(conversation) => {
            updated(conn, schema, schedule, conversation).await
        }
        Folded::MessageCreated(message) => message_created(conn, schema, schedule, message).await,
        Folded::ConversationRated(rated) => rated_resolution(conn, schema, rated).await,
        Folded::Other => Ok(()),
    }
}

async fn updated(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    schedule: &Schedule,
    conversation: Conversation,
) -> sqlx::Result<()> {
    let newest = match newest_cycle(conn, schema, conversation.id).await? {
        Some(cycle) => cycle,
        None => {
            start_cycle(conn, schema, &conversation, 1, conversation.created_at).await?;
            let Some(cycle) = newest_cycle(conn, schema, conversation.id).await? else {
                return Ok(());
            };
            cycle
        }
    };
    // Labels belong to the conversation: every cycle follows them, with its facts.
    let labels = conversation.label_ids();
    labels::relabel(conn, schema, conversation.id, &labels).await?;
    match (conversation.resolution(), newest.resolved_at) {
        // Resolved: the cycle ends, credited to the assignee now.
        (Some(resolved_at), None) => {
            let (seconds, business) = durations(schedule, newest.started_at, resolved_at);
            let resolved = sqlx::query(schema.sql(
                "UPDATE {schema}.report_cycles
                    SET resolved_at = $3, resolution_seconds = $4,
                        resolution_business_seconds = $5, assignee_id = $6
                  WHERE conversation_id = $1 AND cycle = $2 AND resolved_at IS NULL",
            ))
            .bind(conversation.id)
            .bind(newest.cycle)
            .bind(resolved_at)
            .bind(seconds)
            .bind(business)
            .bind(conversation.assignee_id)
            .execute(&mut *conn)
            .await?;
            if resolved.rows_affected() == 1 {
                let fact = Fact::Resolved { seconds, business };
                let counted = Counted {
                    at: resolved_at,
                    channel: &newest.channel,
                    agent: conversation.assignee_id,
                };
                count(conn, schema, &fact, counted, &labels).await?;
            }
        }
        // Reopened: a new cycle from now.
        (None, Some(_)) => {
            start_cycle(
                conn,
                schema,
                &conversation,
                newest.cycle + 1,
                conversation.updated_at,
            )
            .await?;
        }
        // Still open (a reassignment, a priority), or a resolution resolved again.
        (None, None) => {
            sqlx::query(schema.sql(
                "UPDATE {schema}.report_cycles SET assignee_id = $3
                  WHERE conversation_id = $1 AND cycle = $2
                    AND assignee_id IS DISTINCT FROM $3",
            ))
            .bind(conversation.id)
            .bind(newest.cycle)
            .bind(conversation.assignee_id)
            .execute(&mut *conn)
            .await?;
        }
        (Some(_), Some(_)) => {}
    }
    Ok(())
}

async fn message_created(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    schedule: &Schedule,
    message: Message,
) -> sqlx::Result<()> {
    let Some(newest) = newest_cycle(conn, schema, message.conversation_id).await? else {
        return Ok(());
    };
    let open = newest.resolved_at.is_none();
    match message.kind {
        MessageKind::Incoming => {
            hour(
                conn,
                schema,
                message.created_at,
                &newest.channel,
                &Fact::Incoming,
            )
            .await?;
            if open && newest.first_incoming_at.is_none() {
                sqlx::query(schema.sql(
                    "UPDATE {schema}.report_cycles SET first_incoming_at = $3
                      WHERE conversation_id = $1 AND cycle = $2",
                ))
                .bind(message.conversation_id)
                .bind(newest.cycle)
                .bind(message.created_at)
                .execute(&mut *conn)
                .await?;
            }
        }
        MessageKind::Outgoing => {
            let (Some(agent), Some(asked), None, true) = (
                message.author_agent_id,
                newest.first_incoming_at,
                newest.first_response_at,
                open,
            ) else {
                return Ok(());
            };
            let (seconds, business) = durations(schedule, asked, message.created_at);
            let answered = sqlx::query(schema.sql(
                "UPDATE {schema}.report_cycles
                    SET first_response_at = $3, responder_id = $4, response_seconds = $5,
                        response_business_seconds = $6
                  WHERE conversation_id = $1 AND cycle = $2 AND first_response_at IS NULL",
            ))
            .bind(message.conversation_id)
            .bind(newest.cycle)
            .bind(message.created_at)
            .bind(agent)
            .bind(seconds)
            .bind(business)
            .execute(&mut *conn)
            .await?;
            if answered.rows_affected() == 1 {
                let fact = Fact::Responded { seconds, business };
                let counted = Counted {
                    at: message.created_at,
                    channel: &newest.channel,
                    agent: Some(agent),
                };
                count(conn, schema, &fact, counted, &newest.labels).await?;
            }
        }
        MessageKind::Note => {}
    }
    Ok(())
}

async fn rated_resolution(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    rated: Rated,
) -> sqlx::Result<()> {
    // A comment added later logs the rating again, with its id: it finds the rating recorded.
    let recorded: Option<(String, Option<Uuid>, Vec<Uuid>)> = sqlx::query_as(schema.sql(
        "UPDATE {schema}.report_cycles SET rating_id = $3, rating = $4, rated_at = $5
          WHERE conversation_id = $1 AND resolved_at = $2 AND rating_id IS DISTINCT FROM $3
         RETURNING channel, assignee_id, labels",
    ))
    .bind(rated.conversation_id)
    .bind(rated.rating.resolved_at)
    .bind(rated.rating.id)
    .bind(rated.rating.rating)
    .bind(rated.rating.created_at)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some((channel, assignee, labels)) = recorded {
        let fact = Fact::Rated(rated.rating.rating);
        let counted = Counted {
            at: rated.rating.created_at,
            channel: &channel,
            agent: assignee,
        };
        count(conn, schema, &fact, counted, &labels).await?;
    }
    Ok(())
}
