//! `GET /api/audit-log` (Owners): the workspace's audit entries, newest first, filtered by
//! actor, action and time, a page at a time; or, with `Accept: text/csv`, every matching entry
//! (up to [`CSV_MAX_ROWS`]) as a CSV file.

use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::Action;
use crate::csv_export::{self, inert};
use crate::error::responses::OwnerErrors;
use crate::error::{Error, Result};
use crate::extract::{AppJson, AppQuery};
use crate::pagination::{PageQuery, TimeKey};
use crate::tenancy::context::Tenant;

/// Rows a CSV export holds at most; narrow the time range for more.
pub const CSV_MAX_ROWS: i64 = 100_000;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    /// Only this user's or API key's entries.
    actor: Option<Uuid>,
    /// Only this action (`member.role_changed`, ...).
    action: Option<String>,
    /// Only entries at or after this time (RFC 3339).
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[param(value_type = Option<String>, format = DateTime)]
    from: Option<OffsetDateTime>,
    /// Only entries before this time (RFC 3339).
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[param(value_type = Option<String>, format = DateTime)]
    to: Option<OffsetDateTime>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditActor {
    /// `user`, `apiKey` or `operator`.
    pub kind: String,
    /// The user's or the API key's id.
    pub id: Option<Uuid>,
    /// As it was called then.
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AuditTarget {
    #[serde(rename = "type")]
    pub kind: String,
    pub id: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub id: Uuid,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub at: OffsetDateTime,
    pub actor: AuditActor,
    /// The client's address (through `TRUSTED_PROXIES`).
    pub ip: Option<String>,
    #[schema(example = "member.role_changed")]
    pub action: String,
    pub target: AuditTarget,
    /// `{"field": {"from": ..., "to": ...}}` or facts of the action; never a secret.
    #[schema(value_type = Object)]
    pub changes: serde_json::Value,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditPage {
    pub entries: Vec<AuditEntry>,
    pub next_cursor: Option<String>,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: Uuid,
    at: OffsetDateTime,
    actor_kind: String,
    actor_id: Option<Uuid>,
    actor_name: String,
    ip: Option<String>,
    action: String,
    target_type: String,
    target_id: Option<String>,
    changes: serde_json::Value,
}

impl From<Row> for AuditEntry {
    fn from(row: Row) -> Self {
        Self {
            id: row.id,
            at: row.at,
            actor: AuditActor {
                kind: row.actor_kind,
                id: row.actor_id,
                name: row.actor_name,
            },
            ip: row.ip,
            action: row.action,
            target: AuditTarget {
                kind: row.target_type,
                id: row.target_id,
            },
            changes: row.changes,
        }
    }
}

/// The workspace's audit log, newest first. `Accept: text/csv` exports every matching entry.
#[utoipa::path(
    get, path = "/api/audit-log", tag = "audit",
    security(("bearer" = [])),
    params(AuditQuery, PageQuery),
    responses(
        (status = 200, description = "A page of entries (or, for `Accept: text/csv`, a CSV file of them all)",
         content((AuditPage = "application/json"), (String = "text/csv"))),
        OwnerErrors,
    )
)]
pub async fn list(
    mut tenant: Tenant,
    headers: HeaderMap,
    AppQuery(query): AppQuery<AuditQuery>,
    AppQuery(page): AppQuery<PageQuery>,
) -> Result<Response> {
    if let Some(action) = &query.action
        && !Action::ALL.iter().any(|a| a.as_str() == action)
    {
        return Err(Error::invalid_field(
            "action",
            format!("{action:?} is not an action the log records"),
        ));
    }
    let csv = csv_export::wanted(&headers);
    let page = page.parse::<TimeKey>()?;
    let (before_at, before_id) = match (csv, page.after) {
        (false, Some(TimeKey(at, id))) => (Some(at), Some(id)),
        _ => (None, None),
    };
    let limit = if csv { CSV_MAX_ROWS } else { page.fetch() };
    let (conn, schema) = tenant.parts();
    let rows: Vec<Row> = sqlx::query_as(schema.sql(
        "SELECT id, at, actor_kind, actor_id, actor_name, host(ip) AS ip, action, target_type,
                target_id, changes
           FROM {schema}.audit_log
          WHERE ($1::uuid IS NULL OR actor_id = $1)
            AND ($2::text IS NULL OR action = $2)
            AND ($3::timestamptz IS NULL OR at >= $3)
            AND ($4::timestamptz IS NULL OR at < $4)
            AND ($5::timestamptz IS NULL OR (at, id) < ($5, $6))
          ORDER BY at DESC, id DESC
          LIMIT $7",
    ))
    .bind(query.actor)
    .bind(&query.action)
    .bind(query.from)
    .bind(query.to)
    .bind(before_at)
    .bind(before_id)
    .bind(limit)
    .fetch_all(conn)
    .await?;
    if csv {
        return csv_of(rows);
    }
    let (rows, next_cursor) = page.finish(rows, |r| TimeKey(r.at, r.id));
    Ok(AppJson(AuditPage {
        entries: rows.into_iter().map(AuditEntry::from).collect(),
        next_cursor,
    })
    .into_response())
}

fn csv_of(rows: Vec<Row>) -> Result<Response> {
    let header = [
        "id",
        "at",
        "actor_kind",
        "actor_id",
        "actor_name",
        "ip",
        "action",
        "target_type",
        "target_id",
        "changes",
    ];
    let rows = rows.into_iter().map(|row| {
        let at = row
            .at
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        [
            row.id.to_string(),
            at,
            row.actor_kind,
            row.actor_id.map(|id| id.to_string()).unwrap_or_default(),
            inert(row.actor_name),
            row.ip.unwrap_or_default(),
            row.action,
            row.target_type,
            inert(row.target_id.unwrap_or_default()),
            inert(row.changes.to_string()),
        ]
    });
    csv_export::download("audit-log.csv", &header, rows)
}
