//! The label rollups (`tenant_migrations/V25__report_label_rollups.sql`): a cycle's facts
//! counted under each label its conversation carries, per hour and channel, and per hour and
//! day and agent credited, so a report filtered by a label reads that label's hours.
//!
//! Labels change after the facts: a conversation is often labelled once it has been answered.
//! So when its labels change, every fact its cycles recorded moves from the labels taken off
//! to the labels put on (`relabel`), in the batch's transaction. A fact is removed as it was
//! added: its counts subtracted, one occurrence of each of its durations taken out.
//!
//! `build` makes the same rows from `report_cycles` in one statement per table: for cycles
//! folded before these tables existed, and as the definition the fold is tested against.

use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use uuid::Uuid;

use super::fold::{Added, Fact};

/// Adding a fact to a label's rows, or taking it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Add,
    Remove,
}

/// One label rollup: its table, its time grain (also its column), and the column of its other
/// dimension with that column's type. Tables with `counts` keep created, reopened and resolved.
struct Rollup {
    table: &'static str,
    grain: &'static str,
    key: &'static str,
    key_type: &'static str,
    counts: bool,
}

const HOURS: Rollup = Rollup {
    table: "report_label_hours",
    grain: "hour",
    key: "channel",
    key_type: "text",
    counts: true,
};
const AGENT_HOURS: Rollup = Rollup {
    table: "report_label_agent_hours",
    grain: "hour",
    key: "agent_id",
    key_type: "uuid",
    counts: false,
};
const AGENT_DAYS: Rollup = Rollup {
    table: "report_label_agent_days",
    grain: "day",
    key: "agent_id",
    key_type: "uuid",
    counts: false,
};

const COUNTS: [&str; 3] = ["created", "reopened", "resolved"];
const DURATIONS: [&str; 4] = [
    "response_seconds",
    "response_business_seconds",
    "resolution_seconds",
    "resolution_business_seconds",
];

impl Rollup {
    /// The statement that applies `change` to the rows of labels `$3` for the fact at `$1`
    /// whose other dimension is `$2`; then the counts (if kept), the ratings and the four
    /// durations, in [`Added`]'s order.
    fn statement(&self, change: Change) -> String {
        let Rollup {
            table,
            grain,
            key,
            key_type,
            counts,
        } = self;
        let counts: &[&str] = if *counts { &COUNTS } else { &[] };
        let ratings = 4 + counts.len();
        // The fact's `i`th duration (an array of none or one).
        let duration = |i: usize| format!("${}", ratings + 1 + i);
        match change {
            Change::Add => {
                let columns: Vec<&str> = counts
                    .iter()
                    .chain(["ratings"].iter())
                    .chain(DURATIONS.iter())
                    .copied()
                    .collect();
                let values: Vec<String> = (4..4 + columns.len()).map(|i| format!("${i}")).collect();
                let mut sets: Vec<String> = counts
                    .iter()
                    .map(|c| format!("{c} = h.{c} + EXCLUDED.{c}"))
                    .collect();
                sets.push(format!(
                    "ratings = ARRAY[{}]",
                    (1..=5)
                        .map(|r| format!("h.ratings[{r}] + EXCLUDED.ratings[{r}]"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                sets.extend(
                    DURATIONS
                        .iter()
                        .map(|d| format!("{d} = h.{d} || EXCLUDED.{d}")),
                );
                format!(
                    "INSERT INTO {{schema}}.{table} AS h (label_id, {grain}, {key}, {columns})
                     SELECT l, date_trunc('{grain}', $1::timestamptz, 'UTC'), $2::{key_type},
                            {values}
                       FROM unnest($3::uuid[]) l
                     ON CONFLICT (label_id, {grain}, {key}) DO UPDATE SET {sets}",
                    columns = columns.join(", "),
                    values = values.join(", "),
                    sets = sets.join(", "),
                )
            }
            Change::Remove => {
                let mut sets: Vec<String> = counts
                    .iter()
                    .enumerate()
                    .map(|(i, c)| format!("{c} = {c} - ${}", 4 + i))
                    .collect();
                sets.push(format!(
                    "ratings = ARRAY[{}]",
                    (1..=5)
                        .map(|r| format!("ratings[{r}] - (${ratings}::int[])[{r}]"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                // Its duration taken out once (the first occurrence of that value).
                sets.extend(DURATIONS.iter().enumerate().map(|(i, d)| {
                    format!(
                        "{d} = (SELECT coalesce(array_agg(v ORDER BY n), '{{}}')
                                  FROM unnest({d}) WITH ORDINALITY u(v, n)
                                 WHERE n IS DISTINCT FROM
                                       array_position({d}, ({p}::int[])[1]))",
                        p = duration(i)
                    )
                }));
                format!(
                    "UPDATE {{schema}}.{table} SET {sets}
                      WHERE label_id = ANY($3::uuid[])
                        AND {grain} = date_trunc('{grain}', $1::timestamptz, 'UTC')
                        AND {key} = $2::{key_type}",
                    sets = sets.join(", "),
                )
            }
        }
    }
}

/// Where a fact is counted: when it happened, its cycle's channel, and the agent it is
/// credited to.
#[derive(Debug, Clone, Copy)]
pub(super) struct Counted<'a> {
    pub at: OffsetDateTime,
    pub channel: &'a str,
    pub agent: Option<Uuid>,
}

/// Applies `change` of `fact` to `labels`' rows.
async fn apply(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    change: Change,
    fact: &Fact,
    counted: Counted<'_>,
    labels: &[Uuid],
) -> sqlx::Result<()> {
    let Counted { at, channel, agent } = counted;
    if labels.is_empty() {
        return Ok(());
    }
    let Added {
        counts,
        ratings,
        response,
        resolution,
    } = fact.added();
    let durations = [&response.0, &response.1, &resolution.0, &resolution.1];
    let mut hours = sqlx::query(schema.sql(&HOURS.statement(change)))
        .bind(at)
        .bind(channel)
        .bind(labels)
        .bind(counts[0])
        .bind(counts[1])
        .bind(counts[2])
        .bind(&ratings);
    for values in durations {
        hours = hours.bind(values);
    }
    hours.execute(&mut *conn).await?;
    // Created and reopened are nobody's; a fact credited to nobody has no agent rows.
    let Some(agent) = agent.filter(|_| !matches!(fact, Fact::Created | Fact::Reopened)) else {
        return Ok(());
    };
    for rollup in [&AGENT_HOURS, &AGENT_DAYS] {
        let mut query = sqlx::query(schema.sql(&rollup.statement(change)))
            .bind(at)
            .bind(agent)
            .bind(labels)
            .bind(&ratings);
        for values in durations {
            query = query.bind(values);
        }
        query.execute(&mut *conn).await?;
    }
    Ok(())
}

/// Adds a fact its cycle has just recorded to the rows of the cycle's labels.
pub(super) async fn add(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    fact: &Fact,
    counted: Counted<'_>,
    labels: &[Uuid],
) -> sqlx::Result<()> {
    apply(conn, schema, Change::Add, fact, counted, labels).await
}

/// A cycle with the facts it recorded and the labels they are counted under.
#[derive(sqlx::FromRow)]
struct Recorded {
    cycle: i32,
    channel: String,
    labels: Vec<Uuid>,
    started_at: OffsetDateTime,
    assignee_id: Option<Uuid>,
    first_response_at: Option<OffsetDateTime>,
    responder_id: Option<Uuid>,
    response_seconds: Option<i32>,
    response_business_seconds: Option<i32>,
    resolved_at: Option<OffsetDateTime>,
    resolution_seconds: Option<i32>,
    resolution_business_seconds: Option<i32>,
    rating: Option<i16>,
    rated_at: Option<OffsetDateTime>,
}

impl Recorded {
    /// Each fact, when it happened and whom it is credited to, as the fold counted them.
    fn facts(&self) -> Vec<(Fact, OffsetDateTime, Option<Uuid>)> {
        let started = if self.cycle == 1 {
            Fact::Created
        } else {
            Fact::Reopened
        };
        let mut facts = vec![(started, self.started_at, None)];
        if let (Some(at), Some(seconds), Some(business)) = (
            self.first_response_at,
            self.response_seconds,
            self.response_business_seconds,
        ) {
            let fact = Fact::Responded { seconds, business };
            facts.push((fact, at, self.responder_id));
        }
        if let (Some(at), Some(seconds), Some(business)) = (
            self.resolved_at,
            self.resolution_seconds,
            self.resolution_business_seconds,
        ) {
            let fact = Fact::Resolved { seconds, business };
            facts.push((fact, at, self.assignee_id));
        }
        if let (Some(at), Some(rating)) = (self.rated_at, self.rating) {
            facts.push((Fact::Rated(rating), at, self.assignee_id));
        }
        facts
    }
}

/// Gives every cycle of `conversation` the labels `labels` (sorted), moving the facts each
/// recorded from the labels taken off to the labels put on.
pub(super) async fn relabel(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    conversation: Uuid,
    labels: &[Uuid],
) -> sqlx::Result<()> {
    let cycles: Vec<Recorded> = sqlx::query_as(schema.sql(
        "UPDATE {schema}.report_cycles c SET labels = $2
           FROM {schema}.report_cycles before
          WHERE c.conversation_id = $1 AND c.labels <> $2
            AND before.conversation_id = c.conversation_id AND before.cycle = c.cycle
         RETURNING c.cycle, c.channel, before.labels, c.started_at, c.assignee_id,
                   c.first_response_at, c.responder_id, c.response_seconds,
                   c.response_business_seconds, c.resolved_at, c.resolution_seconds,
                   c.resolution_business_seconds, c.rating, c.rated_at",
    ))
    .bind(conversation)
    .bind(labels)
    .fetch_all(&mut *conn)
    .await?;
    for cycle in cycles {
        let taken_off: Vec<Uuid> = cycle
            .labels
            .iter()
            .filter(|l| !labels.contains(l))
            .copied()
            .collect();
        let put_on: Vec<Uuid> = labels
            .iter()
            .filter(|l| !cycle.labels.contains(l))
            .copied()
            .collect();
        for (fact, at, agent) in cycle.facts() {
            let counted = Counted {
                at,
                channel: &cycle.channel,
                agent,
            };
            apply(conn, schema, Change::Remove, &fact, counted, &taken_off).await?;
            apply(conn, schema, Change::Add, &fact, counted, &put_on).await?;
        }
    }
    Ok(())
}

/// Every labelled cycle's facts, one row each: the hour, the label, the channel, the agent
/// credited (none for a start), the counts, a rating, and a duration of each kind.
const LABELLED_FACTS: &str = "
    SELECT date_trunc('hour', started_at, 'UTC') AS hour, l AS label_id, channel,
           NULL::uuid AS agent, (cycle = 1)::int AS created, (cycle > 1)::int AS reopened,
           0 AS resolved, NULL::int AS rs, NULL::int AS rb, NULL::int AS ls, NULL::int AS lb,
           NULL::int AS rating
      FROM {schema}.report_cycles, unnest(labels) l
    UNION ALL
    SELECT date_trunc('hour', first_response_at, 'UTC'), l, channel, responder_id, 0, 0, 0,
           response_seconds, response_business_seconds, NULL, NULL, NULL
      FROM {schema}.report_cycles, unnest(labels) l WHERE first_response_at IS NOT NULL
    UNION ALL
    SELECT date_trunc('hour', resolved_at, 'UTC'), l, channel, assignee_id, 0, 0, 1,
           NULL, NULL, resolution_seconds, resolution_business_seconds, NULL
      FROM {schema}.report_cycles, unnest(labels) l WHERE resolved_at IS NOT NULL
    UNION ALL
    SELECT date_trunc('hour', rated_at, 'UTC'), l, channel, assignee_id, 0, 0, 0,
           NULL, NULL, NULL, NULL, rating
      FROM {schema}.report_cycles, unnest(labels) l WHERE rating IS NOT NULL";

/// The ratings and durations of a group of [`LABELLED_FACTS`], named as the rollups' columns.
const ROLLED: &str = "
    ARRAY[count(*) FILTER (WHERE rating = 1), count(*) FILTER (WHERE rating = 2),
          count(*) FILTER (WHERE rating = 3), count(*) FILTER (WHERE rating = 4),
          count(*) FILTER (WHERE rating = 5)]::int[] AS ratings,
    coalesce(array_agg(rs) FILTER (WHERE rs IS NOT NULL), '{}') AS response_seconds,
    coalesce(array_agg(rb) FILTER (WHERE rb IS NOT NULL), '{}') AS response_business_seconds,
    coalesce(array_agg(ls) FILTER (WHERE ls IS NOT NULL), '{}') AS resolution_seconds,
    coalesce(array_agg(lb) FILTER (WHERE lb IS NOT NULL), '{}') AS resolution_business_seconds";

/// Rows written per statement while building.
const BUILT_PER_STATEMENT: usize = 2_000;

/// Rebuilds the label rollups from `report_cycles`: what the fold leaves them holding.
///
/// Each table's rows are read, then written as JSON records, rather than in one
/// `INSERT ... SELECT`: Citus 13.2 deparses an `INSERT ... SELECT` from a schema's table into
/// another of its tables with a filter on a distribution column that single-shard tables do
/// not have (`WHERE ( IS NOT NULL)`).
pub async fn build(conn: &mut PgConnection, schema: &TenantSchema) -> sqlx::Result<()> {
    let grouped = [
        (
            &HOURS,
            format!(
                "SELECT label_id, hour, channel, sum(created)::int AS created,
                        sum(reopened)::int AS reopened, sum(resolved)::int AS resolved, {ROLLED}
                   FROM ({LABELLED_FACTS}) f GROUP BY label_id, hour, channel"
            ),
        ),
        (
            &AGENT_HOURS,
            format!(
                "SELECT label_id, hour, agent AS agent_id, {ROLLED}
                   FROM ({LABELLED_FACTS}) f WHERE agent IS NOT NULL AND created + reopened = 0
                  GROUP BY label_id, hour, agent"
            ),
        ),
        (
            &AGENT_DAYS,
            format!(
                "SELECT label_id, date_trunc('day', hour, 'UTC') AS day, agent AS agent_id,
                        {ROLLED}
                   FROM ({LABELLED_FACTS}) f WHERE agent IS NOT NULL AND created + reopened = 0
                  GROUP BY 1, 2, 3"
            ),
        ),
    ];
    for (rollup, select) in grouped {
        let table = rollup.table;
        sqlx::query(schema.sql(&format!("DELETE FROM {{schema}}.{table}")))
            .execute(&mut *conn)
            .await?;
        let rows: Vec<String> = sqlx::query_scalar(
            schema.sql(&format!("SELECT row_to_json(g)::text FROM ({select}) g")),
        )
        .fetch_all(&mut *conn)
        .await?;
        for chunk in rows.chunks(BUILT_PER_STATEMENT) {
            sqlx::query(schema.sql(&format!(
                "INSERT INTO {{schema}}.{table}
                 SELECT * FROM json_populate_recordset(NULL::{{schema}}.{table}, $1::json)"
            )))
            .bind(format!("[{}]", chunk.join(",")))
            .execute(&mut *conn)
            .await?;
        }
    }
    sqlx::query(schema.sql("UPDATE {schema}.report_cursor SET label_rollups_built = true"))
        .execute(conn)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_statement_numbers_its_parameters_in_the_order_they_are_bound() {
        // Hours: $1 at, $2 channel, $3 labels, $4-$6 counts, $7 ratings, $8-$11 durations.
        let hours = HOURS.statement(Change::Remove);
        assert!(hours.contains("resolved = resolved - $6"), "{hours}");
        assert!(hours.contains("($7::int[])[5]"), "{hours}");
        assert!(hours.contains("($11::int[])[1]"), "{hours}");
        assert!(!hours.contains("$12"), "{hours}");
        let add = HOURS.statement(Change::Add);
        assert!(add.contains("$4, $5, $6, $7, $8, $9, $10, $11"), "{add}");
        // Agents: $4 ratings, $5-$8 durations.
        let agents = AGENT_DAYS.statement(Change::Remove);
        assert!(agents.contains("($4::int[])[1]"), "{agents}");
        assert!(agents.contains("($8::int[])[1]"), "{agents}");
        assert!(!agents.contains("$9"), "{agents}");
        assert!(
            AGENT_DAYS
                .statement(Change::Add)
                .contains("$4, $5, $6, $7, $8")
        );
    }
}
