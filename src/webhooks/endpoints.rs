//! `/api/webhooks`: the workspace's endpoints (Owners and API keys): the URL, which event
//! types, enabled or not, and how delivery to it goes (`state`). The signing secret is shown
//! once, when the endpoint is made or its secret rotated; at rest it is sealed.

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::PgConnection;
use supportdesk_core::sealed_credentials::CredentialKey;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::webhooks::guard::AddressGuard;
use supportdesk_core::webhooks::secret;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::{self, Action, By, Entry};
use crate::authz::Actor;
use crate::error::responses::OwnerErrors;
use crate::error::{Error, FieldChecks, Problem, Result};
use crate::events::catalogue::DomainEvent;
use crate::extract::{AppJson, ClientIp, PathId, Resource};
use crate::state::AppState;
use crate::tenancy::context::{Tenant, TenantTx};

/// Endpoints a workspace may have.
pub const MAX_ENDPOINTS: i64 = 20;
const DESCRIPTION_MAX_CHARS: usize = 500;
const URL_MAX_CHARS: usize = 2000;
/// How long a rotated-out secret keeps signing beside the new one.
const ROTATION_OVERLAP: time::Duration = time::Duration::hours(24);
/// The event type of a test delivery.
pub const TEST_EVENT: &str = "webhook.test";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum WebhookState {
    /// Enabled, and the last delivery (if any) succeeded.
    Healthy,
    /// Enabled, and failing since `failingSince` (retried on the schedule).
    Failing,
    /// Not delivered to: turned off by an Owner, or by the product (`disabledReason`).
    Disabled,
}

/// An endpoint as listed: never its secret.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    pub id: Uuid,
    #[schema(example = "https://hooks.example.com/support")]
    pub url: String,
    pub description: String,
    /// Event types it receives (`conversation.created`, ...), or `["*"]` for all.
    pub event_types: Vec<String>,
    pub enabled: bool,
    pub state: WebhookState,
    /// Why the product turned it off (a 410 answer, five days of failures).
    pub disabled_reason: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub failing_since: Option<OffsetDateTime>,
    /// The last failed attempt's error.
    pub last_error: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

impl Resource for Webhook {
    const NAME: &'static str = "webhook";
}

#[derive(sqlx::FromRow)]
struct Row {
    id: Uuid,
    url: String,
    description: String,
    event_types: Vec<String>,
    enabled: bool,
    disabled_reason: Option<String>,
    failing_since: Option<OffsetDateTime>,
    last_error: Option<String>,
    created_at: OffsetDateTime,
}

const COLUMNS: &str = "id, url, description, event_types, enabled, disabled_reason, \
                       failing_since, last_error, created_at";

impl From<Row> for Webhook {
    fn from(row: Row) -> Self {
        let state = if !row.enabled {
            WebhookState::Disabled
        } else if row.failing_since.is_some() {
            WebhookState::Failing
        } else {
            WebhookState::Healthy
        };
        Self {
            id: row.id,
            url: row.url,
            description: row.description,
            event_types: row.event_types,
            enabled: row.enabled,
            state,
            disabled_reason: row.disabled_reason,
            failing_since: row.failing_since,
            last_error: row.last_error,
            created_at: row.created_at,
        }
    }
}

/// An endpoint with its signing secret, returned once.
#[derive(Serialize, ToSchema)]
pub struct WebhookWithSecret {
    #[serde(flatten)]
    pub webhook: Webhook,
    /// `whsec_...`: the Standard Webhooks secret to verify signatures with. Shown only now.
    #[schema(example = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")]
    pub secret: String,
}

#[derive(Serialize, ToSchema)]
pub struct WebhookList {
    pub webhooks: Vec<Webhook>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateWebhook {
    /// `https://` (plain `http://` only where the operator allows it).
    url: String,
    description: Option<String>,
    /// Event types from the event log's catalogue, or `["*"]` for all.
    #[schema(example = json!(["conversation.created", "message.created"]))]
    event_types: Vec<String>,
    /// Default true.
    enabled: Option<bool>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateWebhook {
    url: Option<String>,
    description: Option<String>,
    event_types: Option<Vec<String>>,
    /// Enabling again clears a failure and a reason the product gave for disabling it.
    enabled: Option<bool>,
}

#[derive(Serialize, ToSchema)]
pub struct RotatedSecret {
    /// The new secret; the previous one keeps signing beside it for 24 hours.
    pub secret: String,
}

/// Checks an endpoint URL: absolute, https (http where allowed), no credentials, and not an
/// address the guard refuses when it is written as one.
fn check_url(state: &AppState, raw: &str, checks: &mut FieldChecks) -> Option<String> {
    let raw = raw.trim();
    if raw.chars().count() > URL_MAX_CHARS {
        checks.add("url", format!("must be at most {URL_MAX_CHARS} characters"));
        return None;
    }
    let Ok(url) = url::Url::parse(raw) else {
        checks.add("url", "must be an absolute URL");
        return None;
    };
    let settings = &state.settings.webhooks;
    match url.scheme() {
        "https" => {}
        "http" if settings.allow_http => {}
        "http" => {
            checks.add("url", "must use https");
            return None;
        }
        _ => {
            checks.add("url", "must be an https URL");
            return None;
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        checks.add("url", "must not carry credentials");
        return None;
    }
    if url.host().is_none() {
        checks.add("url", "must name a host");
        return None;
    }
    let guard = AddressGuard::new(settings.allowed_private_ranges.clone());
    if let Some(reason) = guard.url_refusal(&url) {
        checks.add("url", format!("must not point at {reason}"));
        return None;
    }
    Some(url.to_string())
}

fn check_types(types: Vec<String>, checks: &mut FieldChecks) -> Option<Vec<String>> {
    if types.is_empty() {
        checks.add("eventTypes", "needs at least one type, or \"*\" for all");
        return None;
    }
    if types.iter().any(|t| t == "*") {
        return Some(vec!["*".to_owned()]);
    }
    let mut checked: Vec<String> = Vec::with_capacity(types.len());
    for t in types {
        if !DomainEvent::TYPES.contains(&t.as_str()) {
            checks.add(
                "eventTypes",
                format!(
                    "{t:?} is not an event type; one of {:?} or \"*\"",
                    DomainEvent::TYPES
                ),
            );
            return None;
        }
        if !checked.contains(&t) {
            checked.push(t);
        }
    }
    Some(checked)
}

fn check_description(description: Option<String>, checks: &mut FieldChecks) -> Option<String> {
    let description = description.unwrap_or_default().trim().to_owned();
    if description.chars().count() > DESCRIPTION_MAX_CHARS {
        checks.add(
            "description",
            format!("must be at most {DESCRIPTION_MAX_CHARS} characters"),
        );
        return None;
    }
    Some(description)
}

/// The key endpoint secrets are sealed with (from `EMAIL_TOKEN_SECRET`, which the worker, who
/// signs, holds too).
fn key(state: &AppState) -> CredentialKey {
    CredentialKey::for_webhooks(&state.settings.email.token_secret)
}

/// Keeps the control plane's list of workspaces with endpoints, which the worker visits.
async fn count_endpoints(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    workspace_id: Uuid,
) -> Result<()> {
    let (count,): (i64,) =
        sqlx::query_as(schema.sql("SELECT count(*) FROM {schema}.webhook_endpoints"))
            .fetch_one(&mut *conn)
            .await?;
    if count == 0 {
        sqlx::query("DELETE FROM public.webhook_workspaces WHERE workspace_id = $1")
            .bind(workspace_id)
            .execute(&mut *conn)
            .await?;
    } else {
        sqlx::query(
            "INSERT INTO public.webhook_workspaces (workspace_id, endpoints) VALUES ($1, $2)
             ON CONFLICT (workspace_id)
             DO UPDATE SET endpoints = excluded.endpoints, updated_at = now()",
        )
        .bind(workspace_id)
        .bind(i32::try_from(count).unwrap_or(i32::MAX))
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

pub(super) async fn find(
    conn: &mut PgConnection,
    schema: &TenantSchema,
    id: Uuid,
) -> Result<Webhook> {
    let row: Option<Row> = sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.webhook_endpoints WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(conn)
    .await?;
    row.map(Webhook::from).ok_or(Error::NotFound(Webhook::NAME))
}

/// The workspace's webhook endpoints (never their secrets).
#[utoipa::path(
    get, path = "/api/webhooks", tag = "webhooks",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The endpoints, oldest first", body = WebhookList),
        OwnerErrors,
    )
)]
pub async fn list(mut tenant: Tenant) -> Result<AppJson<WebhookList>> {
    let (conn, schema) = tenant.parts();
    let rows: Vec<Row> = sqlx::query_as(schema.sql(&format!(
        "SELECT {COLUMNS} FROM {{schema}}.webhook_endpoints ORDER BY created_at, id"
    )))
    .fetch_all(conn)
    .await?;
    Ok(AppJson(WebhookList {
        webhooks: rows.into_iter().map(Webhook::from).collect(),
    }))
}

/// Add an endpoint. It receives the events recorded from now on; its secret is in the
/// response and nowhere else.
#[utoipa::path(
    post, path = "/api/webhooks", tag = "webhooks",
    security(("bearer" = [])),
    request_body = CreateWebhook,
    responses(
        (status = 201, description = "Created; `secret` is shown this once", body = WebhookWithSecret),
        OwnerErrors,
        (status = 409, description = "The workspace has 20 endpoints already", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    AppJson(request): AppJson<CreateWebhook>,
) -> Result<(StatusCode, AppJson<WebhookWithSecret>)> {
    let mut checks = FieldChecks::default();
    let url = check_url(&state, &request.url, &mut checks);
    let description = check_description(request.description, &mut checks);
    let event_types = check_types(request.event_types, &mut checks);
    let (Some(url), Some(description), Some(event_types)) = (url, description, event_types) else {
        return Err(checks.failed());
    };
    let bytes = secret::generate();
    let sealed = key(&state).seal_bytes(&bytes);
    let workspace_id = actor.workspace_id;
    let by = By::from(&actor);
    // Events committed before this request that still wait for their numbers get them (and
    // reach the hub) first, so the head read below is past them: an endpoint hears what
    // happens after it was made, never what happened before (`events::log::number_waiting`).
    state.events.settle(workspace_id, &actor.schema).await;
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    // Serialises endpoint creation per workspace, so the bound holds under concurrent requests.
    sqlx::query(schema.sql("SELECT 1 FROM {schema}.event_log_head FOR UPDATE"))
        .execute(&mut *conn)
        .await?;
    let (count,): (i64,) =
        sqlx::query_as(schema.sql("SELECT count(*) FROM {schema}.webhook_endpoints"))
            .fetch_one(&mut *conn)
            .await?;
    if count >= MAX_ENDPOINTS {
        return Err(Error::conflict(
            "webhook_limit",
            format!(
                "a workspace may have at most {MAX_ENDPOINTS} webhook endpoints; delete one first"
            ),
        ));
    }
    let id = Uuid::now_v7();
    // The log's head now: the endpoint hears what happens from here on. (Read apart: an
    // `INSERT ... SELECT` over the tenant's tables into one with a `now()` default is a plan
    // Citus 13.2 deparses wrongly.)
    let head: i64 = sqlx::query_scalar(schema.sql("SELECT seq FROM {schema}.event_log_head"))
        .fetch_one(&mut *conn)
        .await?;
    sqlx::query(schema.sql(
        "INSERT INTO {schema}.webhook_endpoints
                (id, url, description, event_types, enabled, secret_sealed, cursor)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    ))
    .bind(id)
    .bind(&url)
    .bind(&description)
    .bind(&event_types)
    .bind(request.enabled.unwrap_or(true))
    .bind(&sealed)
    .bind(head)
    .execute(&mut *conn)
    .await?;
    count_endpoints(&mut *conn, schema, workspace_id).await?;
    let webhook = find(&mut *conn, schema, id).await?;
    let entry = Entry::new(by, Some(client), Action::WebhookCreated, "webhook", id).changes(
        json!({ "url": webhook.url, "eventTypes": webhook.event_types, "enabled": webhook.enabled }),
    );
    audit::record(&mut *conn, schema, entry).await?;
    tenant.commit().await?;
    Ok((
        StatusCode::CREATED,
        AppJson(WebhookWithSecret {
            webhook,
            secret: secret::shown(&bytes),
        }),
    ))
}

/// One endpoint.
#[utoipa::path(
    get, path = "/api/webhooks/{id}", tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Endpoint id")),
    responses(
        (status = 200, description = "The endpoint", body = Webhook),
        OwnerErrors,
    )
)]
pub async fn get(
    mut tenant: Tenant,
    PathId { id, .. }: PathId<Webhook>,
) -> Result<AppJson<Webhook>> {
    let (conn, schema) = tenant.parts();
    Ok(AppJson(find(conn, schema, id).await?))
}

/// Change an endpoint; what is left out stays. Enabling it again clears its failure.
#[utoipa::path(
    patch, path = "/api/webhooks/{id}", tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Endpoint id")),
    request_body = UpdateWebhook,
    responses(
        (status = 200, description = "The updated endpoint", body = Webhook),
        OwnerErrors,
    )
)]
pub async fn update(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    PathId { id, .. }: PathId<Webhook>,
    AppJson(request): AppJson<UpdateWebhook>,
) -> Result<AppJson<Webhook>> {
    let mut checks = FieldChecks::default();
    let url = request.url.map(|url| check_url(&state, &url, &mut checks));
    let description = request
        .description
        .map(|d| check_description(Some(d), &mut checks));
    let event_types = request.event_types.map(|t| check_types(t, &mut checks));
    if !checks.is_empty() {
        return Err(checks.failed());
    }
    let by = By::from(&actor);
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    let before = find(&mut *conn, schema, id).await?;
    let changed = sqlx::query(schema.sql(
        "UPDATE {schema}.webhook_endpoints
            SET url = coalesce($2, url), description = coalesce($3, description),
                event_types = coalesce($4, event_types), enabled = coalesce($5, enabled),
                disabled_reason = CASE WHEN $5 IS NULL THEN disabled_reason END,
                failing_since = CASE WHEN $5 THEN NULL ELSE failing_since END,
                attempt = CASE WHEN $5 THEN 0 ELSE attempt END,
                next_attempt_at = CASE WHEN $5 THEN NULL ELSE next_attempt_at END,
                updated_at = now()
          WHERE id = $1",
    ))
    .bind(id)
    .bind(url.flatten())
    .bind(description.flatten())
    .bind(event_types.flatten())
    .bind(request.enabled)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if changed == 0 {
        return Err(Error::NotFound(Webhook::NAME));
    }
    let webhook = find(&mut *conn, schema, id).await?;
    let changes = audit::diff(&[
        ("url", json!(before.url), json!(webhook.url)),
        (
            "description",
            json!(before.description),
            json!(webhook.description),
        ),
        (
            "eventTypes",
            json!(before.event_types),
            json!(webhook.event_types),
        ),
        ("enabled", json!(before.enabled), json!(webhook.enabled)),
    ]);
    if changes.as_object().is_some_and(|c| !c.is_empty()) {
        let entry =
            Entry::new(by, Some(client), Action::WebhookChanged, "webhook", id).changes(changes);
        audit::record(&mut *conn, schema, entry).await?;
    }
    tenant.commit().await?;
    Ok(AppJson(webhook))
}

/// Delete an endpoint and its delivery log.
#[utoipa::path(
    delete, path = "/api/webhooks/{id}", tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Endpoint id")),
    responses(
        (status = 204, description = "Deleted"),
        OwnerErrors,
    )
)]
pub async fn delete(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    PathId { id, .. }: PathId<Webhook>,
) -> Result<StatusCode> {
    let workspace_id = actor.workspace_id;
    let by = By::from(&actor);
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    let deleted: Option<String> = sqlx::query_scalar(
        schema.sql("DELETE FROM {schema}.webhook_endpoints WHERE id = $1 RETURNING url"),
    )
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(url) = deleted else {
        return Err(Error::NotFound(Webhook::NAME));
    };
    count_endpoints(&mut *conn, schema, workspace_id).await?;
    let entry = Entry::new(by, Some(client), Action::WebhookDeleted, "webhook", id)
        .changes(json!({ "url": url }));
    audit::record(&mut *conn, schema, entry).await?;
    tenant.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A new signing secret; the previous one keeps signing beside it (two signatures) for 24
/// hours, so receivers can switch without losing a delivery.
#[utoipa::path(
    post, path = "/api/webhooks/{id}/rotate-secret", tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Endpoint id")),
    responses(
        (status = 200, description = "The new secret, shown this once", body = RotatedSecret),
        OwnerErrors,
    )
)]
pub async fn rotate(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    PathId { id, .. }: PathId<Webhook>,
) -> Result<AppJson<RotatedSecret>> {
    let bytes = secret::generate();
    let sealed = key(&state).seal_bytes(&bytes);
    let by = By::from(&actor);
    let mut tenant = TenantTx::begin(&state, actor).await?;
    let (conn, schema) = tenant.parts();
    let rotated = sqlx::query(schema.sql(
        "UPDATE {schema}.webhook_endpoints
            SET previous_secret_sealed = secret_sealed, previous_until = now() + $3,
                secret_sealed = $2, updated_at = now()
          WHERE id = $1",
    ))
    .bind(id)
    .bind(&sealed)
    .bind(ROTATION_OVERLAP)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if rotated == 0 {
        return Err(Error::NotFound(Webhook::NAME));
    }
    let entry = Entry::new(
        by,
        Some(client),
        Action::WebhookSecretRotated,
        "webhook",
        id,
    );
    audit::record(&mut *conn, schema, entry).await?;
    tenant.commit().await?;
    Ok(AppJson(RotatedSecret {
        secret: secret::shown(&bytes),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_types_are_the_catalogues_or_all() {
        let mut checks = FieldChecks::default();
        assert_eq!(
            check_types(vec!["*".into(), "message.created".into()], &mut checks),
            Some(vec!["*".to_owned()])
        );
        assert_eq!(
            check_types(
                vec!["message.created".into(), "message.created".into()],
                &mut checks
            ),
            Some(vec!["message.created".to_owned()])
        );
        assert!(checks.is_empty());
        assert_eq!(check_types(vec!["message.sent".into()], &mut checks), None);
        assert_eq!(check_types(Vec::new(), &mut checks), None);
        assert!(!checks.is_empty());
    }
}
