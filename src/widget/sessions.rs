//! `POST /widget/v1/sessions`: the loader script on a customer's page starts a visitor
//! session with the workspace's site key. The browser's `Origin` must be one the workspace
//! allows: that is what stops other websites from embedding the widget (it is no defence
//! against scripts, which is why a visitor token grants so little). CORS answers a preflight,
//! which carries no site key, for origins that some workspace allows, and for no other.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::header::ORIGIN;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use serde::{Deserialize, Serialize};
use sqlx::types::Json;
use time::OffsetDateTime;
use tower_http::cors::AllowOrigin;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::authz::check_workspace;
use crate::credentials::jwt::{Trust, VisitorTrust};
use crate::credentials::widget_identity;
use crate::error::{Error, FieldChecks, Result};
use crate::events::catalogue::DomainEvent;
use crate::events::log::{self, By};
use crate::extract::{AppJson, ClientIp};
use crate::rate_limit::{Decision, Quota};
use crate::state::AppState;
use crate::workspace_settings::Branding;
use supportdesk_core::tenancy::TenantSchema;
use supportdesk_core::tenancy::migrations::latest_version;

use super::contacts::{self, IdentityInput};
use super::site_key::SiteKey;
use super::visitor::VisitorTx;

/// Sessions one client address may start.
const SESSIONS_PER_CLIENT: Quota = Quota {
    limit: 30,
    window: Duration::from_secs(600),
};

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewSession {
    #[schema(example = "swk_Zx3kq0vN8bY1r2s3t4u5v6w7x8y9z0AB")]
    site_key: String,
    /// The id this browser was given before (kept by the widget); a new one when absent or
    /// unknown.
    visitor_id: Option<Uuid>,
    /// Who the customer's site says the visitor is.
    identity: Option<IdentityInput>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// The visitor token (1 hour): `/widget/v1/*` and the chat hub only.
    token: String,
    visitor_id: Uuid,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    expires_at: OffsetDateTime,
    workspace: SessionWorkspace,
    /// Whether an agent is connected now ("we reply by email" otherwise).
    agents_online: bool,
}

#[derive(Serialize, ToSchema)]
pub struct SessionWorkspace {
    name: String,
    branding: Branding,
}

struct Site {
    workspace_id: Uuid,
    name: String,
    schema: TenantSchema,
    allowed_origins: Vec<String>,
    identity_verification: bool,
    identity_secret_nonce: Option<Vec<u8>>,
    identity_epoch: i32,
}

/// The live workspace whose site key this is.
async fn site(state: &AppState, site_key: &str) -> Result<Site> {
    const UNKNOWN: Error = Error::NotFound("site key");
    let site_key = SiteKey::parse(site_key).ok_or(UNKNOWN)?;
    let row = sqlx::query!(
        "SELECT w.id, w.name, w.schema_name, w.status, w.schema_version,
                s.allowed_origins, s.identity_verification, s.identity_secret_nonce,
                s.identity_epoch
           FROM public.widget_sites s JOIN public.workspaces w ON w.id = s.workspace_id
          WHERE s.site_key = $1",
        site_key.as_str(),
    )
    .fetch_optional(&state.db)
    .await?
    .ok_or(UNKNOWN)?;
    if row.status != "active" {
        return Err(UNKNOWN);
    }
    check_workspace(true, row.schema_version >= latest_version())?;
    Ok(Site {
        workspace_id: row.id,
        name: row.name,
        schema: TenantSchema::parse(&row.schema_name)
            .map_err(|e| Error::Internal(anyhow::anyhow!(e)))?,
        allowed_origins: row.allowed_origins,
        identity_verification: row.identity_verification,
        identity_secret_nonce: row.identity_secret_nonce,
        identity_epoch: row.identity_epoch,
    })
}

/// Start a visitor session (called by the widget's loader on the customer's page).
#[utoipa::path(
    post, path = "/widget/v1/sessions", tag = "widget",
    request_body = NewSession,
    responses(
        (status = 201, description = "A visitor session", body = Session),
        (status = 401, description = "The identity's `hash` is missing (verification is on) or wrong",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 403, description = "The page's origin is not one the workspace allows (`origin_not_allowed`)",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No workspace has this site key",
            body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many sessions from this client; see Retry-After",
            body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create(
    State(state): State<AppState>,
    client: ClientIp,
    headers: HeaderMap,
    AppJson(request): AppJson<NewSession>,
) -> Result<(StatusCode, AppJson<Session>)> {
    let key = format!("widget:sessions:ip:{}", client.rate_limit_key());
    if let Decision::Limited { retry_after } =
        state.rate_limiter.check(&key, SESSIONS_PER_CLIENT).await
    {
        return Err(Error::TooManyRequests { retry_after });
    }
    let mut checks = FieldChecks::default();
    let identity = request.identity.map(|i| i.check(&mut checks));
    if !checks.is_empty() {
        return Err(checks.failed());
    }
    let identity = identity.flatten();
    let site = site(&state, &request.site_key).await?;
    let origin = headers.get(ORIGIN).and_then(|o| o.to_str().ok());
    if !origin.is_some_and(|o| site.allowed_origins.iter().any(|a| a == o)) {
        return Err(Error::forbidden(
            "origin_not_allowed",
            "this page's origin may not start chats for this workspace: an Owner adds it to the widget's allowed origins",
        ));
    }
    let verified = match &identity {
        None => false,
        Some(identity) => verify(
            &state,
            &site,
            &identity.external_id,
            identity.hash.as_deref(),
        )?,
    };

    let mut tx = VisitorTx::begin(&state, &site.schema).await?;
    let (conn, schema) = tx.parts();
    let mut newly_verified = false;
    let mut contact_events = Vec::new();
    let (contact, visitor_id) = match &identity {
        None => {
            let (contact, visitor_id, created) =
                contacts::anonymous(&mut *conn, schema, request.visitor_id).await?;
            if created {
                contact_events.push(DomainEvent::ContactCreated(contact.clone()));
            }
            (contact, visitor_id)
        }
        Some(identity) => {
            // The browser's visitor id, when this workspace minted it (else a new one).
            let known = match request.visitor_id {
                Some(id) => contacts::known_visitor(&mut *conn, schema, id)
                    .await?
                    .map(|_| id),
                None => None,
            };
            let identified =
                contacts::identified(&mut *conn, schema, identity, verified, known).await?;
            newly_verified = identified.newly_verified;
            if identified.created {
                contact_events.push(DomainEvent::ContactCreated(identified.contact.clone()));
            } else if identified.changed {
                contact_events.push(DomainEvent::ContactUpdated(identified.contact.clone()));
            }
            contact_events.extend(identified.handed_over);
            (identified.contact, known.unwrap_or_else(Uuid::new_v4))
        }
    };
    let Json(branding): Json<Branding> =
        sqlx::query_scalar(schema.sql("SELECT branding FROM {schema}.settings"))
            .fetch_one(&mut *conn)
            .await?;
    let recorded = log::append(conn, schema, By::Visitor(contact.id), contact_events).await?;
    tx.commit().await?;
    state.events.committed(site.workspace_id, recorded);
    if newly_verified {
        // Sessions that named this identity unverified lose it: their hub connections close
        // on every replica (`crate::chat::lifecycle`); their requests are refused already.
        state
            .memberships
            .contact_changed(site.workspace_id, contact.id)
            .await;
    }

    let trust = VisitorTrust {
        trust: match (&identity, verified) {
            (None, _) => Trust::Anonymous,
            (Some(_), false) => Trust::Claimed,
            (Some(_), true) => Trust::Verified,
        },
        epoch: site.identity_epoch,
    };
    let issued = state
        .jwt
        .issue_visitor(site.workspace_id, contact.id, visitor_id, trust)
        .map_err(Error::Internal)?;
    let agents_online = !state.hub.online(site.workspace_id).await.is_empty();
    Ok((
        StatusCode::CREATED,
        AppJson(Session {
            token: issued.token,
            visitor_id,
            expires_at: issued.expires_at,
            workspace: SessionWorkspace {
                name: site.name,
                branding,
            },
            agents_online,
        }),
    ))
}

/// Whether the identity is signed. With verification on a signature is required; with it
/// off an identity is taken as given (unverified), unless it carries a wrong signature.
fn verify(state: &AppState, site: &Site, external_id: &str, hash: Option<&str>) -> Result<bool> {
    const WRONG: Error = Error::Unauthorized("the identity's hash does not match its externalId");
    let secret = site
        .identity_secret_nonce
        .as_deref()
        .map(|nonce| state.widget_identity.secret(site.workspace_id, nonce));
    match (hash, secret) {
        (Some(hash), Some(secret)) => {
            if widget_identity::verify(&secret, external_id, hash) {
                Ok(true)
            } else {
                Err(WRONG)
            }
        }
        (None, _) if site.identity_verification => Err(Error::Unauthorized(
            "this workspace verifies identities: send the identity's hash",
        )),
        (Some(_), None) => Err(WRONG),
        (None, _) => Ok(false),
    }
}

/// CORS for sessions: a browser origin is allowed when some workspace lists it. Answers are
/// cached briefly, so a flood of preflights costs the database one indexed lookup per origin
/// every few seconds.
pub fn allowed_origins(state: &AppState) -> AllowOrigin {
    let cache: moka::future::Cache<HeaderValue, bool> = moka::future::Cache::builder()
        .max_capacity(10_000)
        .time_to_live(Duration::from_secs(5))
        .build();
    let lookup = Arc::new((state.clone(), cache));
    // The closure is cloned for each request, and with it the `Arc`.
    AllowOrigin::async_predicate(move |origin: HeaderValue, _| {
        async move {
            let (state, cache) = &*lookup;
            let Ok(text) = origin.to_str().map(str::to_owned) else {
                return false;
            };
            // An error is not cached: the next preflight asks again.
            cache
                .try_get_with(origin, async move {
                    sqlx::query_scalar!(
                        r#"SELECT EXISTS (SELECT 1 FROM public.widget_sites
                                           WHERE allowed_origins @> ARRAY[$1::text]) AS "allowed!""#,
                        text,
                    )
                    .fetch_one(&state.db)
                    .await
                })
                .await
                .unwrap_or(false)
        }
    })
}
