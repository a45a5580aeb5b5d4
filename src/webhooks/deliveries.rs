//! An endpoint's delivery log (every attempt, newest first, kept 30 days), and deliveries asked
//! for by hand: an earlier event sent again, or a `webhook.test` event. The worker sends those
//! before it goes on with the endpoint's place in the log; the log shows how they went.

use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::endpoints::{self, Webhook};
use crate::authz::Actor;
use crate::error::responses::OwnerErrors;
use crate::error::{Error, Problem, Result};
use crate::extract::{AppJson, AppQuery, PathId};
use crate::pagination::{PageQuery, TimeKey};
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
#[schema(as = WebhookDeliveryStatus)]
pub enum DeliveryStatus {
    Succeeded,
    Failed,
    /// Asked for (a retry or a test) and not attempted yet.
    Pending,
}

/// One attempt to deliver one event to the endpoint.
#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
#[schema(as = WebhookDelivery)]
pub struct Delivery {
    pub id: Uuid,
    /// The event's id: `webhook-id` of the request, the same on every attempt.
    pub event_id: Uuid,
    #[schema(example = "message.created")]
    pub event_type: String,
    /// From 1.
    pub attempt: i32,
    pub status: DeliveryStatus,
    /// The receiver's HTTP status, if it answered.
    pub response_status: Option<i32>,
    pub latency_ms: Option<i32>,
    /// The first 2 KiB of the receiver's answer.
    pub response_body: Option<String>,
    /// Why it failed: the status, a timeout, a refused address, ...
    pub error: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = WebhookDeliveryPage)]
pub struct DeliveryPage {
    pub deliveries: Vec<Delivery>,
    /// Pass as `cursor` for the next (older) page; null on the last.
    pub next_cursor: Option<String>,
}

/// A delivery asked for by hand.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = WebhookRequested)]
pub struct Requested {
    /// The event's id (`webhook-id`); its attempt appears in the delivery log.
    pub event_id: Uuid,
}

/// The endpoint's delivery log, newest first: requests not attempted yet (`pending`), then
/// every attempt of the last 30 days.
#[utoipa::path(
    get, path = "/api/webhooks/{id}/deliveries", tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Endpoint id"), PageQuery),
    responses(
        (status = 200, description = "A page of the log", body = DeliveryPage),
        OwnerErrors,
    )
)]
pub async fn list(
    mut tenant: Tenant,
    PathId { id, .. }: PathId<Webhook>,
    AppQuery(page): AppQuery<PageQuery>,
) -> Result<AppJson<DeliveryPage>> {
    let page = page.parse::<TimeKey>()?;
    let (conn, schema) = tenant.parts();
    endpoints::find(&mut *conn, schema, id).await?;
    let (before_at, before_id) = page
        .after
        .map_or((None, None), |TimeKey(at, id)| (Some(at), Some(id)));
    let rows: Vec<Delivery> = sqlx::query_as(schema.sql(concat!(
        "SELECT * FROM (
             SELECT a.id, a.event_id, a.event_type, a.attempt, a.status, a.response_status,
                    a.latency_ms, a.response_excerpt AS response_body, a.error, a.created_at
               FROM {schema}.webhook_attempts a WHERE a.endpoint_id = $1
             UNION ALL
             SELECT r.id, r.event_id,
                    coalesce((SELECT e.type FROM {schema}.events e WHERE e.seq = r.event_seq),
                             (SELECT e.type FROM {schema}.events e
                               WHERE e.seq IS NULL AND e.arrival = ",
        supportdesk_core::batched_arrival_at!("r.event_seq"),
        "),
                             'webhook.test'),
                    1, 'pending', NULL, NULL, NULL, NULL, r.created_at
               FROM {schema}.webhook_requests r WHERE r.endpoint_id = $1
         ) d
          WHERE $2::timestamptz IS NULL OR (d.created_at, d.id) < ($2, $3)
          ORDER BY d.created_at DESC, d.id DESC
          LIMIT $4",
    )))
    .bind(id)
    .bind(before_at)
    .bind(before_id)
    .bind(page.fetch())
    .fetch_all(conn)
    .await?;
    let (deliveries, next_cursor) = page.finish(rows, |d| TimeKey(d.created_at, d.id));
    Ok(AppJson(DeliveryPage {
        deliveries,
        next_cursor,
    }))
}

/// Send an earlier delivery's event again (whatever became of it), before the endpoint goes
/// on with newer events.
#[utoipa::path(
    post, path = "/api/webhooks/{id}/deliveries/{deliveryId}/retry", tag = "webhooks",
    security(("bearer" = [])),
    params(
        ("id" = Uuid, Path, description = "Endpoint id"),
        ("deliveryId" = Uuid, Path, description = "A delivery of the endpoint's log"),
    ),
    responses(
        (status = 202, description = "Queued (or already queued); its attempt appears in the log", body = Requested),
        OwnerErrors,
        (status = 410, description = "The event is older than the log keeps (`event_pruned`)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn retry(
    State(state): State<AppState>,
    actor: Actor,
    axum::extract::Path((endpoint, delivery)): axum::extract::Path<(String, String)>,
) -> Result<(StatusCode, AppJson<Requested>)> {
    let PathId { id, .. } = PathId::<Webhook>::parse(&endpoint)?;
    let delivery: Uuid = delivery.parse().map_err(|_| Error::NotFound("delivery"))?;
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    endpoints::find(&mut *conn, schema, id).await?;
    let event: Option<(Uuid, Option<i64>)> = sqlx::query_as(schema.sql(
        "SELECT event_id, event_seq FROM {schema}.webhook_attempts
          WHERE id = $1 AND endpoint_id = $2",
    ))
    .bind(delivery)
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((event_id, event_seq)) = event else {
        // A request not attempted yet is already queued: asking again changes nothing.
        let queued: Option<(Uuid,)> = sqlx::query_as(schema.sql(
            "SELECT event_id FROM {schema}.webhook_requests WHERE id = $1 AND endpoint_id = $2",
        ))
        .bind(delivery)
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
        let (event_id,) = queued.ok_or(Error::NotFound("delivery"))?;
        return Ok((StatusCode::ACCEPTED, AppJson(Requested { event_id })));
    };
    if let Some(seq) = event_seq {
        let kept: Option<(i64,)> = sqlx::query_as(schema.sql(concat!(
            "SELECT seq FROM ",
            supportdesk_core::numbered_events!(),
            " e"
        )))
        .bind(seq - 1)
        .bind(seq)
        .fetch_optional(&mut *conn)
        .await?;
        if kept.is_none() {
            return Err(Error::Gone {
                code: "event_pruned",
                detail: "the event is older than the log keeps (30 days) and cannot be sent again"
                    .to_owned(),
            });
        }
    }
    request(&mut *conn, schema, id, event_seq, event_id).await?;
    tenant.commit().await?;
    Ok((StatusCode::ACCEPTED, AppJson(Requested { event_id })))
}

/// Send a `webhook.test` event to the endpoint now (enabled or not), to check the receiver
/// and its signature verification.
#[utoipa::path(
    post, path = "/api/webhooks/{id}/test", tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Endpoint id")),
    responses(
        (status = 202, description = "Queued; its attempt appears in the log", body = Requested),
        OwnerErrors,
    )
)]
pub async fn test(
    State(state): State<AppState>,
    actor: Actor,
    PathId { id, .. }: PathId<Webhook>,
) -> Result<(StatusCode, AppJson<Requested>)> {
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    endpoints::find(&mut *conn, schema, id).await?;
    let event_id = Uuid::now_v7();
    request(&mut *conn, schema, id, None, event_id).await?;
    tenant.commit().await?;
    Ok((StatusCode::ACCEPTED, AppJson(Requested { event_id })))
}

async fn request(
    conn: &mut sqlx::PgConnection,
    schema: &supportdesk_core::tenancy::TenantSchema,
    endpoint: Uuid,
    event_seq: Option<i64>,
    event_id: Uuid,
) -> Result<()> {
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.webhook_requests (id, endpoint_id, event_seq, event_id)
         VALUES ($1, $2, $3, $4)",
    ))
    .bind(Uuid::now_v7())
    .bind(endpoint)
    .bind(event_seq)
    .bind(event_id)
    .execute(&mut *conn)
    .await?;
    // Wakes the worker's delivery loop at once (it also looks every few seconds).
    sqlx::query("SELECT pg_notify('webhook_requests', '')")
        .execute(conn)
        .await?;
    Ok(())
}
