//! `/api/settings/api-keys` (Owners): create, list, regenerate and revoke secret API keys.
//!
//! The 401 and 403 of the Owners' rule are in `OwnerErrors`; 400, 404 and the rest of what
//! every route shares in `crate::openapi`.

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::{self, Action, Entry};
use crate::authz::Actor;
use crate::credentials::api_key::ApiKeySecret;
use crate::error::responses::OwnerErrors;
use crate::error::{Error, Problem, Result};
use crate::extract::{AppJson, ClientIp, PathId, Resource};
use crate::state::AppState;

const NAME_MAX_CHARS: usize = 100;
/// Keys are for a handful of integrations; a bound keeps a leaked Owner token from minting
/// an unbounded number of them.
const MAX_KEYS_PER_WORKSPACE: i64 = 25;

/// An API key as listed: never its secret.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiKey {
    pub id: Uuid,
    pub name: String,
    /// The key's first characters, to tell keys apart (`sdk_` and 8 more).
    #[schema(example = "sdk_4fQ9xB2k")]
    pub prefix: String,
    /// The member who created it.
    pub created_by: Option<Uuid>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub regenerated_at: Option<OffsetDateTime>,
    /// Updated at most about once a minute.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub last_used_at: Option<OffsetDateTime>,
}

impl Resource for ApiKey {
    const NAME: &'static str = "API key";
}

/// A key with its secret, returned once when it is created or regenerated.
#[derive(Serialize, ToSchema)]
pub struct ApiKeyWithSecret {
    #[serde(flatten)]
    pub api_key: ApiKey,
    /// The secret: `Authorization: Bearer <key>`. Shown only now; store it safely.
    #[schema(example = "sdk_4fQ9xB2k...")]
    pub key: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyList {
    pub api_keys: Vec<ApiKey>,
}

#[derive(Deserialize, ToSchema)]
pub struct CreateApiKeyRequest {
    #[schema(example = "CRM sync")]
    name: String,
}

/// The workspace's API keys (never their secrets).
#[utoipa::path(
    get, path = "/api/settings/api-keys", tag = "api-keys",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The keys, oldest first", body = ApiKeyList),
        OwnerErrors,
    )
)]
pub async fn list(State(state): State<AppState>, actor: Actor) -> Result<AppJson<ApiKeyList>> {
    let api_keys = sqlx::query_as!(
        ApiKey,
        r#"SELECT id, name, 'sdk_' || left(lookup, 8) AS "prefix!", created_by, created_at,
                  regenerated_at, last_used_at
             FROM public.api_keys WHERE workspace_id = $1 ORDER BY created_at, id"#,
        actor.workspace_id,
    )
    .fetch_all(&state.db)
    .await?;
    Ok(AppJson(ApiKeyList { api_keys }))
}

/// Create a key; its secret is in the response and nowhere else.
#[utoipa::path(
    post, path = "/api/settings/api-keys", tag = "api-keys",
    security(("bearer" = [])),
    request_body = CreateApiKeyRequest,
    responses(
        (status = 201, description = "Created; `key` is shown this once", body = ApiKeyWithSecret),
        OwnerErrors,
        (status = 409, description = "The workspace has the most keys allowed", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    AppJson(request): AppJson<CreateApiKeyRequest>,
) -> Result<(StatusCode, AppJson<ApiKeyWithSecret>)> {
    let name = request.name.trim();
    if name.is_empty() || name.chars().count() > NAME_MAX_CHARS {
        return Err(Error::invalid_field(
            "name",
            format!("must be 1 to {NAME_MAX_CHARS} characters"),
        ));
    }
    let created_by = actor.member_id()?;
    let secret = ApiKeySecret::generate();
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    // Serialises key creation per workspace, so the bound holds under concurrent requests.
    sqlx::query_scalar!(
        "SELECT id FROM public.workspaces WHERE id = $1 FOR NO KEY UPDATE",
        actor.workspace_id,
    )
    .fetch_optional(&mut *tx)
    .await?;
    let count = sqlx::query_scalar!(
        r#"SELECT count(*) AS "count!" FROM public.api_keys WHERE workspace_id = $1"#,
        actor.workspace_id,
    )
    .fetch_one(&mut *tx)
    .await?;
    if count >= MAX_KEYS_PER_WORKSPACE {
        return Err(Error::conflict(
            "api_key_limit",
            format!(
                "a workspace may have at most {MAX_KEYS_PER_WORKSPACE} API keys; revoke one first"
            ),
        ));
    }
    let api_key = sqlx::query_as!(
        ApiKey,
        r#"INSERT INTO public.api_keys (id, workspace_id, name, lookup, secret_hash, created_by)
           VALUES ($1, $2, $3, $4, $5, $6)
           RETURNING id, name, 'sdk_' || left(lookup, 8) AS "prefix!", created_by, created_at,
                  regenerated_at, last_used_at"#,
        Uuid::now_v7(),
        actor.workspace_id,
        name,
        secret.lookup(),
        &secret.digest()[..],
        created_by,
    )
    .fetch_one(&mut *tx)
    .await?;
    let entry = Entry::new(
        &actor,
        Some(client),
        Action::ApiKeyCreated,
        "api_key",
        api_key.id,
    )
    .changes(json!({ "name": api_key.name, "prefix": api_key.prefix }));
    audit::record(&mut tx, &actor.schema, entry).await?;
    tx.commit().await?;
    tracing::info!(key_id = %api_key.id, workspace_id = %actor.workspace_id, "API key created");
    Ok((
        StatusCode::CREATED,
        AppJson(ApiKeyWithSecret {
            api_key,
            key: secret.expose().to_owned(),
        }),
    ))
}

/// Replace a key's secret; the old one is refused from this moment, on every replica.
#[utoipa::path(
    post, path = "/api/settings/api-keys/{id}/regenerate", tag = "api-keys",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "API key id")),
    responses(
        (status = 200, description = "The new secret, shown this once", body = ApiKeyWithSecret),
        OwnerErrors,
    )
)]
pub async fn regenerate(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    PathId { id, .. }: PathId<ApiKey>,
) -> Result<AppJson<ApiKeyWithSecret>> {
    let secret = ApiKeySecret::generate();
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    let api_key = sqlx::query_as!(
        ApiKey,
        r#"UPDATE public.api_keys
              SET lookup = $3, secret_hash = $4, regenerated_at = now(), last_used_at = NULL
            WHERE id = $1 AND workspace_id = $2
        RETURNING id, name, 'sdk_' || left(lookup, 8) AS "prefix!", created_by, created_at,
                  regenerated_at, last_used_at"#,
        id,
        actor.workspace_id,
        secret.lookup(),
        &secret.digest()[..],
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or(Error::NotFound("API key"))?;
    let entry = Entry::new(
        &actor,
        Some(client),
        Action::ApiKeyRegenerated,
        "api_key",
        id,
    )
    .changes(json!({ "name": api_key.name, "prefix": api_key.prefix }));
    audit::record(&mut tx, &actor.schema, entry).await?;
    tx.commit().await?;
    tracing::info!(key_id = %api_key.id, workspace_id = %actor.workspace_id, "API key regenerated");
    Ok(AppJson(ApiKeyWithSecret {
        api_key,
        key: secret.expose().to_owned(),
    }))
}

/// Revoke a key: it is refused from this moment, on every replica.
#[utoipa::path(
    delete, path = "/api/settings/api-keys/{id}", tag = "api-keys",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "API key id")),
    responses(
        (status = 204, description = "Revoked"),
        OwnerErrors,
    )
)]
pub async fn revoke(
    State(state): State<AppState>,
    client: ClientIp,
    actor: Actor,
    PathId { id, .. }: PathId<ApiKey>,
) -> Result<StatusCode> {
    let mut tx = supportdesk_core::db::begin(&state.db, None).await?;
    let deleted: Option<String> = sqlx::query_scalar(
        "DELETE FROM public.api_keys WHERE id = $1 AND workspace_id = $2 RETURNING name",
    )
    .bind(id)
    .bind(actor.workspace_id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(name) = deleted else {
        return Err(Error::NotFound("API key"));
    };
    let entry = Entry::new(&actor, Some(client), Action::ApiKeyRevoked, "api_key", id)
        .changes(json!({ "name": name }));
    audit::record(&mut tx, &actor.schema, entry).await?;
    tx.commit().await?;
    tracing::info!(key_id = %id, workspace_id = %actor.workspace_id, "API key revoked");
    Ok(StatusCode::NO_CONTENT)
}
