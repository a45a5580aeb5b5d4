//! The reports' SQL, over the tables the worker folds from the event log: never over
//! conversations or messages.
//!
//! Two ways to the same figures. The hourly rollups (`report_hours` per channel,
//! `report_agent_hours` per agent, and the same per label: `report_label_hours`, ...) serve a
//! report whose periods start on whole UTC hours and whose filters are their dimensions: a
//! year is 8 760 rows a channel, folded into periods here, with exact medians and p90s from
//! the durations each hour keeps (`percentile_cont`'s definition, `percentile`). Otherwise
//! (an agent filter on the volume, an agent and a channel together, a zone off UTC by a half
//! hour) a statement reads one range index of `report_cycles` and cuts
//! it into periods with `width_bucket` over the bounds `range::Periods` computed in the
//! workspace's zone; `GROUPING SETS` gives the whole range's figure from the same scan.

use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use uuid::Uuid;

use super::range::Periods;
use crate::conversations::record::Channel;

/// Which cycles a report counts, besides its range.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    pub agent: Option<Uuid>,
    pub channel: Option<Channel>,
    pub label: Option<Uuid>,
    /// Times count business hours only.
    pub business_hours: bool,
}

/// The filters of a `report_cycles` scan: `$2` channel, `$3` label, `$4` the agent (compared
/// with `agent`, the column that credits an agent for this figure). A filter not asked for is
/// written as its parameter being null, not as `$n IS NULL OR ...`, so the plan of an agent's
/// figures walks the agent's index.
fn filtered(agent: &str, filters: &Filters) -> String {
    let channel = if filters.channel.is_some() {
        "channel = $2"
    } else {
        "$2::text IS NULL"
    };
    let label = if filters.label.is_some() {
        "labels @> ARRAY[$3::uuid]"
    } else {
        "$3::uuid IS NULL"
    };
    let agent = if filters.agent.is_some() {
        format!("{agent} = $4")
    } else {
        "$4::uuid IS NULL".to_owned()
    };
    format!("{channel} AND {label} AND {agent}")
}

/// A duration figure: how many, their median and 90th percentile (whole seconds).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Durations {
    pub count: i64,
    pub median: Option<i64>,
    pub p90: Option<i64>,
}

/// The columns of one duration figure.
pub struct Measure {
    /// When it happened (its period).
    at: &'static str,
    seconds: &'static str,
    business_seconds: &'static str,
    /// The agent it is credited to.
    agent: &'static str,
}

/// First responses: credited to the agent who replied, in the period of the reply.
pub const FIRST_RESPONSE: Measure = Measure {
    at: "first_response_at",
    seconds: "response_seconds",
    business_seconds: "response_business_seconds",
    agent: "responder_id",
};

/// Resolutions: credited to the assignee at the resolution, in its period.
pub const RESOLUTION: Measure = Measure {
    at: "resolved_at",
    seconds: "resolution_seconds",
    business_seconds: "resolution_business_seconds",
    agent: "assignee_id",
};

fn whole(seconds: Option<f64>) -> Option<i64> {
    seconds.map(|s| s.round() as i64)
}

/// The continuous percentile `p` of values in any order, as PostgreSQL's `percentile_cont`
/// computes it (interpolating between the two nearest values); `None` without values.
/// Selects the two values rather than sorting them all (a year's first responses are a
/// million values): reorders `values`.
pub fn percentile(values: &mut [i32], p: f64) -> Option<f64> {
    let last = values.len().checked_sub(1)?;
    let position = p.clamp(0.0, 1.0) * last as f64;
    let below = (position.floor() as usize).min(last);
    let (_, low, greater) = values.select_nth_unstable(below);
    let low = f64::from(*low);
    let fraction = position - below as f64;
    let high = match greater.iter().min() {
        Some(&next) if fraction > 0.0 => f64::from(next),
        _ => low,
    };
    Some(low + (high - low) * fraction)
}

/// Median and p90 of values in any order.
fn summarised(mut values: Vec<i32>) -> Durations {
    Durations {
        count: values.len() as i64,
        median: whole(percentile(&mut values, 0.5)),
        p90: whole(percentile(&mut values, 0.9)),
    }
}

/// An hourly rollup that holds a report's figures, and its rows' conditions on `$3` the
/// channel, `$4` the label and `$5` the agent.
struct HoursRollup {
    table: &'static str,
    conditions: String,
}

/// The hourly rollup whose dimensions are `filters`' over `periods`: per channel, per label
/// and channel, per agent, or per label and agent; `None` when only the cycles answer. The
/// volume's counts (`counts`) are kept per channel only, not per agent (whose figures are
/// what was credited to them: responses, resolutions, ratings).
fn hours_rollup(periods: &Periods, filters: &Filters, counts: bool) -> Option<HoursRollup> {
    if !periods.on_whole_hours() {
        return None;
    }
    let by_agent = filters.agent.is_some();
    if by_agent && (counts || filters.channel.is_some()) {
        return None;
    }
    let table = match (by_agent, filters.label.is_some()) {
        (false, false) => "report_hours",
        (false, true) => "report_label_hours",
        (true, false) => "report_agent_hours",
        (true, true) => "report_label_agent_hours",
    };
    let channel = if by_agent {
        "$3::text IS NULL"
    } else {
        "($3::text IS NULL OR channel = $3)"
    };
    let label = if filters.label.is_some() {
        "label_id = $4"
    } else {
        "$4::uuid IS NULL"
    };
    let agent = if by_agent {
        "agent_id = $5"
    } else {
        "$5::uuid IS NULL"
    };
    Some(HoursRollup {
        table,
        conditions: format!("{channel} AND {label} AND {agent}"),
    })
}

/// `rollup` if it can answer: a label's only once the label rollups hold every folded cycle
/// (the first fold after their migration builds them).
async fn ready<T>(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    filters: &Filters,
    rollup: Option<T>,
) -> sqlx::Result<Option<T>> {
    if rollup.is_none() || filters.label.is_none() {
        return Ok(rollup);
    }
    let built: bool =
        sqlx::query_scalar(schema.sql("SELECT label_rollups_built FROM {schema}.report_cursor"))
            .fetch_one(conn)
            .await?;
    Ok(rollup.filter(|_| built))
}

/// As [`durations_from_cycles`], from an hourly rollup (see [`hours_rollup`]).
async fn durations_from_hours(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    periods: &Periods,
    filters: &Filters,
    measure: &Measure,
    rollup: &HoursRollup,
) -> sqlx::Result<(Vec<Durations>, Durations)> {
    let column = if filters.business_hours {
        measure.business_seconds
    } else {
        measure.seconds
    };
    let HoursRollup { table, conditions } = rollup;
    let rows: Vec<(OffsetDateTime, Vec<i32>)> = sqlx::query_as(schema.sql(&format!(
        "SELECT hour, {column} FROM {{schema}}.{table}
          WHERE hour >= $1 AND hour < $2 AND {conditions} AND cardinality({column}) > 0"
    )))
    .bind(periods.start())
    .bind(periods.end())
    .bind(filters.channel)
    .bind(filters.label)
    .bind(filters.agent)
    .fetch_all(conn)
    .await?;
    let mut per_period = vec![Vec::new(); periods.keys.len()];
    for (hour, values) in rows {
        if let Some(i) = periods.index_of(hour) {
            per_period[i].extend(values);
        }
    }
    let all: Vec<i32> = per_period.iter().flatten().copied().collect();
    let series = per_period.into_iter().map(summarised).collect();
    Ok((series, summarised(all)))
}

/// As [`volume_from_cycles`], from an hourly rollup (see [`hours_rollup`]).
async fn volume_from_hours(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    periods: &Periods,
    filters: &Filters,
    rollup: &HoursRollup,
) -> sqlx::Result<(Vec<Volume>, Volume)> {
    let HoursRollup { table, conditions } = rollup;
    let rows: Vec<(OffsetDateTime, i64, i64, i64)> = sqlx::query_as(schema.sql(&format!(
        "SELECT hour, sum(created)::bigint, sum(resolved)::bigint, sum(reopened)::bigint
           FROM {{schema}}.{table}
          WHERE hour >= $1 AND hour < $2 AND {conditions}
          GROUP BY hour"
    )))
    .bind(periods.start())
    .bind(periods.end())
    .bind(filters.channel)
    .bind(filters.label)
    .bind(filters.agent)
    .fetch_all(conn)
    .await?;
    let mut series = vec![Volume::default(); periods.keys.len()];
    let mut total = Volume::default();
    for (hour, created, resolved, reopened) in rows {
        if let Some(i) = periods.index_of(hour) {
            for figure in [&mut series[i], &mut total] {
                figure.created += created;
                figure.resolved += resolved;
                figure.reopened += reopened;
            }
        }
    }
    Ok((series, total))
}

/// As [`ratings_from_cycles`], from an hourly rollup (see [`hours_rollup`]).
async fn ratings_from_hours(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    periods: &Periods,
    filters: &Filters,
    rollup: &HoursRollup,
) -> sqlx::Result<Vec<Ratings>> {
    let HoursRollup { table, conditions } = rollup;
    let rows: Vec<(OffsetDateTime, Vec<i32>)> = sqlx::query_as(schema.sql(&format!(
        "SELECT hour, ratings FROM {{schema}}.{table}
          WHERE hour >= $1 AND hour < $2 AND {conditions} AND ratings <> '{{0,0,0,0,0}}'"
    )))
    .bind(periods.start())
    .bind(periods.end())
    .bind(filters.channel)
    .bind(filters.label)
    .bind(filters.agent)
    .fetch_all(conn)
    .await?;
    let mut series = vec![Ratings::default(); periods.keys.len()];
    for (hour, ratings) in rows {
        if let Some(i) = periods.index_of(hour) {
            for (total, count) in series[i].iter_mut().zip(ratings) {
                *total += i64::from(count);
            }
        }
    }
    Ok(series)
}

/// A period's row of a duration figure, or the whole range's (`total`, no bucket).
#[derive(sqlx::FromRow)]
struct DurationRow {
    bucket: Option<i32>,
    count: i64,
    median: Option<f64>,
    p90: Option<f64>,
    total: bool,
}

/// Per period, and for the whole range.
async fn durations_from_cycles(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    periods: &Periods,
    filters: &Filters,
    measure: &Measure,
) -> sqlx::Result<(Vec<Durations>, Durations)> {
    let Measure {
        at,
        seconds,
        business_seconds,
        agent,
    } = measure;
    let sql = format!(
        "SELECT bucket, count(*) AS count,
                percentile_cont(0.5) WITHIN GROUP (ORDER BY v) AS median,
                percentile_cont(0.9) WITHIN GROUP (ORDER BY v) AS p90,
                grouping(bucket) = 1 AS total
           FROM (SELECT width_bucket({at}, $1) AS bucket,
                        CASE WHEN $5 THEN {business_seconds} ELSE {seconds} END AS v
                   FROM {{schema}}.report_cycles
                  WHERE {at} >= $6 AND {at} < $7 AND {filters}) r
          GROUP BY GROUPING SETS ((bucket), ())",
        filters = filtered(agent, filters)
    );
    let rows: Vec<DurationRow> = bind(sqlx::query_as(schema.sql(&sql)), periods, filters)
        .fetch_all(conn)
        .await?;
    let mut series = vec![Durations::default(); periods.keys.len()];
    let mut total = Durations::default();
    for row in rows {
        let figure = Durations {
            count: row.count,
            median: whole(row.median),
            p90: whole(row.p90),
        };
        if row.total {
            total = figure;
        } else if let Some(i) = row.bucket.and_then(|b| periods.index(b)) {
            series[i] = figure;
        }
    }
    Ok((series, total))
}

/// Binds `$1` bounds, `$2` channel, `$3` label, `$4` agent, `$5` business hours, `$6`/`$7`
/// the range. A statement that needs no `$1` or `$5` still names it (`$5 IS NOT NULL`), so
/// every parameter has a type.
fn bind<'q, O>(
    query: sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments>,
    periods: &Periods,
    filters: &Filters,
) -> sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments> {
    query
        .bind(periods.bounds.clone())
        .bind(filters.channel)
        .bind(filters.label)
        .bind(filters.agent)
        .bind(filters.business_hours)
        .bind(periods.start())
        .bind(periods.end())
}

/// Conversations created, resolved and reopened in a period.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Volume {
    pub created: i64,
    pub resolved: i64,
    pub reopened: i64,
}

#[derive(sqlx::FromRow)]
struct VolumeRow {
    bucket: Option<i32>,
    created: Option<i64>,
    resolved: Option<i64>,
    reopened: Option<i64>,
    total: bool,
}

/// Created and reopened count by the cycle's start, resolved by its resolution; the agent
/// filter is the cycle's assignee.
async fn volume_from_cycles(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    periods: &Periods,
    filters: &Filters,
) -> sqlx::Result<(Vec<Volume>, Volume)> {
    let sql = format!(
        "SELECT bucket, sum(created)::bigint AS created, sum(resolved)::bigint AS resolved,
                sum(reopened)::bigint AS reopened, grouping(bucket) = 1 AS total
           FROM (SELECT width_bucket(started_at, $1) AS bucket, count(*) FILTER (WHERE cycle = 1)
                        AS created, 0::bigint AS resolved,
                        count(*) FILTER (WHERE cycle > 1) AS reopened
                   FROM {{schema}}.report_cycles
                  WHERE started_at >= $6 AND started_at < $7 AND {filters} AND $5 IS NOT NULL
                  GROUP BY 1
                 UNION ALL
                 SELECT width_bucket(resolved_at, $1), 0, count(*), 0
                   FROM {{schema}}.report_cycles
                  WHERE resolved_at >= $6 AND resolved_at < $7 AND {filters}
                  GROUP BY 1) v
          GROUP BY GROUPING SETS ((bucket), ())",
        filters = filtered("assignee_id", filters)
    );
    let rows: Vec<VolumeRow> = bind(sqlx::query_as(schema.sql(&sql)), periods, filters)
        .fetch_all(conn)
        .await?;
    let mut series = vec![Volume::default(); periods.keys.len()];
    let mut total = Volume::default();
    for row in rows {
        let figure = Volume {
            created: row.created.unwrap_or(0),
            resolved: row.resolved.unwrap_or(0),
            reopened: row.reopened.unwrap_or(0),
        };
        if row.total {
            total = figure;
        } else if let Some(i) = row.bucket.and_then(|b| periods.index(b)) {
            series[i] = figure;
        }
    }
    Ok((series, total))
}

/// Ratings per period and score (index 0 holds the 1s).
pub type Ratings = [i64; 5];

/// Ratings in the period they were given; the agent filter is the assignee of the rated
/// resolution.
async fn ratings_from_cycles(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    periods: &Periods,
    filters: &Filters,
) -> sqlx::Result<Vec<Ratings>> {
    let sql = format!(
        "SELECT width_bucket(rated_at, $1), rating, count(*)
           FROM {{schema}}.report_cycles
          WHERE rated_at >= $6 AND rated_at < $7 AND rating IS NOT NULL AND {filters}
            AND $5 IS NOT NULL
          GROUP BY 1, 2",
        filters = filtered("assignee_id", filters)
    );
    let rows: Vec<(i32, i16, i64)> = bind(sqlx::query_as(schema.sql(&sql)), periods, filters)
        .fetch_all(conn)
        .await?;
    let mut series = vec![Ratings::default(); periods.keys.len()];
    for (bucket, rating, count) in rows {
        let slot = usize::try_from(rating - 1).ok().filter(|r| *r < 5);
        if let (Some(i), Some(r)) = (periods.index(bucket), slot) {
            series[i][r] += count;
        }
    }
    Ok(series)
}

/// Incoming messages per UTC hour of the range (the heatmap folds them into its zone).
pub async fn incoming_hours(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    periods: &Periods,
    channel: Option<Channel>,
) -> sqlx::Result<Vec<(OffsetDateTime, i64)>> {
    sqlx::query_as(schema.sql(
        "SELECT hour, sum(incoming)::bigint FROM {schema}.report_hours
          WHERE hour >= $1 AND hour < $2 AND ($3::text IS NULL OR channel = $3)
            AND incoming > 0
          GROUP BY hour",
    ))
    .bind(periods.start())
    .bind(periods.end())
    .bind(channel)
    .fetch_all(conn)
    .await
}

/// One agent's figures over the range.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct AgentFigures {
    pub agent_id: Uuid,
    pub display_name: String,
    pub first_responses: i64,
    pub first_response_median: Option<f64>,
    pub resolutions: i64,
    pub resolution_median: Option<f64>,
    pub ratings: i64,
    pub satisfied: i64,
}

/// Every agent with a figure in the range (and the one asked for, if any), by name.
async fn agents_from_cycles(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    periods: &Periods,
    filters: &Filters,
) -> sqlx::Result<Vec<AgentFigures>> {
    let sql = format!(
        "WITH responses AS (
             SELECT responder_id AS agent_id, count(*) AS n,
                    percentile_cont(0.5) WITHIN GROUP (ORDER BY CASE WHEN $5
                        THEN response_business_seconds ELSE response_seconds END) AS median
               FROM {{schema}}.report_cycles
              WHERE first_response_at >= $6 AND first_response_at < $7 AND {responders}
                AND $1::timestamptz[] IS NOT NULL
              GROUP BY 1),
         resolutions AS (
             SELECT assignee_id AS agent_id, count(*) AS n,
                    percentile_cont(0.5) WITHIN GROUP (ORDER BY CASE WHEN $5
                        THEN resolution_business_seconds ELSE resolution_seconds END) AS median
               FROM {{schema}}.report_cycles
              WHERE resolved_at >= $6 AND resolved_at < $7 AND assignee_id IS NOT NULL
                AND {assignees}
              GROUP BY 1),
         rated AS (
             SELECT assignee_id AS agent_id, count(*) AS n,
                    count(*) FILTER (WHERE rating >= 4) AS satisfied
               FROM {{schema}}.report_cycles
              WHERE rated_at >= $6 AND rated_at < $7 AND rating IS NOT NULL
                AND assignee_id IS NOT NULL AND {assignees}
              GROUP BY 1)
         SELECT a.id AS agent_id, a.display_name,
                coalesce(r.n, 0) AS first_responses, r.median AS first_response_median,
                coalesce(s.n, 0) AS resolutions, s.median AS resolution_median,
                coalesce(c.n, 0) AS ratings, coalesce(c.satisfied, 0) AS satisfied
           FROM {{schema}}.agent_profiles a
           LEFT JOIN responses r ON r.agent_id = a.id
           LEFT JOIN resolutions s ON s.agent_id = a.id
           LEFT JOIN rated c ON c.agent_id = a.id
          WHERE (r.n IS NOT NULL OR s.n IS NOT NULL OR c.n IS NOT NULL OR a.id = $4)
          ORDER BY a.display_name, a.id",
        responders = filtered("responder_id", filters),
        assignees = filtered("assignee_id", filters),
    );
    bind(sqlx::query_as(schema.sql(&sql)), periods, filters)
        .fetch_all(conn)
        .await
}

/// Whether the rollups per agent (or per label and agent) can answer the per-agent report
/// for `filters`.
fn agent_hours_serve(periods: &Periods, filters: &Filters) -> bool {
    filters.channel.is_none() && periods.on_whole_hours()
}

/// An agent's hour: their first responses' and resolutions' durations, and the ratings.
#[derive(sqlx::FromRow)]
struct AgentHour {
    agent_id: Uuid,
    responded: Vec<i32>,
    resolved: Vec<i32>,
    ratings: Vec<i32>,
}

/// As [`agents_from_cycles`], from the hourly rollups per agent (see [`agent_hours_serve`]).
async fn agents_from_hours(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    periods: &Periods,
    filters: &Filters,
) -> sqlx::Result<Vec<AgentFigures>> {
    let (responses, resolutions) = if filters.business_hours {
        ("response_business_seconds", "resolution_business_seconds")
    } else {
        ("response_seconds", "resolution_seconds")
    };
    // Whole UTC days from the days' rollup, the hours before the first and after the last
    // from the hours'; a range within one day is all hours.
    let (start, end) = (periods.start(), periods.end());
    let midnight = |at: OffsetDateTime| at.replace_time(time::Time::MIDNIGHT);
    let first_day = if midnight(start) == start {
        start
    } else {
        midnight(start) + time::Duration::DAY
    };
    let (first_day, last_day) = if first_day < midnight(end) {
        (first_day, midnight(end))
    } else {
        (end, end)
    };
    let (days, hours, label) = match filters.label {
        Some(_) => (
            "report_label_agent_days",
            "report_label_agent_hours",
            "label_id = $6",
        ),
        None => (
            "report_agent_days",
            "report_agent_hours",
            "$6::uuid IS NULL",
        ),
    };
    let rows: Vec<AgentHour> = sqlx::query_as(schema.sql(&format!(
        "SELECT agent_id, {responses} AS responded, {resolutions} AS resolved, ratings
           FROM {{schema}}.{days}
          WHERE day >= $1 AND day < $2 AND ($5::uuid IS NULL OR agent_id = $5) AND {label}
         UNION ALL
         SELECT agent_id, {responses}, {resolutions}, ratings
           FROM {{schema}}.{hours}
          WHERE ((hour >= $3 AND hour < $1) OR (hour >= $2 AND hour < $4))
            AND ($5::uuid IS NULL OR agent_id = $5) AND {label}"
    )))
    .bind(first_day)
    .bind(last_day)
    .bind(start)
    .bind(end)
    .bind(filters.agent)
    .bind(filters.label)
    .fetch_all(&mut *conn)
    .await?;
    let mut by_agent: std::collections::HashMap<Uuid, (Vec<i32>, Vec<i32>, Ratings)> =
        std::collections::HashMap::new();
    if let Some(agent) = filters.agent {
        by_agent.entry(agent).or_default();
    }
    for row in rows {
        let figures = by_agent.entry(row.agent_id).or_default();
        figures.0.extend(row.responded);
        figures.1.extend(row.resolved);
        for (total, count) in figures.2.iter_mut().zip(row.ratings) {
            *total += i64::from(count);
        }
    }
    let ids: Vec<Uuid> = by_agent.keys().copied().collect();
    let names: Vec<(Uuid, String)> = sqlx::query_as(schema.sql(
        "SELECT id, display_name FROM {schema}.agent_profiles WHERE id = ANY($1)
          ORDER BY display_name, id",
    ))
    .bind(&ids)
    .fetch_all(conn)
    .await?;
    Ok(names
        .into_iter()
        .filter_map(|(agent_id, display_name)| {
            let (mut responded, mut resolved, ratings) = by_agent.remove(&agent_id)?;
            // The table shows medians only: no p90 to select.
            let median = |values: &mut [i32]| whole(percentile(values, 0.5)).map(|m| m as f64);
            Some(AgentFigures {
                agent_id,
                display_name,
                first_responses: responded.len() as i64,
                first_response_median: median(&mut responded),
                resolutions: resolved.len() as i64,
                resolution_median: median(&mut resolved),
                ratings: ratings.iter().sum(),
                satisfied: ratings[3] + ratings[4],
            })
        })
        .collect())
}

/// The most first responses [`recent_first_responses`] reads.
pub const RECENT_MEASURED: i64 = 200;

/// The newest [`RECENT_MEASURED`] first responses since `since` to customers who wrote in
/// (by chat or email): (the cycle's first incoming message, the reply). The widget's "we
/// usually reply in ..." is measured from these (`widget::reply_time`), in the business hours
/// in force when it asks.
pub async fn recent_first_responses(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    since: OffsetDateTime,
) -> sqlx::Result<Vec<(OffsetDateTime, OffsetDateTime)>> {
    // The count written out, not bound: a generic plan costs a bound `LIMIT` as a tenth of
    // the table and would sort it rather than walk the index backwards.
    sqlx::query_as(schema.sql(&format!(
        "SELECT first_incoming_at, first_response_at FROM {{schema}}.report_cycles
          WHERE first_response_at >= $1 AND channel <> 'manual'
          ORDER BY first_response_at DESC LIMIT {RECENT_MEASURED}"
    )))
    .bind(since)
    .fetch_all(conn)
    .await
}

/// A duration figure per period and for the whole range: from the hourly rollups when they
/// answer, else from the cycles.
pub async fn durations(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    periods: &Periods,
    filters: &Filters,
    measure: &Measure,
) -> sqlx::Result<(Vec<Durations>, Durations)> {
    let rollup = hours_rollup(periods, filters, false);
    if let Some(rollup) = ready(conn, schema, filters, rollup).await? {
        durations_from_hours(conn, schema, periods, filters, measure, &rollup).await
    } else {
        durations_from_cycles(conn, schema, periods, filters, measure).await
    }
}

/// Conversations created, resolved and reopened per period and for the whole range.
pub async fn volume(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    periods: &Periods,
    filters: &Filters,
) -> sqlx::Result<(Vec<Volume>, Volume)> {
    let rollup = hours_rollup(periods, filters, true);
    if let Some(rollup) = ready(conn, schema, filters, rollup).await? {
        volume_from_hours(conn, schema, periods, filters, &rollup).await
    } else {
        volume_from_cycles(conn, schema, periods, filters).await
    }
}

/// The ratings given per period.
pub async fn ratings(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    periods: &Periods,
    filters: &Filters,
) -> sqlx::Result<Vec<Ratings>> {
    let rollup = hours_rollup(periods, filters, false);
    if let Some(rollup) = ready(conn, schema, filters, rollup).await? {
        ratings_from_hours(conn, schema, periods, filters, &rollup).await
    } else {
        ratings_from_cycles(conn, schema, periods, filters).await
    }
}

/// Every agent with a figure in the range (and the one asked for, if any), by name.
pub async fn agents(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    periods: &Periods,
    filters: &Filters,
) -> sqlx::Result<Vec<AgentFigures>> {
    let fits = agent_hours_serve(periods, filters).then_some(());
    if ready(conn, schema, filters, fits).await?.is_some() {
        agents_from_hours(conn, schema, periods, filters).await
    } else {
        agents_from_cycles(conn, schema, periods, filters).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate_as_postgresql_does() {
        assert_eq!(percentile(&mut [], 0.5), None);
        assert_eq!(percentile(&mut [7], 0.9), Some(7.0));
        assert_eq!(percentile(&mut [1800, 1200, 1800], 0.5), Some(1800.0));
        assert_eq!(percentile(&mut [25200, 7800], 0.5), Some(16500.0));
        // 0.9 of the way through 1..=10: 9.1.
        let mut values: Vec<i32> = (1..=10).rev().collect();
        assert!((percentile(&mut values, 0.9).unwrap() - 9.1).abs() < 1e-9);
    }

    /// Interpolating between the sorted values at the two positions around `p`.
    fn by_sorting(values: &[i32], p: f64) -> Option<f64> {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        let last = sorted.len().checked_sub(1)?;
        let position = p * last as f64;
        let (below, above) = (position.floor() as usize, position.ceil() as usize);
        let (low, high) = (f64::from(sorted[below]), f64::from(sorted[above]));
        Some(low + (high - low) * (position - below as f64))
    }

    #[test]
    fn selecting_finds_what_sorting_finds() {
        // A fixed pseudo-random sequence (a linear congruential generator), with repeats.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for len in [1usize, 2, 3, 10, 11, 101, 1000, 4097] {
            let values: Vec<i32> = (0..len)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    ((state >> 33) % 5_000) as i32
                })
                .collect();
            for p in [0.0, 0.1, 0.5, 0.9, 0.99, 1.0] {
                let mut shuffled = values.clone();
                assert_eq!(
                    percentile(&mut shuffled, p),
                    by_sorting(&values, p),
                    "{len} values, p {p}"
                );
            }
        }
    }
}
