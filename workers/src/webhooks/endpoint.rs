//! Delivering to one endpoint while this worker holds its lease: first the deliveries asked
//! for by hand (a retry, a test), then the events after its place in the log, one at a time
//! in `seq` order, until it is caught up or an attempt fails (the next waits for the retry
//! schedule). Its place moves only when an event is delivered, skipped (a type it does not
//! want) or given up after the last attempt: a worker killed mid-delivery loses nothing, and a
//! receiver sees an event twice at most, with the same `webhook-id` to drop it by.

use std::time::Duration;

use sqlx::PgConnection;
use supportdesk_core::outbox::{self, OutboxMessage};
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use uuid::Uuid;

use super::Webhooks;
use super::http::{Answer, Request};

/// Waits after the first, second, ... failed attempt at an event (Standard Webhooks' own
/// schedule): eight attempts over about 28 hours.
pub const SCHEDULE: [Duration; 7] = [
    Duration::from_secs(5),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 3600),
    Duration::from_secs(5 * 3600),
    Duration::from_secs(10 * 3600),
    Duration::from_secs(10 * 3600),
];
/// An endpoint whose every attempt failed for this long is disabled, and its Owners told.
pub const GIVE_UP_AFTER: time::Duration = time::Duration::days(5);
/// How long a lease lasts without renewal; renewed before each delivery (each bounded by the
/// 15 s timeout), so a dead worker's endpoints are taken over within 30 s.
pub const LEASE: Duration = Duration::from_secs(30);
/// Events read from the log at a time.
const BATCH: i64 = 50;
/// How long one pass delivers before it gives its slot back (and is woken again, behind the
/// endpoints that waited): a receiver that answers slowly, but in time, holds one slot for a
/// while, never all of them for as long as it has a backlog.
const PASS_BUDGET: Duration = Duration::from_secs(10);

#[derive(sqlx::FromRow)]
struct Endpoint {
    url: String,
    event_types: Vec<String>,
    enabled: bool,
    secret_sealed: Vec<u8>,
    previous_secret_sealed: Option<Vec<u8>>,
    previous_until: Option<OffsetDateTime>,
    cursor: i64,
    attempt: i32,
    next_attempt_at: Option<OffsetDateTime>,
    failing_since: Option<OffsetDateTime>,
}

impl Endpoint {
    fn wants(&self, event_type: &str) -> bool {
        self.event_types.iter().any(|t| t == "*" || t == event_type)
    }
}

#[derive(sqlx::FromRow)]
struct Event {
    seq: i64,
    id: Uuid,
    r#type: String,
    occurred_at: OffsetDateTime,
    data: String,
}

#[derive(sqlx::FromRow)]
struct Requested {
    id: Uuid,
    event_seq: Option<i64>,
    event_id: Uuid,
}

/// What one pass left behind.
pub enum Pass {
    /// Caught up, waiting for a retry, disabled, or out of its [`PASS_BUDGET`]: the lease
    /// may go (and the workspace is looked at again).
    Done,
    /// The lease was lost (taken over after it lapsed): stop at once.
    Lost,
}

impl Webhooks {
    /// Delivers to endpoint `id` of `workspace_id` while this worker holds its lease.
    pub(super) async fn deliver(
        &self,
        workspace_id: Uuid,
        schema: &TenantSchema,
        id: Uuid,
    ) -> anyhow::Result<Pass> {
        let started = std::time::Instant::now();
        loop {
            if started.elapsed() >= PASS_BUDGET {
                return Ok(Pass::Done);
            }
            let mut conn = self.db.acquire().await?;
            if !self.renew(&mut conn, schema, id).await? {
                return Ok(Pass::Lost);
            }
            let endpoint: Option<Endpoint> = sqlx::query_as(schema.sql(
                "SELECT url, event_types, enabled, secret_sealed, previous_secret_sealed,
                        previous_until, cursor, attempt, next_attempt_at, failing_since
                   FROM {schema}.webhook_endpoints WHERE id = $1",
            ))
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
            let Some(endpoint) = endpoint else {
                return Ok(Pass::Done);
            };
            let secrets = match self.secrets(&endpoint) {
                Ok(secrets) => secrets,
                Err(e) => {
                    tracing::error!(%workspace_id, endpoint = %id, error = %e, "a webhook secret cannot be opened");
                    sqlx::query(schema.sql(
                        "UPDATE {schema}.webhook_endpoints
                            SET enabled = false, updated_at = now(),
                                disabled_reason = 'its signing secret cannot be read (EMAIL_TOKEN_SECRET changed?): rotate the secret, then enable it'
                          WHERE id = $1",
                    ))
                    .bind(id)
                    .execute(&mut *conn)
                    .await?;
                    sqlx::query(
                        schema.sql("DELETE FROM {schema}.webhook_requests WHERE endpoint_id = $1"),
                    )
                    .bind(id)
                    .execute(&mut *conn)
                    .await?;
                    return Ok(Pass::Done);
                }
            };

            // Deliveries asked for by hand go first, enabled or not.
            let requested: Option<Requested> = sqlx::query_as(schema.sql(
                "SELECT id, event_seq, event_id FROM {schema}.webhook_requests
                  WHERE endpoint_id = $1 ORDER BY created_at, id LIMIT 1",
            ))
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
            if let Some(requested) = requested {
                let event = match requested.event_seq {
                    Some(seq) => match read_event(&mut conn, schema, seq).await? {
                        Some(event) => Some(event),
                        None => {
                            // Pruned since it was asked for: nothing is sent (a test event
                            // under its id would make the receiver drop the real one).
                            tracing::info!(%workspace_id, endpoint = %id, seq, "a redelivery asked for an event no longer kept");
                            sqlx::query(
                                schema.sql("DELETE FROM {schema}.webhook_requests WHERE id = $1"),
                            )
                            .bind(requested.id)
                            .execute(&mut *conn)
                            .await?;
                            continue;
                        }
                    },
                    None => None,
                };
                let (event_type, body) = match &event {
                    Some(event) => (event.r#type.clone(), body_of(event)),
                    None => {
                        let now = OffsetDateTime::now_utc();
                        let data = serde_json::json!({ "webhookId": id }).to_string();
                        let test = Event {
                            seq: 0,
                            id: requested.event_id,
                            r#type: "webhook.test".to_owned(),
                            occurred_at: now,
                            data,
                        };
                        (test.r#type.clone(), body_of(&test))
                    }
                };
                drop(conn);
                let answer = self
                    .send(&endpoint.url, requested.event_id, body, &secrets)
                    .await;
                let mut conn = self.db.acquire().await?;
                let (previous,): (i32,) = sqlx::query_as(schema.sql(
                    "SELECT coalesce(max(attempt), 0) FROM {schema}.webhook_attempts
                      WHERE endpoint_id = $1 AND event_id = $2",
                ))
                .bind(id)
                .bind(requested.event_id)
                .fetch_one(&mut *conn)
                .await?;
                let seq = event.as_ref().map(|e| e.seq);
                let mut tx = sqlx::Connection::begin(&mut *conn).await?;
                log_attempt(
                    &mut tx,
                    schema,
                    id,
                    requested.event_id,
                    seq,
                    &event_type,
                    previous + 1,
                    &answer,
                )
                .await?;
                sqlx::query(schema.sql("DELETE FROM {schema}.webhook_requests WHERE id = $1"))
                    .bind(requested.id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                continue;
            }

            if !endpoint.enabled
                || endpoint
                    .next_attempt_at
                    .is_some_and(|at| at > OffsetDateTime::now_utc())
            {
                return Ok(Pass::Done);
            }
            let events: Vec<Event> = sqlx::query_as(schema.sql(concat!(
                "SELECT seq, id, type, occurred_at, data::text AS data FROM ",
                supportdesk_core::numbered_events!(),
                " e ORDER BY seq"
            )))
            .bind(endpoint.cursor)
            .bind(endpoint.cursor + BATCH)
            .fetch_all(&mut *conn)
            .await?;
            // Types it does not want are passed over at once.
            let Some(next) = events.iter().position(|e| endpoint.wants(&e.r#type)) else {
                match events.last() {
                    Some(last) => {
                        self.advance(&mut conn, schema, id, last.seq).await?;
                        continue;
                    }
                    None => return Ok(Pass::Done),
                }
            };
            if next > 0 {
                self.advance(&mut conn, schema, id, events[next - 1].seq)
                    .await?;
            }
            let event = &events[next];
            drop(conn);
            let answer = self
                .send(&endpoint.url, event.id, body_of(event), &secrets)
                .await;
            let attempt = endpoint.attempt + 1;
            let mut conn = self.db.acquire().await?;
            let mut tx = sqlx::Connection::begin(&mut *conn).await?;
            log_attempt(
                &mut tx,
                schema,
                id,
                event.id,
                Some(event.seq),
                &event.r#type,
                attempt,
                &answer,
            )
            .await?;
            // Each write below holds only while this worker still has the lease: one that
            // lost it (a stall past the lease) logs its attempt and stops, and the place the
            // new holder moved on to is never moved back.
            if answer.succeeded() {
                let updated = sqlx::query(schema.sql(
                    "UPDATE {schema}.webhook_endpoints
                        SET cursor = greatest(cursor, $2), attempt = 0, next_attempt_at = NULL,
                            failing_since = NULL, last_error = NULL
                      WHERE id = $1 AND lease_owner = $3",
                ))
                .bind(id)
                .bind(event.seq)
                .bind(self.owner)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                tx.commit().await?;
                if updated == 0 {
                    return Ok(Pass::Lost);
                }
                let lag = (OffsetDateTime::now_utc() - event.occurred_at).as_seconds_f64();
                metrics::histogram!("webhook_delivery_lag_seconds").record(lag.max(0.0));
                continue;
            }
            let error = answer.error.clone().unwrap_or_default();
            let now = OffsetDateTime::now_utc();
            let failing_since = endpoint.failing_since.unwrap_or(now);
            let disable = if answer.status == Some(410) {
                Some("the receiver answered 410 Gone".to_owned())
            } else if now - failing_since >= GIVE_UP_AFTER {
                Some(format!(
                    "every delivery failed for {} days (last: {error})",
                    GIVE_UP_AFTER.whole_days()
                ))
            } else {
                None
            };
            if let Some(reason) = &disable {
                let updated = sqlx::query(schema.sql(
                    "UPDATE {schema}.webhook_endpoints
                        SET enabled = false, disabled_reason = $2, attempt = 0,
                            next_attempt_at = NULL, failing_since = $3, last_error = $4,
                            updated_at = now()
                      WHERE id = $1 AND lease_owner = $5",
                ))
                .bind(id)
                .bind(reason)
                .bind(failing_since)
                .bind(&error)
                .bind(self.owner)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if updated == 0 {
                    tx.commit().await?;
                    return Ok(Pass::Lost);
                }
                tell_owners(&mut tx, workspace_id, id).await?;
                tx.commit().await?;
                tracing::warn!(%workspace_id, endpoint = %id, reason, "webhook endpoint disabled");
                return Ok(Pass::Done);
            }
            // The last attempt at this event: given up, and the endpoint goes on.
            let (cursor, attempt, next_at) = match SCHEDULE.get(endpoint.attempt as usize) {
                Some(wait) => {
                    let wait = retry_wait(*wait, &answer);
                    (endpoint.cursor, attempt, Some(now + wait))
                }
                None => (event.seq, 0, None),
            };
            let updated = sqlx::query(schema.sql(
                "UPDATE {schema}.webhook_endpoints
                    SET cursor = greatest(cursor, $2), attempt = $3, next_attempt_at = $4,
                        failing_since = $5, last_error = $6
                  WHERE id = $1 AND lease_owner = $7",
            ))
            .bind(id)
            .bind(cursor)
            .bind(attempt)
            .bind(next_at)
            .bind(failing_since)
            .bind(&error)
            .bind(self.owner)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            tx.commit().await?;
            if updated == 0 {
                return Ok(Pass::Lost);
            }
            if next_at.is_some() {
                return Ok(Pass::Done);
            }
        }
    }

    /// The secrets that sign now: the current one, and the previous one while its overlap
    /// lasts.
    fn secrets(&self, endpoint: &Endpoint) -> anyhow::Result<Vec<Vec<u8>>> {
        let mut secrets = vec![self.key.open_bytes(&endpoint.secret_sealed)?];
        if let (Some(previous), Some(until)) =
            (&endpoint.previous_secret_sealed, endpoint.previous_until)
            && until > OffsetDateTime::now_utc()
        {
            secrets.push(self.key.open_bytes(previous)?);
        }
        Ok(secrets)
    }

    async fn send(&self, url: &str, event_id: Uuid, body: String, secrets: &[Vec<u8>]) -> Answer {
        let event_id = event_id.to_string();
        // `webhook-timestamp` is the time of sending: receivers refuse timestamps far from
        // their clock, and a retry hours later must still pass. The body keeps the event's.
        let answer = self
            .sender
            .send(Request {
                url,
                event_id: &event_id,
                timestamp: OffsetDateTime::now_utc().unix_timestamp(),
                body,
                secrets,
            })
            .await;
        let outcome = if answer.succeeded() {
            "succeeded"
        } else {
            "failed"
        };
        metrics::counter!("webhook_attempts_total", "outcome" => outcome).increment(1);
        metrics::histogram!("webhook_attempt_duration_seconds")
            .record(answer.latency.as_secs_f64());
        answer
    }

    async fn renew(
        &self,
        conn: &mut PgConnection,
        schema: &TenantSchema,
        id: Uuid,
    ) -> sqlx::Result<bool> {
        let renewed = sqlx::query(schema.sql(
            "UPDATE {schema}.webhook_endpoints SET lease_until = now() + $3
              WHERE id = $1 AND lease_owner = $2",
        ))
        .bind(id)
        .bind(self.owner)
        .bind(LEASE)
        .execute(conn)
        .await?
        .rows_affected();
        Ok(renewed > 0)
    }

    async fn advance(
        &self,
        conn: &mut PgConnection,
        schema: &TenantSchema,
        id: Uuid,
        seq: i64,
    ) -> sqlx::Result<()> {
        sqlx::query(schema.sql(
            "UPDATE {schema}.webhook_endpoints SET cursor = greatest(cursor, $2) WHERE id = $1",
        ))
        .bind(id)
        .bind(seq)
        .execute(conn)
        .await?;
        Ok(())
    }
}

/// The schedule's wait, ±10 % so endpoints that failed together do not retry together, or
/// the receiver's `Retry-After` (on 429 and 503) when it asks for longer.
fn retry_wait(scheduled: Duration, answer: &Answer) -> Duration {
    let jitter = 0.9 + rand::random::<f64>() * 0.2;
    let scheduled = scheduled.mul_f64(jitter);
    match (answer.status, answer.retry_after) {
        (Some(429 | 503), Some(asked)) => asked.min(Duration::from_secs(10 * 3600)).max(scheduled),
        _ => scheduled,
    }
}

/// The delivered body: `{"type", "timestamp", "data"}`, `data` the resource as the REST API
/// shows it, kept as the log wrote it.
fn body_of(event: &Event) -> String {
    let timestamp = event
        .occurred_at
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    format!(
        r#"{{"type":{},"timestamp":{},"data":{}}}"#,
        serde_json::Value::String(event.r#type.clone()),
        serde_json::Value::String(timestamp),
        event.data
    )
}

async fn read_event(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    seq: i64,
) -> sqlx::Result<Option<Event>> {
    sqlx::query_as(schema.sql(concat!(
        "SELECT seq, id, type, occurred_at, data::text AS data FROM ",
        supportdesk_core::numbered_events!(),
        " e"
    )))
    .bind(seq - 1)
    .bind(seq)
    .fetch_optional(conn)
    .await
}

#[allow(clippy::too_many_arguments, reason = "one row's columns")]
async fn log_attempt(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    endpoint: Uuid,
    event_id: Uuid,
    event_seq: Option<i64>,
    event_type: &str,
    attempt: i32,
    answer: &Answer,
) -> sqlx::Result<()> {
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.webhook_attempts
                (id, endpoint_id, event_id, event_seq, event_type, attempt, status,
                 response_status, latency_ms, response_excerpt, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    ))
    .bind(Uuid::now_v7())
    .bind(endpoint)
    .bind(event_id)
    .bind(event_seq)
    .bind(event_type)
    .bind(attempt)
    .bind(if answer.succeeded() {
        "succeeded"
    } else {
        "failed"
    })
    .bind(answer.status.map(i32::from))
    .bind(i32::try_from(answer.latency.as_millis()).unwrap_or(i32::MAX))
    .bind(&answer.excerpt)
    .bind(&answer.error)
    .execute(conn)
    .await?;
    Ok(())
}

/// An email to each active Owner: the product disabled one of their endpoints.
async fn tell_owners(
    conn: &mut PgConnection,
    workspace_id: Uuid,
    endpoint: Uuid,
) -> sqlx::Result<()> {
    let owners: Vec<(Uuid,)> = sqlx::query_as(
        "SELECT user_id FROM public.memberships
          WHERE workspace_id = $1 AND role = 'admin' AND status = 'active'",
    )
    .bind(workspace_id)
    .fetch_all(&mut *conn)
    .await?;
    for (user_id,) in owners {
        outbox::enqueue(
            &mut *conn,
            &OutboxMessage::WebhookDisabledEmail {
                workspace_id,
                endpoint_id: endpoint,
                user_id,
            },
        )
        .await?;
    }
    Ok(())
}
