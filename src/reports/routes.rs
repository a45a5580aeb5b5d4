//! `GET /api/reports/*`: each report as JSON, or with `Accept: text/csv` as a CSV download.

use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use jiff::civil::Date;
use serde::{Deserialize, Serialize};
use supportdesk_core::role::Role;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::figures::{self, Durations, Filters, Measure, Ratings};
use super::range::{self, GroupBy, Periods};
use crate::conversations::record::Channel;
use crate::csv_export;
use crate::error::responses::ReportErrors;
use crate::error::{Error, FieldChecks, Result};
use crate::extract::{AppJson, AppQuery};
use crate::tenancy::context::Tenant;

/// The range, grouping and filters every report takes.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ReportQuery {
    /// The first day, `YYYY-MM-DD`, in the workspace's time zone (its business hours'); 29
    /// days before `to` when omitted.
    #[param(example = "2026-01-01")]
    from: Option<String>,
    /// The last day, included; today when omitted. A range is at most 366 days.
    #[param(example = "2026-12-31")]
    to: Option<String>,
    /// `day` (the default), `week` (ISO, keyed by its Monday) or `month`.
    #[param(inline)]
    group_by: Option<GroupBy>,
    /// Count only business hours in times (first response, resolution).
    business_hours: Option<bool>,
    /// One agent's figures (an Agent may only ask for their own, which is the default for
    /// them).
    agent_id: Option<Uuid>,
    #[param(inline)]
    channel: Option<Channel>,
    /// Conversations with this label (now).
    label_id: Option<Uuid>,
}

/// The range a report covers, as it was understood.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportRange {
    #[schema(format = Date, example = "2026-01-01")]
    pub from: String,
    #[schema(format = Date, example = "2026-12-31")]
    pub to: String,
    pub group_by: GroupBy,
    pub business_hours: bool,
    /// The zone whose days the range and periods are (the business hours').
    #[schema(example = "Europe/Berlin")]
    pub time_zone: String,
}

/// A report's request, checked and scoped to its caller.
struct Report {
    periods: Periods,
    filters: Filters,
    time_zone: jiff::tz::TimeZone,
    range: ReportRange,
}

impl Report {
    /// The name of its CSV download.
    fn filename(&self, metric: &str) -> String {
        format!("{metric}-{}-{}.csv", self.periods.from, self.periods.to)
    }

    fn period(&self, index: usize) -> String {
        self.periods.keys[index].to_string()
    }
}

/// Who may see which figures: Owners and API keys everything, Agents their own.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Audience {
    Everyone,
    OwnersOnly,
}

fn date(field: &'static str, text: &str, checks: &mut FieldChecks) -> Option<Date> {
    checks.check(
        field,
        text.parse::<Date>()
            .map_err(|_| "must be a date, YYYY-MM-DD".to_owned()),
    )
}

async fn prepare(tenant: &mut Tenant, query: ReportQuery, audience: Audience) -> Result<Report> {
    let actor = tenant.actor.clone();
    let (conn, schema) = tenant.parts();
    let agent = match actor.role() {
        Role::Owner => query.agent_id,
        Role::Agent if audience == Audience::OwnersOnly => {
            return Err(Error::forbidden(
                "owner_only",
                "this report covers the whole team: only Owners see it",
            ));
        }
        Role::Agent => {
            let own = crate::inbox::assignee::acting_agent(conn, schema, &actor).await?;
            if query.agent_id.is_some_and(|asked| asked != own) {
                return Err(Error::forbidden(
                    "own_reports_only",
                    "agents see their own figures: leave out agentId, or give your own",
                ));
            }
            Some(own)
        }
    };
    let schedule = crate::business_hours::load(conn, schema, false).await?;
    let zone = schedule.zone().clone();
    let mut checks = FieldChecks::default();
    let to = match &query.to {
        Some(text) => date("to", text, &mut checks),
        None => Some(range::today(&zone)),
    };
    let from = match (&query.from, to) {
        (Some(text), _) => date("from", text, &mut checks),
        (None, Some(to)) => to
            .checked_sub(jiff::Span::new().days(range::DEFAULT_DAYS - 1))
            .ok(),
        (None, None) => None,
    };
    let group_by = query.group_by.unwrap_or_default();
    let periods = match (from, to) {
        (Some(from), Some(to)) => checks.check("from", Periods::new(from, to, group_by, &zone)),
        _ => None,
    };
    let (Some(periods), true) = (periods, checks.is_empty()) else {
        return Err(checks.failed());
    };
    let business_hours = query.business_hours.unwrap_or(false);
    Ok(Report {
        range: ReportRange {
            from: periods.from.to_string(),
            to: periods.to.to_string(),
            group_by,
            business_hours,
            time_zone: schedule.zone_name().to_owned(),
        },
        periods,
        filters: Filters {
            agent,
            channel: query.channel,
            label: query.label_id,
            business_hours,
        },
        time_zone: zone,
    })
}

/// Conversations created, resolved and reopened in a period.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VolumePeriod {
    /// The period's first day.
    #[schema(format = Date)]
    pub period: String,
    pub created: i64,
    pub resolved: i64,
    pub reopened: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VolumeTotal {
    pub created: i64,
    pub resolved: i64,
    pub reopened: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VolumeReport {
    pub range: ReportRange,
    /// Every period of the range, in order.
    pub series: Vec<VolumePeriod>,
    pub total: VolumeTotal,
}

/// Conversations created (cycle 1 started), reopened (a later cycle started) and resolved.
/// With `agentId`: the conversations assigned to that agent (at their resolution, or now).
#[utoipa::path(
    get, path = "/api/reports/volume", tag = "reports",
    security(("bearer" = [])),
    params(ReportQuery),
    responses(
        (status = 200, description = "Conversations per period (or, for `Accept: text/csv`, a CSV file)",
         content((VolumeReport = "application/json"), (String = "text/csv"))),
        ReportErrors,
    )
)]
pub async fn volume(
    mut tenant: Tenant,
    headers: HeaderMap,
    AppQuery(query): AppQuery<ReportQuery>,
) -> Result<Response> {
    let report = prepare(&mut tenant, query, Audience::Everyone).await?;
    let (conn, schema) = tenant.parts();
    let (periods, filters) = (&report.periods, &report.filters);
    let (series, total) = figures::volume(conn, schema, periods, filters).await?;
    if csv_export::wanted(&headers) {
        let rows = series.iter().enumerate().map(|(i, v)| {
            [
                report.period(i),
                v.created.to_string(),
                v.resolved.to_string(),
                v.reopened.to_string(),
            ]
        });
        return csv_export::download(
            &report.filename("volume"),
            &["period", "created", "resolved", "reopened"],
            rows,
        );
    }
    let series = series
        .iter()
        .enumerate()
        .map(|(i, v)| VolumePeriod {
            period: report.period(i),
            created: v.created,
            resolved: v.resolved,
            reopened: v.reopened,
        })
        .collect();
    Ok(AppJson(VolumeReport {
        range: report.range,
        series,
        total: VolumeTotal {
            created: total.created,
            resolved: total.resolved,
            reopened: total.reopened,
        },
    })
    .into_response())
}

/// A duration figure of a period: how many, and their median and 90th percentile in whole
/// seconds (null when there are none).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimePeriod {
    #[schema(format = Date)]
    pub period: String,
    pub count: i64,
    pub median: Option<i64>,
    pub p90: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimeTotal {
    pub count: i64,
    pub median: Option<i64>,
    pub p90: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimeReport {
    pub range: ReportRange,
    pub series: Vec<TimePeriod>,
    pub total: TimeTotal,
}

async fn time_report(
    mut tenant: Tenant,
    headers: HeaderMap,
    query: ReportQuery,
    measure: &Measure,
    metric: &str,
) -> Result<Response> {
    let report = prepare(&mut tenant, query, Audience::Everyone).await?;
    let (conn, schema) = tenant.parts();
    let (periods, filters) = (&report.periods, &report.filters);
    let (series, total) = figures::durations(conn, schema, periods, filters, measure).await?;
    if csv_export::wanted(&headers) {
        let cell = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
        let rows = series.iter().enumerate().map(|(i, d)| {
            [
                report.period(i),
                d.count.to_string(),
                cell(d.median),
                cell(d.p90),
            ]
        });
        return csv_export::download(
            &report.filename(metric),
            &["period", "count", "median_seconds", "p90_seconds"],
            rows,
        );
    }
    let series = series
        .iter()
        .enumerate()
        .map(|(i, d)| TimePeriod {
            period: report.period(i),
            count: d.count,
            median: d.median,
            p90: d.p90,
        })
        .collect();
    let Durations { count, median, p90 } = total;
    Ok(AppJson(TimeReport {
        range: report.range,
        series,
        total: TimeTotal { count, median, p90 },
    })
    .into_response())
}

/// First response time: from the first incoming message of a conversation, or of a reopening,
/// to the first reply an agent wrote after it (notes and replies no agent wrote do not count),
/// in the period of the reply, credited to the agent who replied.
#[utoipa::path(
    get, path = "/api/reports/first-response-time", tag = "reports",
    security(("bearer" = [])),
    params(ReportQuery),
    responses(
        (status = 200, description = "First responses per period (or, for `Accept: text/csv`, a CSV file)",
         content((TimeReport = "application/json"), (String = "text/csv"))),
        ReportErrors,
    )
)]
pub async fn first_response_time(
    tenant: Tenant,
    headers: HeaderMap,
    AppQuery(query): AppQuery<ReportQuery>,
) -> Result<Response> {
    time_report(
        tenant,
        headers,
        query,
        &figures::FIRST_RESPONSE,
        "first-response-time",
    )
    .await
}

/// Resolution time: from a conversation's creation, or its reopening, to the resolution that
/// ends it, in the period of the resolution, credited to the assignee at the resolution.
#[utoipa::path(
    get, path = "/api/reports/resolution-time", tag = "reports",
    security(("bearer" = [])),
    params(ReportQuery),
    responses(
        (status = 200, description = "Resolutions per period (or, for `Accept: text/csv`, a CSV file)",
         content((TimeReport = "application/json"), (String = "text/csv"))),
        ReportErrors,
    )
)]
pub async fn resolution_time(
    tenant: Tenant,
    headers: HeaderMap,
    AppQuery(query): AppQuery<ReportQuery>,
) -> Result<Response> {
    time_report(
        tenant,
        headers,
        query,
        &figures::RESOLUTION,
        "resolution-time",
    )
    .await
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CsatPeriod {
    #[schema(format = Date)]
    pub period: String,
    pub responses: i64,
    /// Ratings of 4 or 5.
    pub satisfied: i64,
    /// `satisfied / responses`, 0 to 1; null without responses.
    pub score: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CsatTotal {
    pub responses: i64,
    pub satisfied: i64,
    pub score: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RatingCount {
    #[schema(minimum = 1, maximum = 5)]
    pub rating: i16,
    pub count: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CsatReport {
    pub range: ReportRange,
    pub series: Vec<CsatPeriod>,
    /// How many of each rating over the range, 1 first.
    pub distribution: Vec<RatingCount>,
    pub total: CsatTotal,
}

/// Ratings of 4 and 5 among all, and their score.
fn satisfaction(ratings: &Ratings) -> (i64, i64, Option<f64>) {
    let responses: i64 = ratings.iter().sum();
    let satisfied = ratings[3] + ratings[4];
    let score = (responses > 0).then(|| satisfied as f64 / responses as f64);
    (responses, satisfied, score)
}

/// CSAT: the share of ratings that are 4 or 5, in the period they were given, and the
/// distribution of ratings; with `agentId`, of the resolutions assigned to that agent.
#[utoipa::path(
    get, path = "/api/reports/csat", tag = "reports",
    security(("bearer" = [])),
    params(ReportQuery),
    responses(
        (status = 200, description = "Ratings per period (or, for `Accept: text/csv`, a CSV file)",
         content((CsatReport = "application/json"), (String = "text/csv"))),
        ReportErrors,
    )
)]
pub async fn csat(
    mut tenant: Tenant,
    headers: HeaderMap,
    AppQuery(query): AppQuery<ReportQuery>,
) -> Result<Response> {
    let report = prepare(&mut tenant, query, Audience::Everyone).await?;
    let (conn, schema) = tenant.parts();
    let (periods, filters) = (&report.periods, &report.filters);
    let series = figures::ratings(conn, schema, periods, filters).await?;
    let mut distribution = Ratings::default();
    for period in &series {
        for (total, count) in distribution.iter_mut().zip(period) {
            *total += count;
        }
    }
    if csv_export::wanted(&headers) {
        let rows = series.iter().enumerate().map(|(i, ratings)| {
            let (responses, satisfied, score) = satisfaction(ratings);
            let mut row = vec![
                report.period(i),
                responses.to_string(),
                satisfied.to_string(),
            ];
            row.push(score.map(|s| format!("{s:.4}")).unwrap_or_default());
            row.extend(ratings.iter().map(ToString::to_string));
            row
        });
        return csv_export::download(
            &report.filename("csat"),
            &[
                "period",
                "responses",
                "satisfied",
                "score",
                "rating_1",
                "rating_2",
                "rating_3",
                "rating_4",
                "rating_5",
            ],
            rows,
        );
    }
    let series = series
        .iter()
        .enumerate()
        .map(|(i, ratings)| {
            let (responses, satisfied, score) = satisfaction(ratings);
            CsatPeriod {
                period: report.period(i),
                responses,
                satisfied,
                score,
            }
        })
        .collect();
    let (responses, satisfied, score) = satisfaction(&distribution);
    Ok(AppJson(CsatReport {
        range: report.range,
        series,
        distribution: (1..=5)
            .zip(distribution)
            .map(|(rating, count)| RatingCount { rating, count })
            .collect(),
        total: CsatTotal {
            responses,
            satisfied,
            score,
        },
    })
    .into_response())
}

#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeatmapCell {
    /// 1 (Monday) to 7 (Sunday).
    #[schema(minimum = 1, maximum = 7)]
    pub weekday: u8,
    /// 0 to 23, in the workspace's time zone.
    #[schema(maximum = 23)]
    pub hour: u8,
    pub messages: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeatmapReport {
    pub range: ReportRange,
    /// All 168 hours of the week, Monday 00:00 first.
    pub cells: Vec<HeatmapCell>,
}

/// Incoming messages by weekday and hour of the workspace's time zone (Owners; by channel,
/// not by agent or label).
#[utoipa::path(
    get, path = "/api/reports/heatmap", tag = "reports",
    security(("bearer" = [])),
    params(ReportQuery),
    responses(
        (status = 200, description = "Incoming messages per hour of the week (or, for `Accept: text/csv`, a CSV file)",
         content((HeatmapReport = "application/json"), (String = "text/csv"))),
        ReportErrors,
    )
)]
pub async fn heatmap(
    mut tenant: Tenant,
    headers: HeaderMap,
    AppQuery(query): AppQuery<ReportQuery>,
) -> Result<Response> {
    let mut checks = FieldChecks::default();
    if query.agent_id.is_some() {
        checks.add(
            "agentId",
            "the heatmap counts every incoming message: it has no agent",
        );
    }
    if query.label_id.is_some() {
        checks.add(
            "labelId",
            "the heatmap counts messages per channel, not per label",
        );
    }
    if !checks.is_empty() {
        return Err(checks.failed());
    }
    let report = prepare(&mut tenant, query, Audience::OwnersOnly).await?;
    let (conn, schema) = tenant.parts();
    let hours =
        figures::incoming_hours(conn, schema, &report.periods, report.filters.channel).await?;
    let mut cells: Vec<HeatmapCell> = (0..168u16)
        .map(|i| HeatmapCell {
            weekday: (i / 24 + 1) as u8,
            hour: (i % 24) as u8,
            messages: 0,
        })
        .collect();
    for (hour, messages) in hours {
        let Ok(at) = jiff::Timestamp::from_second(hour.unix_timestamp()) else {
            continue;
        };
        let local = at.to_zoned(report.time_zone.clone());
        let weekday = usize::from(local.weekday().to_monday_zero_offset() as u8);
        let index = weekday * 24 + usize::from(local.hour() as u8);
        if let Some(cell) = cells.get_mut(index) {
            cell.messages += messages;
        }
    }
    if csv_export::wanted(&headers) {
        let rows = cells.iter().map(|c| {
            [
                c.weekday.to_string(),
                c.hour.to_string(),
                c.messages.to_string(),
            ]
        });
        return csv_export::download(
            &report.filename("heatmap"),
            &["weekday", "hour", "messages"],
            rows,
        );
    }
    Ok(AppJson(HeatmapReport {
        range: report.range,
        cells,
    })
    .into_response())
}

/// One agent's figures over the range.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentReportRow {
    pub agent_id: Uuid,
    pub display_name: String,
    pub first_responses: i64,
    /// Seconds; null without first responses.
    pub first_response_median: Option<i64>,
    pub resolutions: i64,
    pub resolution_median: Option<i64>,
    pub ratings: i64,
    pub csat_score: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentsReport {
    pub range: ReportRange,
    /// Agents with a figure in the range, by name (an Agent sees their own row).
    pub agents: Vec<AgentReportRow>,
}

/// Per agent: first responses they wrote, resolutions assigned to them, and the ratings of
/// those resolutions.
#[utoipa::path(
    get, path = "/api/reports/agents", tag = "reports",
    security(("bearer" = [])),
    params(ReportQuery),
    responses(
        (status = 200, description = "Each agent's figures (or, for `Accept: text/csv`, a CSV file)",
         content((AgentsReport = "application/json"), (String = "text/csv"))),
        ReportErrors,
    )
)]
pub async fn agents(
    mut tenant: Tenant,
    headers: HeaderMap,
    AppQuery(query): AppQuery<ReportQuery>,
) -> Result<Response> {
    let report = prepare(&mut tenant, query, Audience::Everyone).await?;
    let (conn, schema) = tenant.parts();
    let (periods, filters) = (&report.periods, &report.filters);
    let rows = figures::agents(conn, schema, periods, filters).await?;
    let rows: Vec<AgentReportRow> = rows
        .into_iter()
        .map(|a| AgentReportRow {
            agent_id: a.agent_id,
            display_name: a.display_name,
            first_responses: a.first_responses,
            first_response_median: a.first_response_median.map(|s| s.round() as i64),
            resolutions: a.resolutions,
            resolution_median: a.resolution_median.map(|s| s.round() as i64),
            ratings: a.ratings,
            csat_score: (a.ratings > 0).then(|| a.satisfied as f64 / a.ratings as f64),
        })
        .collect();
    if csv_export::wanted(&headers) {
        let cell = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
        let csv_rows = rows.iter().map(|a| {
            [
                a.agent_id.to_string(),
                csv_export::inert(a.display_name.clone()),
                a.first_responses.to_string(),
                cell(a.first_response_median),
                a.resolutions.to_string(),
                cell(a.resolution_median),
                a.ratings.to_string(),
                a.csat_score.map(|s| format!("{s:.4}")).unwrap_or_default(),
            ]
        });
        return csv_export::download(
            &report.filename("agents"),
            &[
                "agent_id",
                "display_name",
                "first_responses",
                "first_response_median_seconds",
                "resolutions",
                "resolution_median_seconds",
                "ratings",
                "csat_score",
            ],
            csv_rows,
        );
    }
    Ok(AppJson(AgentsReport {
        range: report.range,
        agents: rows,
    })
    .into_response())
}
