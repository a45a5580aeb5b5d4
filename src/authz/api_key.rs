//! Authenticating an API key: a presented secret of the right form, found by its lookup
//! prefix and compared by digest in constant time, in a workspace that is active and current,
//! acts as that workspace's [`Principal::ApiKey`]. The keys themselves (create, list,
//! regenerate, revoke) are `api_keys`; their form is `credentials::api_key`.

use subtle::ConstantTimeEq;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::migrations::latest_version;
use uuid::Uuid;

use crate::authz::{Actor, Principal};
use crate::credentials::api_key::{self, ApiKeySecret};
use crate::error::Error;
use crate::state::AppState;

/// Whether a bearer credential is meant as an API key rather than a JWT.
pub fn looks_like_key(credential: &str) -> bool {
    credential.starts_with(api_key::PREFIX)
}

const INVALID: &str = "the API key is invalid or has been revoked";

/// The workspace a presented key belongs to, acting as its [`Principal::ApiKey`].
pub async fn authenticate(state: &AppState, presented: &str) -> Result<Actor, Error> {
    let secret = ApiKeySecret::parse(presented).map_err(|_| Error::Unauthorized(INVALID))?;
    struct Row {
        id: Uuid,
        workspace_id: Uuid,
        secret_hash: Vec<u8>,
        stale: bool,
        workspace_status: String,
        schema_name: String,
        schema_version: i32,
    }
    let row = sqlx::query_as!(
        Row,
        r#"SELECT k.id, k.workspace_id, k.secret_hash,
                  (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute')
                    AS "stale!",
                  w.status AS workspace_status, w.schema_name, w.schema_version
             FROM public.api_keys k JOIN public.workspaces w ON w.id = k.workspace_id
            WHERE k.lookup = $1"#,
        secret.lookup(),
    )
    .fetch_optional(&state.db)
    .await?;
    let row = row
        .filter(|row| bool::from(row.secret_hash.ct_eq(&secret.digest())))
        .ok_or(Error::Unauthorized(INVALID))?;
    crate::authz::check_workspace(
        row.workspace_status == "active",
        row.schema_version >= latest_version(),
    )?;
    if row.stale {
        let db = state.db.clone();
        tokio::spawn(async move {
            let touched = sqlx::query!(
                "UPDATE public.api_keys SET last_used_at = now()
                  WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')",
                row.id,
            )
            .execute(&db)
            .await;
            if let Err(err) = touched {
                tracing::warn!(error = %err, key_id = %row.id, "could not record an API key's last use");
            }
        });
    }
    Ok(Actor {
        workspace_id: row.workspace_id,
        schema: TenantSchema::parse(&row.schema_name).map_err(|e| anyhow::anyhow!(e))?,
        principal: Principal::ApiKey { key_id: row.id },
    })
}
